require_relative "../test_helper"
require "tmpdir"
require "pathname"

class TestJson < TracegraphTest
  def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

  def sample_profile
    @sample_profile ||= Tracegraph.profile { fib(10); [3, 1].sort; Thread.new { fib(5) }.join }
  end

  def snapshot(profile)
    [profile.clock, profile.program, profile.total_time, profile.complete?,
     profile.threads.map(&:to_a),
     profile.methods.map(&:to_a),
     profile.edges.map { |e| [e.caller.name, e.callee.name, e.calls, e.total_time, e.self_time] }]
  end

  def test_round_trip_through_a_string_and_a_file
    profile = sample_profile
    again = Tracegraph::Profile.parse_json(profile.to_json)
    assert_equal snapshot(profile), snapshot(again)
    assert_equal again.to_json, profile.to_json

    Dir.mktmpdir do |dir|
      path = File.join(dir, "profile.json")
      assert_equal path, profile.write_json(path)
      assert_equal snapshot(profile), snapshot(Tracegraph::Profile.load_json(path))
    end
  end

  def test_the_documented_schema
    data = JSON.parse(sample_profile.to_json)
    assert_equal 2, data["version"]
    assert_kind_of Integer, data["wall_time"]
    assert_equal "wall", data["clock"]
    assert_equal "ns", data["unit"]
    assert_equal sample_profile.total_time, data["total_time"]
    assert_equal %w[id name total_time], data["threads"].first.keys
    assert_equal %w[name file line c_method waiting calls total_time self_time], data["methods"].first.keys
    assert_equal %w[caller callee calls total_time self_time], data["edges"].first.keys
    fib = data["methods"].index { |m| m["name"] == "TestJson#fib" }
    fib_edge = data["edges"].find { |e| e["caller"] == fib && e["callee"] == fib }
    assert_equal 176 + 14, fib_edge["calls"] # fib(10) and fib(5) each call themselves
  end

  # A title (a web request's) is written and read back, kept by views,
  # shown by the HTML report and the DOT legend; files without one load
  # with none, and a title that is not a string is refused.
  def test_a_title_survives_the_json_and_old_files_have_none
    title = "GET /posts 200 \u00b7 PostsController#index \u00b7 412 ms"
    profile = sample_profile.titled(title)
    assert_nil sample_profile.title
    again = Tracegraph::Profile.parse_json(profile.to_json)
    assert_equal title, again.title
    assert_equal snapshot(profile), snapshot(again)
    with_tree = Tracegraph.profile(call_tree: true) { fib(5); Thread.new { fib(3) }.join }.titled(title)
    assert_equal [title, 1], [with_tree.view(threads: ["main"]).title, with_tree.view(threads: ["main"]).threads.size]
    assert_equal "tracegraph: #{title}", Tracegraph::Formats::Html.title(again)
    assert_equal "tracegraph: #{sample_profile.program}", Tracegraph::Formats::Html.title(sample_profile)
    assert_includes again.to_dot, "tracegraph: #{title}"
    refute_includes sample_profile.to_json, '"title"'
    assert_nil Tracegraph::Profile.parse_json(JSON.generate(valid)).title
    assert_rejects JSON.generate(valid.merge("title" => 42)), "title must be a string"
    assert_equal "a\u2400b", Tracegraph::Profile.parse_json(JSON.generate(valid.merge("title" => "a\0b"))).title
  end

  def assert_rejects(json, message)
    error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.parse_json(json) }
    assert_includes error.message, message
  end

  def valid
    {"version" => 1, "clock" => "wall", "unit" => "ns", "total_time" => 10,
     "threads" => [{"id" => 1, "name" => "main", "total_time" => 10}],
     "methods" => [{"name" => "A#a", "file" => nil, "line" => nil, "calls" => 1, "total_time" => 10, "self_time" => 10}],
     "edges" => []}
  end

  # Every clock's name loads, whichever tracegraph wrote it: "cpu" files
  # from before each thread had its own CPU clock, and "thread_cpu", the
  # name that stayed for it.
  def test_every_clock_name_loads
    %w[wall cpu thread_cpu].each do |clock|
      profile = Tracegraph::Profile.parse_json(JSON.generate(valid.merge("clock" => clock)))
      assert_equal clock.to_sym, profile.clock
      assert_equal clock, JSON.parse(profile.to_json)["clock"]
    end
  end

  def test_malformed_input_is_rejected_with_a_clear_error
    assert_rejects "{\"version\": 1, \"clock\"", "not valid JSON"
    assert_rejects "[1, 2]", "the document must be an object"
    assert_rejects JSON.generate(valid.merge("version" => 3)), "unsupported version 3 (this tracegraph reads versions 1 and 2)"
    assert_rejects JSON.generate(valid.merge("version" => 2, "wall_time" => "1 s")), "wall_time must be a non-negative integer"
    assert_rejects JSON.generate(valid.merge("version" => 2, "threads_recorded" => 0)),
                   "threads_recorded (0) is less than the 1 threads listed"
    assert_rejects JSON.generate(valid.merge("clock" => "gpu")), "unknown clock \"gpu\""
    assert_rejects JSON.generate(valid.merge("methods" => "no")), "methods must be an array, not a string"
    bad_method = valid["methods"].first.merge("calls" => -1)
    assert_rejects JSON.generate(valid.merge("methods" => [bad_method])), "methods[0].calls must be a non-negative integer"
    bad_method = valid["methods"].first.merge("self_time" => "10")
    assert_rejects JSON.generate(valid.merge("methods" => [bad_method])), "methods[0].self_time"
    edge = {"caller" => 0, "callee" => 5, "calls" => 1, "total_time" => 1, "self_time" => 1}
    assert_rejects JSON.generate(valid.merge("edges" => [edge])), "edges[0].callee points at method 5, but there are 1"
    assert_rejects "{" * 100 + "}" * 100, "not valid JSON"
    error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.parse_json(42) }
    assert_match(/needs JSON text/, error.message)
  end

  def test_load_json_takes_a_path_and_parse_json_takes_text
    error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.load_json("/no/such/profile.json") }
    assert_equal "cannot read profile /no/such/profile.json: No such file or directory", error.message
    error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.load_json(sample_profile.to_json) }
    assert_match(/for JSON text use Profile.parse_json\)\z/, error.message)
    error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.load_json(42) }
    assert_match(/needs a path/, error.message)
    Dir.mktmpdir do |dir|
      path = Pathname(File.join(dir, "{ a profile }.json")) # a path that starts like JSON is still a path
      sample_profile.write_json(path.to_s)
      assert_equal snapshot(sample_profile), snapshot(Tracegraph::Profile.load_json(path))
    end
  end

  def test_invalid_utf8_and_nul_in_names_are_made_safe
    data = valid
    data["methods"].first["name"] = "A#b\u0000c"
    profile = Tracegraph::Profile.parse_json(JSON.generate(data))
    assert_equal "A#b\u2400c", profile.methods.first.name
    raw = JSON.generate(valid).sub("A#a", "A#\xFF".b).force_encoding(Encoding::UTF_8)
    assert_rejects raw, "invalid UTF-8" # profiles are written as UTF-8; anything else is not one
  end

  def test_write_json_to_a_bad_path_names_the_problem
    Dir.mktmpdir do |dir|
      error = assert_raises(Tracegraph::Error) { sample_profile.write_json(dir) }
      assert_match(/it is a directory/, error.message)
      error = assert_raises(Tracegraph::Error) { sample_profile.write_json(File.join(dir, "missing/x.json")) }
      assert_match(/directory .*missing does not exist/, error.message)
    end
  end
end

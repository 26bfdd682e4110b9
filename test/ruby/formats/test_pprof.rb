require_relative "../test_helper"
require_relative "../cli_helper"
require "open3"
require "tmpdir"
require "zlib"
require "tracegraph/output/output"

# pprof output, read back by pprof itself (`go tool pprof`, from Debian's
# golang-go): -top must show exactly our self times, totals and call
# counts (and, recorded with allocations: true, our allocation counts),
# -traces exactly our call paths with their thread, and -dot must render
# with Graphviz.
class TestPprof < TracegraphTest
  include CliHelper

  PROGRAM = <<~RUBY
    def leaf = 1
    def mid = 3.times { leaf }
    def work = (mid; mid)
    work
    Thread.new { Thread.current.name = "worker"; work }.join
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-pprof")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def pprof(*args)
    skip "go tool pprof is not installed (apt-get install golang-go)" unless pprof_available?
    out, err, status = Open3.capture3({"GOCACHE" => File.join(@dir, "go-cache")}, "go", "tool", "pprof", *args)
    assert status.success?, "go tool pprof #{args.join(' ')} failed: #{err}"
    out
  end

  def pprof_available?
    return @pprof_available if defined?(@pprof_available)

    @pprof_available = system("go tool pprof -h > /dev/null 2>&1")
  end

  # Our names as pprof shows them: the file writes Ruby's < and > as
  # U+2039 and U+203A, which pprof's display does not strip (see
  # put_function_name in tg_stacks.c); read back, they are ours again.
  def ours(name) = name.tr("\u2039\u203a", "<>")

  # -top's rows: name => [flat, cum], with -unit=ns for times.
  def top(path, sample_index)
    pprof("-top", "-unit=ns", "-nodefraction=0", "-nodecount=100000", "-sample_index=#{sample_index}", path)
      .each_line.grep(/\A\s*\d+(ns)?\s+[\d.]+%/).to_h do |line|
      flat, _, _, cum, _, name = line.split(" ", 6)
      [ours(name.chomp), [flat.delete_suffix("ns").to_i, cum.delete_suffix("ns").to_i]]
    end
  end

  # -traces' samples: [thread, [leaf, ..., bottom], value] each.
  def traces(path, sample_index)
    pprof("-traces", "-unit=ns", "-sample_index=#{sample_index}", path)
      .split(/^-+\+-+$/).filter_map do |block|
      lines = block.lines(chomp: true).reject(&:empty?)
      thread = lines.find { |l| l.strip.start_with?("thread:") }&.split(":", 2)&.last&.strip
      frames = lines.drop_while { |l| !l.match?(/\A\s*\d+(ns)?\s+\S/) }
      next if frames.empty?

      value, leaf = frames.first.strip.split(/\s+/, 2)
      [thread, ([leaf] + frames.drop(1).map(&:strip)).map { |name| ours(name) }, value.delete_suffix("ns").to_i]
    end
  end

  def record
    path = write_script("app.rb", PROGRAM)
    _, err, status = tracegraph("--no-c-calls", "-o", "app.pb.gz", "-o", "app.json", path)
    assert status.success?, err
    [File.join(@dir, "app.pb.gz"), Tracegraph::Profile.load_json(File.join(@dir, "app.json"))]
  end

  def test_top_shows_exactly_our_self_times_totals_and_calls
    path, profile = record
    times = top(path, "time")
    calls = top(path, "calls")
    assert_equal ["Object#leaf", "Object#mid", "Object#work", "block in <main>", "block in Object#mid"], times.keys.sort,
                 "one row each: <main> is not cut away as a C++ template's arguments would be"
    profile.methods.each do |m|
      assert_equal [m.self_time, m.total_time], times.fetch(m.name), "#{m.name}: flat and cum time"
      assert_equal m.calls, calls.fetch(m.name).first, "#{m.name}: calls"
    end
    assert_equal [2, 4, 12], %w[Object#work Object#mid Object#leaf].map { |n| calls.fetch(n).first }
  end

  def test_traces_are_our_call_paths_with_their_thread
    path, profile = record
    expected = profile.call_tree.nodes.map do |n|
      [n.thread.name, n.stack.reverse.map(&:name), n.self_time]
    end
    assert_equal expected.sort, traces(path, "time").sort
    assert_equal(profile.call_tree.nodes.map { |n| [n.thread.name, n.stack.reverse.map(&:name), n.calls] }.sort,
                 traces(path, "calls").sort)
    assert_equal %w[main worker], expected.map(&:first).uniq.sort, "each thread's paths are its own"
  end

  def test_dot_renders_with_graphviz
    path, = record
    dot = pprof("-dot", path)
    assert_match(/Object#work/, dot)
    svg, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
    assert status.success?, err
    assert_match(/<svg/, svg)
  end

  def test_the_api_writes_the_same_as_the_command
    profile = Tracegraph.profile(call_tree: true, c_calls: false) { [1, 2].map { |x| x + 1 } }
    path = File.join(@dir, "api.pb.gz")
    assert_equal path, profile.write_pprof(path)
    assert_equal "\x1F\x8B".b, File.binread(path, 2), "gzipped"
    body = Zlib.gunzip(File.binread(path))
    assert_includes body, "calls"
    assert_includes body, "nanoseconds"
  end

  # n strings (in the block) and the Range and Array (in the method): n + 2
  # objects. Range#each, a C method on every Ruby (Integer#times is Ruby
  # code from 3.3).
  def build_strings(n)
    list = []
    (1..n).each { list << "s" }
    list
  end

  def allocating_work
    Thread.new do
      Thread.current.name = "worker"
      build_strings(300)
    end.join
    build_strings(1000)
  end

  # Profiled after a run with and one without the hooks, so that the call
  # sites have their caches (see TestAllocations).
  def allocation_profile
    Tracegraph.profile(allocations: true, call_tree: true) { allocating_work }
    allocating_work
    Tracegraph.profile(allocations: true, call_tree: true) { allocating_work }
  end

  def test_alloc_objects_shows_exactly_our_allocations
    profile = allocation_profile.view(threads: %w[main worker]) # only ours: minitest's threads may run
    path = File.join(@dir, "allocations.pb.gz")
    profile.write_pprof(path)
    allocs = top(path, "alloc_objects")
    allocating = profile.methods.select { |m| m.allocations.positive? }
    assert_equal allocating.map(&:name).sort, allocs.keys.sort, "a row for each method that allocated"
    allocating.each do |m|
      assert_equal [m.self_allocations, m.allocations], allocs.fetch(m.name), "#{m.name}: flat and cum objects"
    end
    assert_equal [4, 1304], allocs.fetch("TestPprof#build_strings")
    assert_equal [1300, 1300], allocs.fetch("block in TestPprof#build_strings")
    assert_equal(profile.call_tree.nodes.map { |n| [n.thread.name, n.stack.reverse.map(&:name), n.self_allocations] }.sort,
                 traces(path, "alloc_objects").sort)
    # The other sample types are as they were, time still the default.
    assert_equal profile.methods.to_h { |m| [m.name, m.calls] },
                 top(path, "calls").transform_values(&:first).select { |name, _| profile[name] }
    assert_match(/^Type: time$/, pprof("-top", path))
  end

  def test_a_view_s_alloc_objects_are_its_thread_s
    profile = allocation_profile
    path = File.join(@dir, "worker.pb.gz")
    profile.write_pprof(path, threads: "worker")
    worker = profile.view(threads: "worker")
    allocs = top(path, "alloc_objects")
    assert_equal [2, 302], allocs.fetch("TestPprof#build_strings")
    assert_equal [300, 300], allocs.fetch("block in TestPprof#build_strings")
    worker.methods.select { |m| m.allocations.positive? }.each do |m|
      assert_equal [m.self_allocations, m.allocations], allocs.fetch(m.name), m.name
    end
  end

  def test_without_allocations_there_is_no_alloc_objects
    path, = record
    refute_includes Zlib.gunzip(File.binread(path)), "alloc_objects"
  end

  def outer = 2.times { inner }
  def inner = 1

  def test_the_cap_is_said_in_a_comment
    profile = Tracegraph.profile(call_tree: true, max_call_tree_nodes: 1, c_calls: false) { outer }
    assert_operator profile.call_tree.folded_calls, :>, 0
    path = File.join(@dir, "capped.pb.gz")
    profile.write_pprof(path)
    assert_match(/#{profile.call_tree.folded_calls} calls past the call tree's cap were folded/,
                 pprof("-top", path))
  end

  def test_without_a_call_tree_it_says_how_to_get_one
    profile = Tracegraph.profile { 1 }
    error = assert_raises(Tracegraph::Error) { profile.write_pprof(File.join(@dir, "x.pb.gz")) }
    assert_match(/call_tree: true.*pprof/, error.message)
    error = assert_raises(Tracegraph::Error) { Tracegraph::Output.write(profile, File.join(@dir, "x.pb.gz")) }
    assert_match(/no call tree.*--call-tree.*pprof/, error.message)
  end
end

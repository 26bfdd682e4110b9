require_relative "torture_helper"

# load_json on input made to hurt: it must load or raise FormatError,
# never anything else, and what it loads must render.
class TestHostileJsonTorture < TortureTest
  def leaf = :leaf

  def valid
    @valid ||= JSON.parse(Tracegraph.profile { 3.times { leaf } }.to_json)
  end

  def assert_format_error(text)
    assert_raises(Tracegraph::FormatError, text.to_s[0, 80].inspect) { Tracegraph::Profile.parse_json(text) }
  end

  def with(path, value)
    doc = Marshal.load(Marshal.dump(valid))
    *keys, last = path
    keys.inject(doc) { |node, key| node[key] }[last] = value
    JSON.generate(doc)
  end

  def test_truncated_at_every_length
    text = JSON.generate(valid)
    (0...text.size).step([text.size / 300, 1].max).each { |n| assert_format_error(text[0, n]) }
  end

  def test_deep_nesting
    assert_format_error("[" * 100_000)
    assert_format_error('{"a":' * 100_000 + "1" + "}" * 100_000)
    assert_format_error(with(["methods", 0, "name"], [[[[[[[[[["x"]]]]]]]]]]))
  end

  def test_huge_documents
    # One 50 MB name: loads (and is cut when drawn) or is refused, quickly.
    name = "H#" + "x" * (Torture.scaled(5) * 1024 * 1024)
    profile = Tracegraph::Profile.parse_json(with(["methods", 0, "name"], name))
    assert_operator profile.to_dot.bytesize, :<, 1024 * 1024
    # Many methods and edges pointing at them.
    n = Torture.scaled(20_000)
    doc = Marshal.load(Marshal.dump(valid))
    doc["methods"] = Array.new(n) do |i|
      {"name" => "M#m#{i}", "file" => nil, "line" => nil, "c_method" => false,
       "calls" => 1, "total_time" => 2, "self_time" => 1}
    end
    doc["edges"] = Array.new(n - 1) { |i| {"caller" => i, "callee" => i + 1, "calls" => 1, "total_time" => 1, "self_time" => 1} }
    profile = Tracegraph::Profile.parse_json(JSON.generate(doc))
    assert_equal n, profile.methods.size
    assert_match(/\Adigraph/, profile.to_dot)
  end

  HOSTILE_VALUES = [nil, -1, 1.5, 1e300, "3", [], {}, true, 2**64, 2**70, -(2**70)].freeze

  def test_wrong_types_in_every_counted_field
    %w[calls total_time self_time].each do |key|
      HOSTILE_VALUES.each { |v| assert_format_error(with(["methods", 0, key], v)) }
    end
    %w[caller callee calls total_time self_time].each do |key|
      HOSTILE_VALUES.each { |v| assert_format_error(with(["edges", 0, key], v)) }
    end
    %w[id total_time].each do |key|
      HOSTILE_VALUES.each { |v| assert_format_error(with(["threads", 0, key], v)) }
    end
    [nil, 5, [], {}].each do |v|
      assert_format_error(with(["methods", 0, "name"], v))
      assert_format_error(with(["clock"], v))
      assert_format_error(with(["methods"], v)) unless v == []
    end
    [-1, 1.5, "7", 2**70].each { |v| assert_format_error(with(["methods", 0, "line"], v)) }
  end

  def test_edges_pointing_at_missing_methods
    [valid["methods"].size, 10**9, 2**63].each do |index|
      assert_format_error(with(["edges", 0, "callee"], index))
      assert_format_error(with(["edges", 0, "caller"], index))
    end
  end

  def test_not_a_profile_at_all
    ["", " ", "null", "1", "[]", "{}", '"x"', "\xFF\xFE{", "a path\0with a NUL", "{\"version\":1}\0", "NaN",
     '{"version":1,"clock":"\\ud800"}', "{\"version\":1,\"clock\":\"wa\xFFll\"}"].each do |text|
      assert_format_error(text)
    end
    assert_format_error(123)
    assert_format_error(nil)
  end

  # Strings that load must also render and save: the loaded profile is
  # as usable as a recorded one.
  def test_loaded_strings_render_and_round_trip
    [["program"], ["methods", 0, "file"], ["threads", 0, "name"]].each do |path|
      ["a\u0000b", "bad\xFF".b.force_encoding("UTF-8"), "é\u2028\"\\"].each do |value|
        text = with(path, value.valid_encoding? ? value : "PLACEHOLDER").sub("PLACEHOLDER", value.b)
        profile = begin
          Tracegraph::Profile.parse_json(text)
        rescue Tracegraph::FormatError
          next
        end
        assert_match(/\Adigraph/, profile.to_dot, "#{path.inspect} = #{value.inspect}")
        again = Tracegraph::Profile.parse_json(profile.to_json)
        assert_equal profile.methods.map(&:name), again.methods.map(&:name)
      end
    end
  end

  def test_line_numbers_beyond_int_still_render
    profile = Tracegraph::Profile.parse_json(with(["methods", 0, "line"], 2**40))
    assert_match(/\Adigraph/, profile.to_dot(node_fraction: 0, edge_fraction: 0))
  rescue Tracegraph::FormatError
    pass
  end
end

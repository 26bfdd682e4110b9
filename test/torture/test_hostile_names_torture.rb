require_relative "torture_helper"

# Method names and file names with bytes that are not text: they must come
# out valid UTF-8 without NULs in every output, and survive a round trip.
class TestHostileNamesTorture < TortureTest
  HOSTILE = ["bad\xFF\xFEname".b, "nul\0inside", "quote\"back\\slash", "new\nline", "\xC0\x80overlong".b,
             "\xED\xA0\x80surrogate".b, "é\u0085\u2028", "x" * 10_000].freeze

  def hostile_class
    Class.new do
      HOSTILE.each_with_index { |name, i| define_method(name.to_sym) { i } }
      # A method whose file name is not valid UTF-8.
      class_eval("def from_bad_file = :bad", "bad\xFF\xFE.rb".b, 1)
    end
  end

  def test_names_survive_dot_json_and_load_json
    klass = hostile_class
    object = klass.new
    profile = Tracegraph.profile do
      HOSTILE.each { |name| object.send(name.to_sym) }
      object.from_bad_file
    end
    assert_sane profile
    called = profile.methods.select { |m| m.name.start_with?("#<Class:") }
    assert_equal HOSTILE.size + 1, called.size
    assert(called.all? { |m| m.calls == 1 })

    dot = profile.to_dot(node_fraction: 0, edge_fraction: 0)
    assert dot.valid_encoding?
    refute dot.include?("\0")

    json = profile.to_json
    again = Tracegraph::Profile.parse_json(json)
    assert_equal profile.methods.map(&:name), again.methods.map(&:name)
    assert_sane again
    assert_equal dot, again.to_dot(node_fraction: 0, edge_fraction: 0) if profile.program == again.program
  end
end

require_relative "../test_helper"

# Profile#reached_only_through, on a recorded profile read back from its
# JSON (the edges must name the very methods the profile lists).
class TestReachedOnly < Minitest::Test
  class Spec
    def eql?(_other) = same_attributes?
    def same_attributes? = authors && name
    def authors = %w[a]
    def name = "n"
    def recurse(n) = n.zero? ? authors : recurse(n - 1)
  end

  def test_what_only_the_chosen_methods_call_at_any_depth
    spec = Spec.new
    profile = Tracegraph::Profile.parse_json(Tracegraph.profile do
      2.times { spec.eql?(spec) }
      spec.name
      spec.recurse(2)
    end.to_json)
    prefix = "#{Spec.name}#"
    reached = profile.reached_only_through { |m| m.name == "#{prefix}eql?" }
    # name is called from main too, authors from recurse; recurse's calls
    # of itself do not make it reached.
    assert_equal %w[eql? same_attributes?], reached.keys.map { |m| m.name.delete_prefix(prefix) }.sort
    assert_equal({}, profile.reached_only_through { false })
    deep = profile.reached_only_through { |m| m.name.end_with?("#eql?", "#recurse") }
    assert_equal %w[authors eql? recurse same_attributes?], deep.keys.map { |m| m.name.delete_prefix(prefix) }.grep_v(/[^a-z_?]/).sort
  end
end

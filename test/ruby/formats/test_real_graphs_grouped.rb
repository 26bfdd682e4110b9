require_relative "../test_helper"
require "tracegraph/formats/grouping_advice"

# The real programs' graphs by class, file and gem (docs/real-programs.md):
# every grouping holds more of the self time than the methods do, the sums
# stay whole, and the command advises where the methods' boxes hold under 80%.
class TestRealGraphsGrouped < Minitest::Test
  FIXTURES = File.expand_path("../../fixtures/real", __dir__)
  # Groups in each fixture, by class, file and gem, as measured.
  # (C methods are in their callers' groups: no "(C) Owner" file or C class of their own.)
  GROUPS = {"rubocop" => [711, 690, 27], "rdoc" => [118, 109, 14], "kramdown" => [39, 57, 9],
            "rake" => [77, 71, 12], "sinatra" => [123, 85, 17]}.freeze
  # What of the self time the box of C methods no Ruby method called may hold (issue 36).
  MAX_C_SHARE = 10
  # Shares measured (docs/real-programs.md), less a point or two for changes to the box choice.
  MIN_SHARE = {class: 85, file: 84, gem: 98}.freeze

  GROUPS.each_key do |name|
    define_method(:"test_#{name}") { check(name) }
  end

  def share(profile, **options) = Tracegraph::Formats::GroupingAdvice.held_share(profile, **options)

  # The fixture, each of its groupings made once: this test, the DOT
  # writer (group_by:) and the advice each group the same profile by the
  # same three, and grouping is a function of the profile alone. (rubocop's
  # test took 13.5 s, grouping it 9 times; 5.4 s so.)
  def fixture(name)
    profile = Tracegraph::Profile.load_json(File.join(FIXTURES, "#{name}.json.gz"))
    groupings = {}
    profile.define_singleton_method(:group_by) { |grouping| groupings[grouping] ||= super(grouping) }
    profile
  end

  def check(name)
    profile = fixture(name)
    by_method = share(profile)
    %i[class file gem].each_with_index do |grouping, i|
      grouped = profile.group_by(grouping)
      assert_equal GROUPS.fetch(name)[i], grouped.methods.size, "#{name} by #{grouping}"
      assert_equal profile.total_time, grouped.methods.sum(&:self_time), "#{name} by #{grouping}: self times"
      grouped.methods.each do |g|
        assert_operator g.self_time, :<=, g.total_time, "#{name}: #{g.name}"
        assert_operator g.total_time, :<=, profile.total_time, "#{name}: #{g.name}"
      end
      # Each moment once: no arrow holds more than its callee, its caller or the whole.
      grouped.edges.each do |e|
        assert_operator e.total_time, :<=, [e.callee.total_time, e.caller.total_time, profile.total_time].min,
                        "#{name} by #{grouping}: #{e.inspect}"
      end
      c_box = grouped.methods.select(&:c_method?).sum(&:self_time)
      assert_operator 100.0 * c_box / profile.total_time, :<=, MAX_C_SHARE, "#{name} by #{grouping}: C methods' box"
      held = share(profile, group_by: grouping)
      assert_operator held, :>, by_method, "#{name} by #{grouping}"
      assert_operator held, :>=, MIN_SHARE.fetch(grouping), "#{name} by #{grouping}"
    end
    advice = Tracegraph::Formats::GroupingAdvice.note(profile, {})
    # (assert_equal nil fails on the minitest of Ruby 3.4.)
    ADVICE.key?(name) ? assert_equal(ADVICE[name], advice, name) : assert_nil(advice, name)
  end

  # At the default 80 boxes, the advice on the fixtures of 2026-11-26
  # (kramdown's boxes hold 81.9%, rake's 85.8%: none); sinatra's groupings
  # each put half the time or more in one box (the process's requires).
  ADVICE = {
    "rubocop" => "the graph's boxes hold 62.1% of self time, spread over 5,830 methods; " \
                 "--group-by gem would hold 98.9%, its biggest box rubocop at 40.7%; also file 88.2%, class 87.9%",
    "rdoc" => "the graph's boxes hold 77.1% of self time, spread over 1,652 methods; " \
              "--group-by gem would hold 100%, its biggest box (ruby) rubygems at 40.4%; also file 98.4%, class 98.2%",
    "sinatra" => "the graph's boxes hold 77.7% of self time, spread over 1,093 methods, " \
                 "and no --group-by reads better: one box would hold half of it or more (by class Kernel at 50.3%, " \
                 "by file <internal:rubygems/core_ext/kernel_require.rb> at 50.1%, by gem (ruby) rubygems at 57.9%)"
  }.freeze
end

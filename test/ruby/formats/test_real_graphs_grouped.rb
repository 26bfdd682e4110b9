require_relative "../test_helper"
require "tracegraph/formats/grouping_advice"

# The real programs' graphs by class, file and gem (docs/real-programs.md):
# every grouping holds more of the self time than the methods do, the sums
# stay whole, and the command advises on rubocop, whose methods hold under 60%.
class TestRealGraphsGrouped < Minitest::Test
  FIXTURES = File.expand_path("../../fixtures/real", __dir__)
  # Groups in each fixture, by class, file and gem, as measured.
  GROUPS = {"rubocop" => [791, 907, 28], "rdoc" => [183, 249, 21], "kramdown" => [91, 131, 13],
            "rake" => [107, 135, 12], "sinatra" => [146, 155, 17]}.freeze
  # Shares measured (docs/real-programs.md), less a point or two for changes to the box choice.
  MIN_SHARE = {class: 85, file: 84, gem: 98}.freeze

  GROUPS.each_key do |name|
    define_method(:"test_#{name}") { check(name) }
  end

  def share(profile, **options) = Tracegraph::Formats::GroupingAdvice.held_share(profile, **options)

  def check(name)
    profile = Tracegraph::Profile.load_json(File.join(FIXTURES, "#{name}.json.gz"))
    by_method = share(profile)
    %i[class file gem].each_with_index do |grouping, i|
      grouped = profile.group_by(grouping)
      assert_equal GROUPS.fetch(name)[i], grouped.methods.size, "#{name} by #{grouping}"
      assert_equal profile.total_time, grouped.methods.sum(&:self_time), "#{name} by #{grouping}: self times"
      grouped.methods.each do |g|
        assert_operator g.self_time, :<=, g.total_time, "#{name}: #{g.name}"
        assert_operator g.total_time, :<=, profile.total_time, "#{name}: #{g.name}"
      end
      crossing = profile.edges.select do |e|
        grouped.group_of(e.caller) != grouped.group_of(e.callee)
      end
      assert_equal crossing.sum(&:calls), grouped.edges.sum(&:calls), "#{name} by #{grouping}: arrows"
      held = share(profile, group_by: grouping)
      assert_operator held, :>, by_method, "#{name} by #{grouping}"
      assert_operator held, :>=, MIN_SHARE.fetch(grouping), "#{name} by #{grouping}"
    end
    note = Tracegraph::Formats::GroupingAdvice.note(profile, {})
    if name == "rubocop"
      assert_equal "the graph's boxes hold 59.9% of self time, spread over 6,172 methods; " \
                   "--group-by gem would hold 99.5%, class 88%, file 87.5%", note
    else
      assert_nil note, name
    end
  end
end

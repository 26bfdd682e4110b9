require_relative "../test_helper"
require "tracegraph/formats/grouping_advice"

# The command's advice when method-level boxes hold little of the time.
class TestGroupingAdvice < TracegraphTest
  # 150 methods of 20 ns each, in 3 classes and files, none calling another.
  def spread_profile
    methods = 150.times.map do |i|
      Tracegraph::MethodStats.new(name: "Part#{i % 3}#m#{i}", file: "/app/part#{i % 3}.rb", line: i + 1, calls: 1,
                                  total_time: 20, self_time: 20, c_method: false)
    end
    Tracegraph::Profile.new(clock: :wall, threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 3000)],
                            methods: methods, edges: [])
  end

  def test_a_graph_holding_little_names_the_groupings_that_hold_more
    profile = spread_profile
    advice = Tracegraph::Formats::GroupingAdvice
    # 80 boxes of 150 equal methods: 1,600 of 3,000 ns.
    assert_equal 53.3, advice.held_share(profile)
    assert_equal 100.0, advice.held_share(profile, group_by: :class)
    assert_equal "the graph's boxes hold 53.3% of self time, spread over 150 methods; " \
                 "--group-by class would hold 100%, file 100%, gem 100%", advice.note(profile, {})
    assert_nil advice.note(profile, {group_by: :method}), "a grouping chosen is no question"
    assert_nil advice.note(profile, {max_nodes: 0}), "every box drawn holds all"
  end
end

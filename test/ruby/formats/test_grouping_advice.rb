require_relative "../test_helper"
require "tracegraph/formats/grouping_advice"

# The command's advice when method-level boxes hold little of the time:
# the grouping that holds the most of those whose biggest box holds under
# half of it, or that none reads (issue 36).
class TestGroupingAdvice < TracegraphTest
  Advice = Tracegraph::Formats::GroupingAdvice

  # 150 methods of 20 ns each, none calling another; owner_and_file(i)
  # gives method i's class and file (under /app, so all one gem, "app").
  def spread_profile(&owner_and_file)
    methods = 150.times.map do |i|
      owner, file = owner_and_file.call(i)
      Tracegraph::MethodStats.new(name: "#{owner}#m#{i}", file: "/app/#{file}", line: i + 1, calls: 1,
                                  total_time: 20, self_time: 20, c_method: false)
    end
    Tracegraph::Profile.new(clock: :wall, threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 3000)],
                            methods: methods, edges: [])
  end

  def test_a_graph_holding_little_names_the_grouping_whose_boxes_read
    # 3 classes in 3 files, 50 methods (1,000 ns) each: a third in each box.
    profile = spread_profile { |i| ["Part#{i % 3}", "part#{i % 3}.rb"] }
    # 80 boxes of 150 equal methods: 1,600 of 3,000 ns.
    assert_equal 53.3, Advice.held_share(profile)
    assert_equal 100.0, Advice.held_share(profile, group_by: :class)
    advice = Advice.advice(profile, {})
    assert_equal :class, advice.advised.grouping, "class and file hold 100%: the first of them"
    assert_equal "Part0", advice.advised.biggest
    assert_in_delta 100.0 / 3, advice.advised.biggest_share, 1e-9
    assert_equal [:file], advice.others.map(&:grouping)
    assert_equal [[:gem, "app", 100.0]], advice.unreadable.map { |g| [g.grouping, g.biggest, g.biggest_share] },
                 "one gem: one box holds it all"
    assert_equal "the graph's boxes hold 53.3% of self time, spread over 150 methods; " \
                 "--group-by class would hold 100%, its biggest box Part0 at 33.3%; also file 100%; " \
                 "not gem, where one box holds half or more (by gem app at 100%)", Advice.note(profile, {})
    assert_nil Advice.note(profile, {group_by: :method}), "a grouping chosen is no question"
    assert_nil Advice.note(profile, {max_nodes: 0}), "every box drawn holds all"
  end

  def test_a_grouping_with_one_box_of_half_the_time_is_not_advised
    # Class Big has 75 methods (half the time) in two files; Small0 and
    # Small1 have 37 and 38 in a file each.
    profile = spread_profile do |i|
      i < 75 ? ["Big", "big#{i % 2}.rb"] : ["Small#{i % 2}", "small#{i % 2}.rb"]
    end
    advice = Advice.advice(profile, {})
    assert_equal 50.0, advice.unreadable.find { |g| g.grouping == :class }.biggest_share, "Big: 75 of 150 methods"
    assert_equal :file, advice.advised.grouping, "holds as much as class, in boxes under half"
    # big0.rb: the even methods of 0..74, 38 of them: 760 of 3,000 ns.
    assert_equal ["/app/big0.rb", 25.3], [advice.advised.biggest, advice.advised.biggest_share.round(1)]
    assert_equal "the graph's boxes hold 53.3% of self time, spread over 150 methods; " \
                 "--group-by file would hold 100%, its biggest box /app/big0.rb at 25.3%; " \
                 "not class or gem, where one box holds half or more (by class Big at 50%, by gem app at 100%)",
                 advice.text
  end

  def test_where_every_grouping_has_one_box_of_half_the_time_it_says_none_reads
    # Main holds 100 of the 150 methods, in one file.
    profile = spread_profile { |i| i < 100 ? %w[Main main.rb] : ["Other#{i % 2}", "other#{i % 2}.rb"] }
    advice = Advice.advice(profile, {})
    assert_nil advice.advised
    assert_equal "the graph's boxes hold 53.3% of self time, spread over 150 methods, and no --group-by reads better: " \
                 "one box would hold half of it or more (by class Main at 66.7%, by file /app/main.rb at 66.7%, by gem app at 100%)",
                 advice.text
  end
end

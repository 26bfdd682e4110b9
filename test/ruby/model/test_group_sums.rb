require_relative "../test_helper"

# GroupSums.from_tree (model/group_sums.rb): a grouped profile's exact
# numbers, summed in C from the call tree (tg_tree_stats.c). Each is held
# to a walk of the tree's nodes in Ruby, written here from the rule in
# model/group_by.rb, and to exact call counts.
class TestGroupSums < TracegraphTest
  include ProfileAssertions

  GroupSums = Tracegraph::Profile.const_get(:GroupSums)
  Grouping = Tracegraph::Profile.const_get(:Grouping)

  # A -> B -> A -> B: PingA#ping calls PongB#pong from a block of a C
  # method (Array#reverse_each, PingA's: not #each or #map, which Ruby 3.4
  # writes in Ruby when YJIT is on), and pong calls back into ping.
  class PingA
    def ping(n) = [n].reverse_each { |k| PongB.new.pong(k) }
    def ping_all(n) = (1..n).map { |i| "#{i}" * 3 }.sum(&:size)
  end

  class PongB
    def pong(n) = n.zero? ? PingA.new.ping_all(4) : PingA.new.ping(n - 1)
  end

  def ping_pong(threads: 0, allocations: false)
    Tracegraph.profile(gc: false, call_tree: true, allocations: allocations) do
      workers = Array.new(threads) { Thread.new { PingA.new.ping(3) } }
      PingA.new.ping(3)
      workers.each(&:join)
    end
  end

  def own_for(profile, grouping)
    key = Grouping::BY.fetch(grouping)
    profile.methods.each_with_object({}.compare_by_identity) do |m, h|
      h[m] = Grouping.c_method?(m) ? nil : Grouping.public_send(key, m)
    end
  end

  FIELDS = %i[calls total_time self_time allocations self_allocations].freeze

  # The rule, walked over CallTree#nodes: a node's group is its method's,
  # or its parent's for a C method ("(C) methods" at the bottom); a group
  # adds every node's self, the calls of its entries and the totals of its
  # outermost nodes; an arrow every crossing's calls and self and the
  # outermost crossings' totals; a piece (a C method in a group) its
  # nodes' calls and self, and the totals of those with no ancestor of
  # the same method. -> {[:group, name] | [:arrow, from, to] | [:piece,
  # method name, group] => [calls, total, self, allocations, self allocations]}
  def walk_nodes(profile, own)
    sums = Hash.new { |h, k| h[k] = [0, 0, 0, 0, 0] }
    children = profile.call_tree.nodes.group_by(&:parent)
    open = Hash.new(0)
    add = lambda do |key, n, entry, outermost|
      s = sums[key]
      s[0] += n.calls if entry
      s[1] += n.total_time if outermost
      s[2] += n.self_time
      s[3] += n.allocations.to_i if outermost
      s[4] += n.self_allocations.to_i
    end
    stack = children.fetch(nil).reverse.map { |n| [n, nil, true] }
    until stack.empty?
      n, from, entering = stack.pop
      group = own[n.method] || from || Grouping::C_METHODS
      keys = [[:group, group]]
      keys << [:arrow, from, group] if from && from != group
      keys << [:method, n.method] unless own[n.method]
      unless entering
        keys.each { |k| open[k] -= 1 }
        next
      end
      add.([:group, group], n, from != group, open[[:group, group]].zero?)
      add.([:arrow, from, group], n, true, open[[:arrow, from, group]].zero?) if from && from != group
      add.([:piece, n.method.name, group], n, true, open[[:method, n.method]].zero?) unless own[n.method]
      keys.each { |k| open[k] += 1 }
      stack << [n, from, false]
      (children[n] || []).reverse_each { |c| stack << [c, group, true] }
    end
    sums
  end

  def from_tree(profile, own)
    sums = GroupSums.from_tree(profile, own)
    refute_nil sums
    assert sums.exact
    got = {}
    sums.groups.each { |name, g| got[[:group, name]] = FIELDS.map { |f| g[f].to_i } }
    sums.arrows.each { |(from, to), a| got[[:arrow, from, to]] = FIELDS.map { |f| a[f].to_i } }
    sums.members.each do |group, ms|
      ms.each { |m| got[[:piece, m.name, group]] = FIELDS.map { |f| m[f].to_i } if sums.origin.key?(m) }
    end
    got
  end

  def assert_sums_are_the_walks(profile, label)
    %i[class file gem].each do |grouping|
      own = own_for(profile, grouping)
      want = walk_nodes(profile, own)
      got = from_tree(profile, own)
      # A group of methods no node reached is listed with zeros.
      got.reject! { |k, v| k[0] == :group && v.all?(&:zero?) && !want.key?(k) }
      assert_equal want.keys.sort, got.keys.sort, "#{label} by #{grouping}: the same groups, arrows and pieces"
      want.each { |k, v| assert_equal v, got[k], "#{label} by #{grouping}: #{k.inspect}" }
    end
  end

  def test_a_group_recursing_through_another_is_counted_once_with_exact_calls
    profile = ping_pong
    grouped = profile.group_by(:class)
    ping, pong = method_named(profile, "TestGroupSums::PingA#ping"), method_named(profile, "TestGroupSums::PongB#pong")
    a = method_named(grouped, "TestGroupSums::PingA")
    b = method_named(grouped, "TestGroupSums::PongB")
    # ping(3) from the test, and ping(2), ping(1), ping(0) from pong: 4
    # calls into A; then pong(0)'s one call of ping_all. 4 pongs, each
    # from a block of ping's, so 4 calls into B.
    assert_equal [4, 4, 1], [ping.calls, pong.calls, method_named(profile, "TestGroupSums::PingA#ping_all").calls]
    assert_equal 4 + 1, a.calls
    assert_equal 4, b.calls
    # The outermost nodes only: the first ping and the first pong.
    assert_equal ping.total_time, a.total_time
    assert_equal pong.total_time, b.total_time
    to_b = edge_named(grouped, "TestGroupSums::PingA", "TestGroupSums::PongB")
    to_a = edge_named(grouped, "TestGroupSums::PongB", "TestGroupSums::PingA")
    assert_equal [4, pong.total_time], [to_b.calls, to_b.total_time]
    # Into A from B: ping(2), ping(1), ping(0) and ping_all; the first
    # holds the rest.
    assert_equal [3 + 1, edge_named(profile, pong.name, ping.name).total_time], [to_a.calls, to_a.total_time]
    assert_operator to_a.total_time, :<, b.total_time
    # Array#reverse_each is A's (ping calls it); Class#new is A's from the block
    # (PongB.new), B's from pong (PingA.new).
    assert_equal 4, grouped.group_members("TestGroupSums::PingA").fetch("Array#reverse_each")[1]
    assert_equal 4, grouped.group_members("TestGroupSums::PingA").fetch("Class#new")[1]
    assert_equal 4, grouped.group_members("TestGroupSums::PongB").fetch("Class#new")[1]
    assert_equal profile.total_time, grouped.methods.sum(&:self_time)
    assert_sums_are_the_walks(profile, "ping-pong")
  end

  def test_threads_allocations_a_saved_profile_and_a_view_sum_as_the_walk
    profile = ping_pong(threads: 2, allocations: true)
    assert profile.call_tree.allocations?
    assert_equal 3 * 4, method_named(profile, "TestGroupSums::PingA#ping").calls
    grouped = profile.group_by(:class)
    assert_equal 3 * 4, method_named(grouped, "TestGroupSums::PongB").calls
    assert_operator method_named(grouped, "TestGroupSums::PingA").allocations, :>=, 3 * 4
    assert_sums_are_the_walks(profile, "threads")

    # Read back, the tree is packed from its nodes for C.
    saved = Tracegraph::Profile.parse_json(profile.to_json)
    assert_sums_are_the_walks(saved, "saved")
    assert_equal from_tree(profile, own_for(profile, :gem)).transform_keys(&:inspect).sort,
                 from_tree(saved, own_for(saved, :gem)).transform_keys(&:inspect).sort

    # A view's tree holds the threads chosen only.
    main = profile.threads.find { |t| t.name == "main" } || profile.threads.first
    view = profile.view(threads: [main.id])
    assert_equal 4, method_named(view.group_by(:class), "TestGroupSums::PongB").calls
    assert_sums_are_the_walks(view, "view")
  end

  # (Array#reverse_each: a C method under YJIT too, where #each is Ruby.)
  def nested_each = [[1, 2], [3], [4, 5, 6]].reverse_each { |a| a.reverse_each { |x| x } }

  # A C method inside itself in one group: its piece's total counts the
  # outermost call once, as the method's own total does.
  def test_a_c_method_nested_in_itself_is_one_piece_counted_once
    profile = Tracegraph.profile(gc: false, call_tree: true) { nested_each }
    each = method_named(profile, "Array#reverse_each")
    assert_equal 1 + 3, each.calls
    grouped = profile.group_by(:gem)
    sums = GroupSums.from_tree(profile, own_for(profile, :gem))
    pieces = sums.members.values.flatten.select { |m| sums.origin[m]&.equal?(each) }
    assert_equal 1, pieces.size
    assert_equal [4, each.total_time, each.self_time], [pieces[0].calls, pieces[0].total_time, pieces[0].self_time]
    assert_equal 4, grouped.group_members(grouped.group_of("Array#reverse_each")).fetch("Array#reverse_each")[1]
    assert_sums_are_the_walks(profile, "nested each")
  end

  def test_a_grouping_out_of_range_is_an_argument_error
    profile = ping_pong
    native = profile.call_tree.native(profile.methods, profile.threads)
    methods = profile.call_tree.native_methods.size
    threads = profile.call_tree.native_threads.size + 1
    sums = ->(group_of, count, top, thread_count) { native._group_stats(group_of:, group_count: count, top_group: top, thread_count:) }
    assert_raises(ArgumentError) { sums.([0] * methods, 1, 1, threads) }   # top group 1 of 1
    assert_raises(ArgumentError) { sums.([1] * methods, 1, 0, threads) }
    assert_raises(ArgumentError) { sums.([-1] * methods, 1, 0, threads) }
    assert_raises(ArgumentError) { sums.([0] * (methods - 1), 1, 0, threads) } # a node's method missing
    assert_raises(ArgumentError) { sums.([0] * methods, 1, 0, 0) }            # a node's thread missing
    assert_raises(TypeError) { sums.(nil, 1, 0, threads) }
    # Named, as _stats: a missing or unknown key is an error, not a shifted slot.
    assert_raises(KeyError) { native._group_stats(group_of: [nil] * methods, group_count: 1, top_group: 0) }
    error = assert_raises(ArgumentError) do
      native._group_stats(group_of: [nil] * methods, group_count: 1, top_group: 0, thread_count: threads, slot: 5)
    end
    assert_match(/_group_stats: unknown option :slot/, error.message)
    # Every method taking its caller's group: one group holds all.
    groups, arrows, pieces = sums.([nil] * methods, 1, 0, threads).values_at(:groups, :arrows, :pieces)
    assert_equal 1, groups.size
    assert_equal profile.total_time, groups[0][2]
    assert_empty arrows
    assert_equal profile.methods.size, pieces.size
  end
end

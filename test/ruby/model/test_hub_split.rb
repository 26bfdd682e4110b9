require_relative "../test_helper"
require_relative "../cli_helper"

# Hubs split per caller in the graph (hub_split.rb): exact parts where the
# profile says what is whose, the method left whole where it does not.
class TestHubSplit < TracegraphTest
  include CliHelper

  class Shop
    def stock = (1..30).each { |i| i.to_s }
    def sell = (1..70).each { |i| i.to_s }
    def pass_along = (1..5).each(&:to_s)
    def nested = [1, 2].each { |i| (1..i).each { |j| j.to_s } }
    def run1(&blk) = (1..2).each(&blk)
    def run2(&blk) = (1..3).each(&blk)
    def a = run1 { 1 }
    def b = run2 { 2 }
    # Two blocks on one line, named by their columns (naming.c).
    def pair
      (1..4).each { |i| i.to_s }; (1..6).each { |i| i.to_s }
    end
  end

  def profile_of(*names)
    shop = Shop.new
    Tracegraph.profile(gc: false) { names.each { |n| shop.public_send(n) } }
  end

  def parts(graph, name) = graph.methods.select { |m| m.name == name }

  def test_an_iterator_is_split_into_each_callers_exact_part
    profile = profile_of(:stock, :sell)
    graph, context, notes = profile.split_hubs
    each = method_named(profile, "Range#each")
    stock, sell = parts(graph, "Range#each").sort_by(&:calls)
    assert_equal ["from TestHubSplit::Shop#stock", "from TestHubSplit::Shop#sell"], [context[stock], context[sell]]
    [[stock, "stock"], [sell, "sell"]].each do |part, name|
      edge_in = edge_named(profile, "TestHubSplit::Shop##{name}", "Range#each")
      assert_equal [edge_in.calls, edge_in.total_time, edge_in.self_time],
                   [part.calls, part.total_time, part.self_time]
      out = graph.edges.select { |e| e.caller.equal?(part) }
      assert_equal ["block in TestHubSplit::Shop##{name}"], out.map { |e| e.callee.name }
      assert_equal [name == "stock" ? 30 : 70], out.map(&:calls)
    end
    assert_equal each.self_time, stock.self_time + sell.self_time
    assert_equal ["Split per caller: Range#each (2)"], notes
    assert_equal profile.total_time, graph.methods.sum(&:self_time), "self times still add up"
    assert_consistent(graph)

    # Without the chain fold: stock and its part of Range#each are folded
    # into one arrow where their self times are at most 0.1% of the total,
    # which one preempted Integer#to_s makes them (4.1 ms of a 4.14 ms
    # profile, on the public-API path on 3.4 under load).
    dot = profile.to_dot(node_fraction: 0, edge_fraction: 0, fold_chains: false)
    assert_includes dot, "label=\"Range#each\\nfrom TestHubSplit::\\nShop#stock\\n" # wrapped at 28 characters
    assert_includes dot, "tooltip=\"Range#each\\nfrom TestHubSplit::Shop#stock\\n"
    assert_includes dot, "Split per caller: Range#each (2)"
    _, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
    assert status.success?, err
    assert_empty err
    whole = profile.to_dot(node_fraction: 0, edge_fraction: 0, split_hubs: false, fold_chains: false)
    assert_equal 1, whole.scan(/label="Range#each\\n/).size
    refute_includes whole, "Split per caller"
  end

  # A block's column is its own, not its owner's: the blocks of pair,
  # named by their columns, are still pair's, and its part of Range#each
  # calls both. (Through the public API the two are one node, of no
  # column: test_helper's one_node_per_line?.)
  def test_blocks_named_by_their_columns_belong_to_their_method
    graph, context, = profile_of(:pair, :stock).split_hubs
    part = parts(graph, "Range#each").find { |m| context[m] == "from TestHubSplit::Shop#pair" }
    refute_nil part, context.values.inspect
    out = graph.edges.select { |e| e.caller.equal?(part) }
    assert_equal by_path([4, 6], [4 + 6]), out.map(&:calls).sort
    name = by_path(/\Ablock in TestHubSplit::Shop#pair \(column \d+\)\z/, /\Ablock in TestHubSplit::Shop#pair\z/)
    assert(out.all? { |e| e.callee.name.match?(name) }, out.map { |e| e.callee.name }.inspect)
  end

  def test_nested_blocks_belong_to_the_enclosing_block
    graph, context, notes = profile_of(:nested, :stock).split_hubs
    if one_node_per_line?
      # nested's two blocks, on one line, are one node, which both calls
      # Range#each and is called by it: which part would be whose is a
      # guess, so Range#each stays whole.
      assert_empty notes
      whole = parts(graph, "Range#each")
      assert_equal [3], whole.map(&:calls)
      out = graph.edges.select { |e| e.caller.equal?(whole.first) }.map { |e| [e.callee.name, e.calls] }
      assert_equal [["block in TestHubSplit::Shop#nested", 3], ["block in TestHubSplit::Shop#stock", 30]], out.sort
      return
    end
    inner = parts(graph, "Range#each").find { |m| context[m] == "from block in TestHubSplit::Shop#nested" }
    assert inner, parts(graph, "Range#each").map { |m| context[m] }.inspect
    assert_equal 2, inner.calls
    out = graph.edges.select { |e| e.caller.equal?(inner) }
    assert_equal [["block (2 levels) in TestHubSplit::Shop#nested", 3]], out.map { |e| [e.callee.name, e.calls] }
  end

  def test_a_method_stays_whole_when_its_parts_would_be_guesses
    # &:to_s calls a method, not a block of the caller's.
    graph, _, notes = profile_of(:pass_along, :stock).split_hubs
    assert_equal 1, parts(graph, "Range#each").size
    assert_empty notes
    # Range#each's callers, run1 and run2, pass on blocks they do not
    # define: whose block is whose is not in the profile.
    profile = profile_of(:a, :b)
    assert_equal 2, profile.edges.count { |e| e.callee.name == "Range#each" }
    graph, = profile.split_hubs
    assert_equal 1, parts(graph, "Range#each").size
    # One caller: nothing to split.
    profile = profile_of(:stock)
    assert_same profile, profile.split_hubs.first
  end

  # Which of an iterator's part and its block is bigger on the demo is a
  # point or two of timing (22% against 19-20% on an idle machine, the
  # other way round under load): not for a test. That the parts are there
  # is.
  def test_the_demo_splits_integer_times_per_caller
    Dir.mktmpdir do |dir|
      _, err, status = tracegraph("-o", "demo.json", File.join(ROOT, "examples/demo.rb"), chdir: dir)
      assert status.success?, err
      profile = Tracegraph::Profile.load_json(File.join(dir, "demo.json"))
      graph, context, = profile.split_hubs
      times = parts(graph, "Integer#times")
      if times.size == 1
        # 3.3: Integer#times is Ruby code that the profile cannot tell
        # apart per caller: it stays whole. (3.1's C method and 3.4's
        # Ruby one are split.)
        refute profile["Integer#times"].c_method
        assert_equal [7], times.map(&:calls)
        next
      end
      assert_equal ["from Object#find_many_square_roots", "from Object#find_many_squares", "from Object#main"],
                   times.map { |m| context[m] }.sort
      assert_equal [1, 3, 3], times.map(&:calls).sort
      assert_equal profile["Integer#times"].self_time, times.sum(&:self_time)
    end
  end

  def test_the_command_can_keep_hubs_whole
    Dir.mktmpdir do |dir|
      _, err, status = tracegraph("--no-split-hubs", "-o", "whole.dot", File.join(ROOT, "examples/demo.rb"), chdir: dir)
      assert status.success?, err
      assert_equal 1, File.read(File.join(dir, "whole.dot")).scan(/label="Integer#times\\n/).size
    end
  end
end

require_relative "torture_helper"

# Deep stacks and every way Ruby leaves frames early. The shadow stack
# must end each case in step with the real one: exact counts, edges only
# from the frames that really made the calls.
class TestStackTorture < TortureTest
  def countdown(n) = n.zero? ? 0 : countdown(n - 1) + 1

  def test_recursion_ten_thousand_deep
    profile = Tracegraph.profile { countdown(10_000) }
    m = method_named(profile, "TestStackTorture#countdown")
    assert_equal 10_001, m.calls
    assert_equal 10_000, edge_named(profile, "TestStackTorture#countdown", "TestStackTorture#countdown").calls
    assert_sane profile
  end

  def bottomless(n) = bottomless(n.pred).pred # C calls, not operators Ruby may run inline
  def after_overflow = :ok

  def overflow_and_recover
    bottomless(0)
  rescue SystemStackError
    after_overflow
    [1, 2].map { after_overflow }
  end

  # Ruby skips the return events of the frames a SystemStackError unwinds;
  # the work after the rescue must still hang off the rescuing method.
  def test_rescued_stack_overflow_then_more_work
    rounds = Torture.scaled(2)
    profile = Tracegraph.profile do
      rounds.times { overflow_and_recover }
      countdown(100)
    end
    rescuer = "TestStackTorture#overflow_and_recover"
    assert_equal rounds, edge_named(profile, rescuer, "TestStackTorture#after_overflow").calls
    assert_equal rounds, edge_named(profile, rescuer, "Array#map").calls
    rescue_block = "block in TestStackTorture#overflow_and_recover"
    assert_equal 2 * rounds, edge_named(profile, "Array#map", rescue_block).calls
    assert_equal 2 * rounds, edge_named(profile, rescue_block, "TestStackTorture#after_overflow").calls
    assert_nil profile.edge("TestStackTorture#overflow_and_recover", "TestStackTorture#countdown")
    assert_equal 101, method_named(profile, "TestStackTorture#countdown").calls
    from_recursion = profile.edges.select { |e| e.caller.name == "TestStackTorture#bottomless" }
    assert_equal ["Integer#pred", "TestStackTorture#bottomless"], from_recursion.map { |e| e.callee.name }.sort
    assert_sane profile
  end

  def raise_at(depth) = depth.zero? ? raise(KeyError, "bottom") : raise_at(depth - 1)
  def cleanup = :clean

  def raise_through_ensures(depth)
    depth.zero? ? raise(KeyError, "bottom") : raise_through_ensures(depth - 1)
  ensure
    cleanup
  end

  def test_exceptions_through_100_frames_with_ensure
    n = Torture.scaled(20)
    profile = Tracegraph.profile do
      n.times do
        raise_at(100)
      rescue KeyError
        cleanup
      end
      begin
        raise_through_ensures(100)
      rescue KeyError
        nil
      end
    end
    assert_equal 101 * n, method_named(profile, "TestStackTorture#raise_at").calls
    block = "block (2 levels) in TestStackTorture#test_exceptions_through_100_frames_with_ensure"
    assert_equal n, edge_named(profile, "Integer#times", block).calls
    assert_equal n, edge_named(profile, block, "TestStackTorture#raise_at").calls
    assert_equal n, edge_named(profile, block, "TestStackTorture#cleanup").calls
    # Each frame's ensure calls cleanup as the exception passes through it.
    assert_equal 101, edge_named(profile, "TestStackTorture#raise_through_ensures", "TestStackTorture#cleanup").calls
    assert_nil profile.edge("TestStackTorture#raise_at", "TestStackTorture#cleanup")
    assert_sane profile
  end

  def leaf = :leaf
  def throw_from_deep(n) = n.zero? ? throw(:out, leaf) : [n].each { throw_from_deep(n - 1) }
  def break_out_of_each = [1, 2, 3].each { |i| break leaf if i == 2 }
  def break_out_of_map = (1..3).map { |i| break leaf if i.eql?(2) }
  def next_in_times = 3.times { |i| next leaf if i.odd?; leaf }
  def return_from_times = 5.times { |i| return leaf if i.eql?(2) }
  def return_from_nested = [[1, 2], [3]].each { |a| a.map { |i| return leaf if i.eql?(2) } }

  def test_non_local_exits_across_c_methods
    n = Torture.scaled(50)
    profile = Tracegraph.profile do
      n.times do
        catch(:out) { throw_from_deep(20) }
        break_out_of_each
        break_out_of_map
        next_in_times
        return_from_times
        return_from_nested
      end
    end
    t = "TestStackTorture"
    assert_equal 21 * n, method_named(profile, "#{t}#throw_from_deep").calls
    # Each block is a frame of its own, left by throw, break, next or return.
    b = ->(m) { "block in #{t}##{m}" }
    assert_equal 20 * n, edge_named(profile, "Array#each", b[:throw_from_deep]).calls
    assert_equal 20 * n, edge_named(profile, b[:throw_from_deep], "#{t}#throw_from_deep").calls
    assert_equal n, edge_named(profile, "#{t}#throw_from_deep", "#{t}#leaf").calls
    # break: each and map's blocks ran twice, the second call breaking.
    assert_equal 2 * n, edge_named(profile, "Array#each", b[:break_out_of_each]).calls
    assert_equal n, edge_named(profile, b[:break_out_of_each], "#{t}#leaf").calls
    assert_equal 2 * n, edge_named(profile, "Range#each", b[:break_out_of_map]).calls
    assert_equal 2 * n, edge_named(profile, b[:break_out_of_map], "Numeric#eql?").calls
    assert_equal n, edge_named(profile, b[:break_out_of_map], "#{t}#leaf").calls
    # next: three leaf calls per next_in_times; return: one, after 3 rounds.
    assert_equal 3 * n, edge_named(profile, "Integer#times", b[:next_in_times]).calls
    assert_equal 3 * n, edge_named(profile, b[:next_in_times], "#{t}#leaf").calls
    assert_equal 3 * n, edge_named(profile, "Integer#times", b[:return_from_times]).calls
    assert_equal 3 * n, edge_named(profile, b[:return_from_times], "Numeric#eql?").calls
    assert_equal n, edge_named(profile, b[:return_from_times], "#{t}#leaf").calls
    # return from the inner block of two: the outer ran once. Through the
    # public API the two, on one line, are one node (one_node_per_line?).
    nested = by_path("block (2 levels) in #{t}#return_from_nested", b[:return_from_nested])
    assert_equal n, edge_named(profile, "Array#each", b[:return_from_nested]).calls
    assert_equal n, edge_named(profile, b[:return_from_nested], "Array#map").calls
    assert_equal 2 * n, edge_named(profile, "Array#map", nested).calls
    assert_equal n, edge_named(profile, nested, "#{t}#leaf").calls
    assert_equal 2 * n, edge_named(profile, nested, "Numeric#eql?").calls
    assert_equal by_path(n, 3 * n), method_named(profile, b[:return_from_nested]).calls
    # Nothing after a non-local exit may be charged to the frame it left.
    callers_of_times = profile.edges.select { |e| e.callee.name == "Integer#times" }.map { |e| e.caller.name }
    assert_equal %W[#{t}#next_in_times #{t}#return_from_times].sort, callers_of_times.sort
    assert_equal n, method_named(profile, "TestStackTorture#return_from_nested").calls
    assert_sane profile
  end
end

require_relative "torture_helper"

# Fibers are stacks that come and go: never started, abandoned half way,
# outliving the thread that made them or switched in by Enumerator#next.
class TestFiberTorture < TortureTest
  def step(i) = i + 1

  def test_fibers_never_resumed_or_abandoned
    n = Torture.scaled(1_000)
    profile = Tracegraph.profile do
      n.times { Fiber.new { step(0) } }
      half = Array.new(n) { |i| Fiber.new { step(i); Fiber.yield; step(i) } }
      half.each(&:resume)
    end
    assert_equal n, method_named(profile, "TestFiberTorture#step").calls
    assert_equal n, method_named(profile, "Fiber.yield").calls
    assert_equal n, method_named(profile, "Fiber#resume").calls
    assert_sane profile
  end

  # Fibers made by threads that end while the fiber is suspended, and a
  # main-thread fiber resumed before, during and after those threads.
  def test_fibers_across_thread_lifetimes
    outer = Fiber.new { loop { step(0); Fiber.yield } }
    profile = Tracegraph.profile do
      outer.resume
      threads = Array.new(10) do
        Thread.new do
          mine = Fiber.new { step(1); Fiber.yield; step(2) }
          mine.resume
          outer2 = Fiber.new { step(3) }
          outer2.resume
        end
      end
      outer.resume
      threads.each(&:join)
      outer.resume
    end
    assert_equal 3 + 20, method_named(profile, "TestFiberTorture#step").calls
    # The fiber's block and loop's start on one line: through the public
    # API they are one node (one_node_per_line?).
    loop_block = by_path("block (2 levels)", "block") + " in TestFiberTorture#test_fibers_across_thread_lifetimes"
    assert_equal 3, edge_named(profile, "Kernel#loop", loop_block).calls
    assert_equal 3, edge_named(profile, loop_block, "TestFiberTorture#step").calls
    assert_sane profile
  end

  def test_enumerator_next_on_a_thousand_enumerators
    n = Torture.scaled(1_000)
    enums = Array.new(n) { |i| Enumerator.new { |y| y << step(i); y << step(i + 1) } }
    profile = Tracegraph.profile do
      enums.each { |e| e.next }
      enums.each { |e| e.next }
      enums.each(&:rewind)
    end
    assert_equal 2 * n, method_named(profile, "Enumerator#next").calls
    assert_equal 2 * n, method_named(profile, "TestFiberTorture#step").calls
    assert_sane profile
  end
end

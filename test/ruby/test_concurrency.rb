require_relative "test_helper"

# Threads and fibers each get their own shadow stack.
class TestConcurrency < TracegraphTest
  def work_item(n) = n * 2
  def worker(queue, results)
    while (n = queue.pop)
      results << work_item(n)
    end
  end

  def test_four_workers_with_a_queue
    queue = Queue.new
    results = Queue.new
    profile = Tracegraph.profile(c_calls: false) do
      threads = Array.new(4) { Thread.new { worker(queue, results) } }
      100.times { |i| queue << i }
      4.times { queue << nil }
      threads.each(&:join)
    end
    assert_equal 100, results.size
    assert_equal 4, method_named(profile, "TestConcurrency#worker").calls
    assert_equal 100, method_named(profile, "TestConcurrency#work_item").calls
    assert_equal 100, edge_named(profile, "TestConcurrency#worker", "TestConcurrency#work_item").calls
    assert_equal 5, profile.threads.size   # main plus four workers
    assert_equal "main", profile.threads.first.name
    assert_consistent profile
  end

  def sleepy = sleep(0.1)

  def test_each_thread_has_its_own_total
    profile = Tracegraph.profile do
      Array.new(3) { |i| Thread.new { Thread.current.name = "sleeper-#{i}"; sleepy } }.each(&:join)
    end
    sleepers = profile.threads.select { |t| t.name.start_with?("sleeper-") }
    assert_equal 3, sleepers.size
    sleepers.each { |t| assert_in_delta 100 * ProfileAssertions::MS, t.total_time, 50 * ProfileAssertions::MS }
    # Overlapping threads each count their own time: 3 x 100 ms here.
    assert_in_delta 300 * ProfileAssertions::MS, method_named(profile, "TestConcurrency#sleepy").total_time,
                    100 * ProfileAssertions::MS
    assert_consistent profile
  end

  def in_fiber = sleep(0.05)
  def resumer(fiber) = fiber.resume

  # Open across a Fiber.yield: the 100 ms the root spends meanwhile must
  # not be charged to it.
  def yields_midway
    in_fiber
    Fiber.yield
    in_fiber
  end

  def test_time_while_a_fiber_is_switched_out_is_not_charged
    fiber = Fiber.new { yields_midway }
    profile = Tracegraph.profile do
      resumer(fiber)
      sleep 0.1
      resumer(fiber)
    end
    ms = ProfileAssertions::MS
    assert_equal 2, method_named(profile, "TestConcurrency#in_fiber").calls
    assert_equal 2, method_named(profile, "TestConcurrency#resumer").calls
    assert_in_delta 100 * ms, method_named(profile, "TestConcurrency#yields_midway").total_time, 40 * ms
    # While the fiber runs, the root stack is switched out: resumer waits
    # for the fiber but is not charged for its work, so nothing counts twice.
    assert_operator method_named(profile, "TestConcurrency#resumer").total_time, :<, 20 * ms
    # The fiber's stack is its own: its bottom frame, the fiber's block,
    # has no caller, and is what calls yields_midway.
    block = "block in TestConcurrency#test_time_while_a_fiber_is_switched_out_is_not_charged"
    assert profile.edges.none? { |e| e.callee.name == block }
    assert_equal [block], profile.edges.select { |e| e.callee.name == "TestConcurrency#yields_midway" }.map { |e| e.caller.name }
    assert_consistent profile
  end

  def next_value(enum) = enum.next
  def produce(y, n) = y << n

  def test_enumerator_next
    enum = Enumerator.new { |y| 10.times { |i| produce(y, i) } }
    values = nil
    profile = Tracegraph.profile(c_calls: false) { values = Array.new(10) { next_value(enum) } }
    assert_equal (0..9).to_a, values
    assert_equal 10, method_named(profile, "TestConcurrency#next_value").calls
    assert_equal 10, method_named(profile, "TestConcurrency#produce").calls
    assert_consistent profile
  end

  def consume(enum) = Array.new(5) { next_value(enum) }

  # A thread first seen while profiling: its first stack is only tied to
  # its Fiber when the thread switches back to it.
  def test_enumerator_next_in_a_thread_started_while_profiling
    [true, false].each do |c_calls|
      enum = Enumerator.new { |y| 5.times { |i| produce(y, i) } }
      values = nil
      profile = Tracegraph.profile(c_calls: c_calls) { Thread.new { values = consume(enum) }.join }
      assert_equal (0..4).to_a, values
      assert_equal 5, method_named(profile, "TestConcurrency#next_value").calls
      # Array.new's block calls next_value; the block is called by
      # Array#initialize, or without C calls by consume itself.
      block = "block in TestConcurrency#consume"
      assert_equal 5, edge_named(profile, block, "TestConcurrency#next_value").calls,
                   "every call after a switch back lands in the same stack (c_calls: #{c_calls})"
      assert_equal 5, edge_named(profile, c_calls ? "Array#initialize" : "TestConcurrency#consume", block).calls
      consume = method_named(profile, "TestConcurrency#consume")
      assert_equal 1, consume.calls
      assert_operator consume.total_time, :>=, method_named(profile, "TestConcurrency#next_value").total_time
      assert_consistent profile
    end
  end

  def test_a_thousand_enumerators
    enums = Array.new(1000) { |i| [i, i + 1].each }
    profile = Tracegraph.profile { enums.sum { |e| next_value(e) + next_value(e) } }
    assert_equal 2000, method_named(profile, "TestConcurrency#next_value").calls
    assert_equal 2000, method_named(profile, "Enumerator#next").calls
    assert_consistent profile
  end

  def test_fiber_never_resumed_and_threads_from_before_start
    stop = Queue.new
    background = Thread.new { worker(stop, Queue.new) }
    sleep 0.01
    parked = Fiber.new { in_fiber; Fiber.yield; in_fiber }
    profile = Tracegraph.profile do
      resumer(parked)   # parked stays suspended at Fiber.yield until after stop
      stop << 1
      sleep 0.01
    end
    stop << nil
    background.join
    assert_equal 1, method_named(profile, "TestConcurrency#in_fiber").calls
    assert_equal 1, method_named(profile, "TestConcurrency#work_item").calls
    assert_consistent profile
  end
end

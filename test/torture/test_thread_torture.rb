require_relative "torture_helper"

# Many threads, threads that outlive the session on either side, and
# threads stopped from outside. Each thread's stack is its own; counts
# must be exact and each thread's time must equal its methods' self time.
class TestThreadTorture < TortureTest
  def produce(queue, n) = n.times { |i| queue << i }
  def consume(queue, lock, totals) = (item = queue.pop) && lock.synchronize { totals << item }

  def test_fifty_threads_with_queue_and_mutex
    per_thread = Torture.scaled(200)
    queue = Queue.new
    lock = Mutex.new
    totals = []
    profile = Tracegraph.profile do
      consumers = Array.new(25) { Thread.new { Thread.current.name = "consumer"; per_thread.times { consume(queue, lock, totals) } } }
      producers = Array.new(25) { Thread.new { Thread.current.name = "producer"; produce(queue, per_thread) } }
      (consumers + producers).each(&:join)
    end
    assert_equal 25 * per_thread, totals.size
    assert_equal 25, method_named(profile, "TestThreadTorture#produce").calls
    assert_equal 25 * per_thread, method_named(profile, "TestThreadTorture#consume").calls
    assert_equal 25 * per_thread, method_named(profile, "Thread::Mutex#synchronize").calls
    names = profile.threads.map(&:name).tally
    assert_equal [25, 25], names.values_at("consumer", "producer"), names.inspect
    assert_sane profile
  end

  def spin(stop) = (Thread.pass until stop.true?)
  def tick = :tick

  # A thread already running at start joins mid-stack; one still running
  # at stop has its frames closed there.
  def test_threads_that_outlive_the_session
    stop_flag = Queue.new.tap { |q| q.define_singleton_method(:true?) { !empty? } }
    before = Thread.new { spin(stop_flag) }
    Thread.pass until before.status == "run" || before.status == "sleep"
    after = nil
    profile = Tracegraph.profile do
      after = Thread.new { loop { tick; Thread.pass } }
      10.times { tick }
      sleep 0.01
    end
    stop_flag << true
    after.kill
    [before, after].each(&:join)
    assert_operator method_named(profile, "TestThreadTorture#tick").calls, :>, 10
    assert_operator profile.threads.size, :>=, 2
    assert_sane profile
    assert_sane Tracegraph.profile { 5.times { tick } }
  end

  def worker_loop = loop { tick; sleep 0.0001 }

  def rescuing_worker
    worker_loop
  rescue RuntimeError
    tick
    :rescued
  end

  # kill and raise unwind a thread from the outside: its frames are closed
  # when it ends, and the rescue's work hangs off the rescuing method.
  def test_thread_kill_and_raise
    killed = raised = nil
    profile = Tracegraph.profile do
      killed = Thread.new { worker_loop }
      raised = Thread.new { rescuing_worker }
      sleep 0.02
      killed.kill
      raised.raise("stop")
      killed.join
      raised.join
    end
    assert_equal :rescued, raised.value
    assert_equal 2, method_named(profile, "TestThreadTorture#worker_loop").calls
    assert_equal 1, edge_named(profile, "TestThreadTorture#rescuing_worker", "TestThreadTorture#tick").calls
    assert_sane profile
  end
end

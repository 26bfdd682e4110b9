require_relative "test_helper"

# threads: :current records the calling thread (and its fibers) only.
class TestThreadsOption < TracegraphTest
  def mine(n) = n * 2
  def theirs(n) = n + 1

  # Another thread does 100 calls of `theirs` while this one waits for it,
  # then does 10 of `mine`.
  def profile_beside_a_busy_thread(**options)
    go = Queue.new
    done = Queue.new
    other = Thread.new do
      Thread.current.name = "busy"
      go.pop
      100.times { |i| theirs(i) }
      done << true
    end
    profile = Tracegraph.profile(c_calls: false, **options) do
      go << true
      done.pop
      10.times { |i| mine(i) }
    end
    other.join
    profile
  end

  def test_another_thread_is_absent_from_a_current_thread_profile
    profile = profile_beside_a_busy_thread(threads: :current)
    assert_equal 10, method_named(profile, "TestThreadsOption#mine").calls
    assert_nil profile["TestThreadsOption#theirs"]
    assert_equal ["main"], profile.threads.map(&:name)
    assert_consistent profile
  end

  def test_all_threads_is_the_default_and_records_the_other_thread
    [{}, { threads: :all }].each do |options|
      profile = profile_beside_a_busy_thread(**options)
      assert_equal 10, method_named(profile, "TestThreadsOption#mine").calls
      assert_equal 100, method_named(profile, "TestThreadsOption#theirs").calls
      # (minitest's idle worker threads may be recorded too, when they wake)
      assert_equal %w[busy main], profile.threads.map(&:name).sort & %w[busy main]
    end
  end

  # On a CPU clock the one thread recorded is charged its own CPU: waiting
  # in Thread#join for a thread that burns 200 ms, it used next to none,
  # and the other thread's CPU is in no frame (it was all in the join).
  def test_a_current_thread_cpu_profile_holds_that_threads_own_cpu_only
    %i[cpu thread_cpu].each do |clock|
      profile = Tracegraph.profile(threads: :current, clock: clock) { Thread.new { burn_cpu(0.2) }.join }
      assert_equal ["main"], profile.threads.map(&:name)
      assert_operator method_named(profile, "Thread#join").total_time, :<, 40 * MS, clock
      assert_operator profile.total_time, :<, 40 * MS, clock
      assert_consistent profile
    end
  end

  def test_fibers_of_the_current_thread_are_recorded
    profile = Tracegraph.profile(threads: :current, c_calls: false) do
      Fiber.new { 5.times { |i| mine(i) } }.resume
      mine(0)
    end
    assert_equal 6, method_named(profile, "TestThreadsOption#mine").calls
    assert_consistent profile
  end

  def test_a_non_main_thread_can_profile_itself_while_main_works
    go = Queue.new
    profiled = Thread.new do
      Thread.current.name = "profiled"
      Tracegraph.profile(threads: :current, c_calls: false) do
        go << true
        7.times { |i| mine(i) }
        sleep 0.05   # main's calls happen meanwhile
      end
    end
    go.pop
    20.times { |i| theirs(i) }
    profile = profiled.value
    assert_equal 7, method_named(profile, "TestThreadsOption#mine").calls
    assert_nil profile["TestThreadsOption#theirs"]
    assert_equal ["profiled"], profile.threads.map(&:name)
  end

  # The hook is on the profiled thread: stopping from another thread, after
  # that one ended, must remove it, or the next profile would count twice.
  def test_stop_from_another_thread_after_the_profiled_one_ended
    Thread.new do
      Tracegraph.start(threads: :current, c_calls: false)
      3.times { |i| mine(i) }
    end.join
    first = Tracegraph.stop
    assert_equal 3, method_named(first, "TestThreadsOption#mine").calls
    second = Tracegraph.profile(c_calls: false) { 4.times { |i| mine(i) } }
    assert_equal 4, method_named(second, "TestThreadsOption#mine").calls
  end

  def test_threads_can_be_a_string
    assert_equal 1, Tracegraph.profile(threads: "current") { mine(1) }["TestThreadsOption#mine"].calls
  end

  def test_a_bad_threads_value_names_the_allowed_ones
    error = assert_raises(ArgumentError) { Tracegraph.start(threads: :main) }
    assert_equal "threads must be :all or :current, not :main", error.message
    refute Tracegraph.running?
  end

  def test_current_thread_profile_survives_gc_compact
    skip "GC.compact is not available" unless GC.respond_to?(:compact)
    profile = Tracegraph.profile(threads: :current) do
      mine(1)
      GC.compact
      mine(2)
    end
    assert_equal 2, method_named(profile, "TestThreadsOption#mine").calls
    assert_consistent profile
  end
end

require_relative "test_helper"

# Times against sleeps and busy loops of known length. Tolerances are wide
# on purpose: this runs on a noisy 2-core machine. The busy loops run for
# a length of time, not a number of iterations, so their raw times are
# what is known: these tests of the clocks use raw_times: true (tracing's
# cost taken out is test_accuracy.rb's).
class TestTiming < TracegraphTest
  def sleeper = sleep(0.2)
  def burner = burn_cpu(0.2)

  def both
    sleeper
    burner
  end

  # Both from the TSC (the default, where the kernel keeps time with it)
  # and from CLOCK_MONOTONIC itself.
  [false, true].each do |exact|
    define_method("test_wall_clock#{'_exact' if exact}_counts_sleep_and_work") { wall_clock_counts_sleep_and_work(exact) }
  end

  def wall_clock_counts_sleep_and_work(exact)
    profile = Tracegraph.profile(clock: :wall, exact_clock: exact, raw_times: true) { both }
    sleeper = method_named(profile, "TestTiming#sleeper")
    burner = method_named(profile, "TestTiming#burner")
    assert_in_delta 200 * MS, sleeper.total_time, 60 * MS
    assert_operator burner.total_time, :>=, 190 * MS
    assert_operator burner.total_time, :<, 600 * MS
    assert_in_delta 200 * MS, method_named(profile, "Kernel#sleep").self_time, 60 * MS
    both = method_named(profile, "TestTiming#both")
    assert_equal sleeper.total_time + burner.total_time + both.self_time, both.total_time
    assert_operator both.self_time, :<, 5 * MS
    assert_consistent profile
  end

  # Both with the CPU clock estimated between real readings (the default)
  # and read on every event.
  [[:cpu, false], [:thread_cpu, false], [:cpu, true], [:thread_cpu, true]].each do |clock, exact|
    define_method("test_#{clock}_clock#{'_exact' if exact}_does_not_count_sleep") do
      profile = Tracegraph.profile(clock: clock, exact_clock: exact, raw_times: true) { both }
      assert_equal clock, profile.clock
      assert_operator method_named(profile, "TestTiming#sleeper").total_time, :<, 20 * MS
      assert_in_delta 200 * MS, method_named(profile, "TestTiming#burner").total_time, 60 * MS
      assert_consistent profile
    end
  end

  def process_cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)

  # A profile of the block on a CPU clock, with raw times as the other
  # tests of the clocks here, and the CPU the process used around it (the
  # profile's start and stop included).
  def cpu_profile(clock, exact, raw_times: true, &block)
    # Tracing's cost is calibrated at the first start with these options
    # (Tracegraph::Calibration): before the window, as CPU no profile
    # holds. Through the public API, whose hook costs more, it came to a
    # third of the 300 ms below.
    Tracegraph.event_costs(clock: clock, exact_clock: exact, raw_times: raw_times) unless raw_times
    before = process_cpu
    profile = Tracegraph.profile(clock: clock, exact_clock: exact, raw_times: raw_times, &block)
    [profile, process_cpu - before]
  end

  def thread_named(profile, name)
    profile.threads.find { |t| t.name == name } || flunk("no thread #{name}: #{profile.threads.map(&:name)}")
  end

  def in_thread(name)
    Thread.new do
      Thread.current.name = name
      yield
    end
  end

  # The threads' times are their own CPU, so they add up to no more than
  # the process used (the profile's start and stop are outside them, and
  # 10% is left for the estimate and a noisy machine), and to most of it;
  # with tracing's cost taken out, they and that cost do.
  def assert_adds_up_to_the_process_cpu(profile, process)
    used = profile.total_time + (profile.tracing_cost&.removed || 0)
    assert_operator used, :<=, process * 1.1 + 10 * MS, "summed over threads"
    assert_operator used, :>=, process * 0.7, "summed over threads"
    assert_operator profile.total_time, :<=, used
    assert_equal profile.threads.sum(&:total_time), profile.total_time
  end

  def sleepy = sleep(0.3)
  def busy = burn_cpu(0.3)

  # One thread sleeps 300 ms while another burns 300 ms of CPU: the
  # sleeping thread's Kernel#sleep (and main's Thread#join) used next to
  # no CPU, and are charged next to none, not the busy thread's 300 ms.
  [[:cpu, false], [:thread_cpu, false], [:cpu, true]].each do |clock, exact|
    define_method("test_#{clock}_clock#{'_exact' if exact}_charges_a_waiting_thread_its_own_cpu") do
      profile, process = cpu_profile(clock, exact) do
        [in_thread("sleeper") { sleepy }, in_thread("busy") { busy }].each(&:join)
      end
      busy = method_named(profile, "TestTiming#busy").total_time
      assert_in_delta 300 * MS, busy, 60 * MS
      assert_in_delta busy, thread_named(profile, "busy").total_time, 5 * MS
      assert_operator method_named(profile, "Kernel#sleep").total_time, :<, busy * 0.2
      assert_operator thread_named(profile, "sleeper").total_time, :<, busy * 0.2
      assert_operator method_named(profile, "Thread#join").total_time, :<, busy * 0.2
      assert_adds_up_to_the_process_cpu(profile, process)
      assert_consistent profile
    end

    # Two threads that each burn 150 ms of CPU take turns on the GVL for
    # about 300 ms: each is charged its own 150 ms, not the 300 ms the
    # process used while its frames were open.
    define_method("test_#{clock}_clock#{'_exact' if exact}_threads_taking_turns_each_get_their_own_cpu") do
      profile, process = cpu_profile(clock, exact) do
        2.times.map { |i| in_thread("burner #{i}") { burn_cpu(0.15) } }.each(&:join)
      end
      2.times { |i| assert_in_delta 150 * MS, thread_named(profile, "burner #{i}").total_time, 40 * MS }
      assert_in_delta 300 * MS, method_named(profile, "ProfileAssertions#burn_cpu").total_time, 60 * MS
      assert_adds_up_to_the_process_cpu(profile, process)
      assert_consistent profile
    end
  end

  # By default tracing's cost is taken out of each thread's time line, and
  # the busy loop's time with it (a clock reading per iteration): the
  # waiting thread still gets next to nothing, and nothing is counted
  # twice.
  def test_cpu_clock_with_tracing_cost_taken_out_charges_a_waiting_thread_its_own_cpu
    profile, process = cpu_profile(:cpu, false, raw_times: false) do
      [in_thread("sleeper") { sleepy }, in_thread("busy") { busy }].each(&:join)
    end
    refute_nil profile.tracing_cost
    busy = method_named(profile, "TestTiming#busy").total_time
    assert_operator busy, :>, 100 * MS
    assert_operator method_named(profile, "Kernel#sleep").total_time, :<, busy * 0.2
    assert_operator thread_named(profile, "sleeper").total_time, :<, busy * 0.2
    assert_adds_up_to_the_process_cpu(profile, process)
    assert_consistent profile
  end

  def test_total_time_is_time_inside_methods
    profile = Tracegraph.profile { sleeper }
    main = profile.threads.find { |t| t.name == "main" }
    assert_in_delta 200 * MS, main.total_time, 60 * MS
    # Other threads of the test process may run meanwhile: they add their own time.
    assert_equal profile.threads.sum(&:total_time), profile.total_time
    assert_in_delta 0.2, main.total_time / 1e9, 0.06
  end

  def test_stop_closes_open_frames_at_stop_time
    Tracegraph.start
    profile = stops_inside
    m = method_named(profile, "TestTiming#stops_inside")
    assert_equal 1, m.calls
    assert_in_delta 100 * MS, m.total_time, 50 * MS
    assert_consistent profile
  end

  # Stops the profiler while this method's frame is still open.
  def stops_inside
    sleep 0.1
    Tracegraph.stop
  end
end

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

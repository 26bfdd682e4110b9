require_relative "test_helper"

# Tracegraph.pause / resume: calls made while paused are not recorded, the
# time is in no frame, and the stacks open at the pause stay true.
class TestPause < TracegraphTest
  MS = ProfileAssertions::MS

  def before_pause = nil
  def during_pause = nil
  def after_resume = nil

  def test_calls_while_paused_are_not_recorded
    profile = Tracegraph.profile do
      3.times { before_pause }
      Tracegraph.pause
      5.times { during_pause }
      Integer("5")
      Tracegraph.resume
      2.times { after_resume }
    end
    assert_equal 3, method_named(profile, "TestPause#before_pause").calls
    assert_equal 2, method_named(profile, "TestPause#after_resume").calls
    assert_nil profile["TestPause#during_pause"]
    assert_nil profile["Kernel#Integer"]
    # Integer#times is open across neither; each of its two recorded calls ran outside the pause.
    assert_equal 2, method_named(profile, "Integer#times").calls
    assert_consistent profile
  end

  def busy(seconds)
    finish = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    nil while Process.clock_gettime(Process::CLOCK_MONOTONIC) < finish
  end

  # Open across the pause: 2 x 50 ms of work, 400 ms of sleep while paused.
  def spans_the_pause
    busy(0.05)
    Tracegraph.pause
    sleep 0.4
    Tracegraph.resume
    busy(0.05)
  end

  def test_time_while_paused_is_in_no_frame
    # busy runs for a time, not a number of iterations: raw times.
    profile = Tracegraph.profile(raw_times: true) { spans_the_pause }
    outer = method_named(profile, "TestPause#spans_the_pause")
    assert_equal 1, outer.calls
    assert_equal 2, method_named(profile, "TestPause#busy").calls
    assert_nil profile["Kernel#sleep"]
    # 100 ms of work; with the sleep it would be 500 ms.
    assert_operator outer.total_time, :>=, 90 * MS
    assert_operator outer.total_time, :<, 300 * MS
    assert_operator profile.total_time, :<, 300 * MS
    assert_consistent profile
  end

  def test_cpu_burnt_while_paused_is_in_no_frame_on_cpu_clocks
    %i[cpu thread_cpu].each do |clock|
      profile = Tracegraph.profile(clock: clock) do
        burn_cpu(0.03)
        Tracegraph.pause
        burn_cpu(0.3)
        Tracegraph.resume
        burn_cpu(0.03)
      end
      assert_equal 2, method_named(profile, "ProfileAssertions#burn_cpu").calls, clock
      assert_operator profile.total_time, :<, 200 * MS, clock
      assert_consistent profile
    end
  end

  def pauser = Tracegraph.pause
  def resumer = Tracegraph.resume

  # pauser is open at the pause and returns during it; resumer is called
  # during it. Neither may become the caller of what runs after resume.
  def pause_in_a_callee
    pauser
    sleep 0.2
    resumer
    after_resume
  end

  def test_a_method_open_at_the_pause_that_returns_during_it
    profile = Tracegraph.profile { pause_in_a_callee }
    assert_equal 1, method_named(profile, "TestPause#pauser").calls
    assert_nil profile["TestPause#resumer"]
    assert_equal 1, edge_named(profile, "TestPause#pause_in_a_callee", "TestPause#after_resume").calls
    assert_nil profile.edge("TestPause#pauser", "TestPause#after_resume")
    # pauser ended at the pause, its caller does not count the sleep.
    assert_operator method_named(profile, "TestPause#pauser").total_time, :<, 100 * MS
    assert_operator method_named(profile, "TestPause#pause_in_a_callee").total_time, :<, 100 * MS
    assert_consistent profile
  end

  def level2 = Tracegraph.pause
  def level1 = level2
  def fresh
    Tracegraph.resume
    after_resume
  end

  # level1 and level2 return during the pause; fresh is called during it in
  # their slots. fresh's call was not recorded, so after_resume is charged
  # to the nearest recorded caller that is still running, as calls through
  # unrecorded C frames are with c_calls: false; never to level1 or level2.
  def deeper_pause
    level1
    fresh
  end

  def test_frames_that_ended_during_the_pause_never_become_callers
    profile = Tracegraph.profile(c_calls: false) { deeper_pause }
    assert_equal 1, edge_named(profile, "TestPause#deeper_pause", "TestPause#level1").calls
    assert_equal 1, edge_named(profile, "TestPause#level1", "TestPause#level2").calls
    assert_nil profile["TestPause#fresh"]
    assert_equal 1, method_named(profile, "TestPause#after_resume").calls
    assert_equal 1, edge_named(profile, "TestPause#deeper_pause", "TestPause#after_resume").calls
    assert_equal [1], profile.edges.select { |e| e.callee.name == "TestPause#after_resume" }.map(&:calls)
    assert_consistent profile
  end

  def in_fiber_before = nil
  def in_fiber_after = nil

  # The fiber pauses and yields back during the pause: after resume, the
  # root's calls must land on the root's stack, not the fiber's.
  def test_a_fiber_switch_during_the_pause
    fiber = Fiber.new do
      in_fiber_before
      Tracegraph.pause
      Fiber.yield
      in_fiber_after
    end
    profile = Tracegraph.profile(c_calls: false) do
      fiber.resume
      Tracegraph.resume
      after_resume
      fiber.resume
    end
    assert_equal 1, method_named(profile, "TestPause#in_fiber_before").calls
    assert_equal 1, method_named(profile, "TestPause#in_fiber_after").calls
    assert_equal 1, method_named(profile, "TestPause#after_resume").calls
    assert profile.edges.none? { |e| e.callee.name == "TestPause#after_resume" }
    assert_consistent profile
  end

  def test_pause_with_threads_current_and_gc_compact
    profile = Tracegraph.profile(threads: :current, c_calls: false) do
      before_pause
      Tracegraph.pause
      GC.compact if GC.respond_to?(:compact)
      during_pause
      Tracegraph.resume
      after_resume
    end
    assert_equal 1, method_named(profile, "TestPause#after_resume").calls
    assert_nil profile["TestPause#during_pause"]
  end

  def test_stop_while_paused_closes_the_stacks_at_the_pause
    Tracegraph.start
    spans = lambda do
      before_pause
      Tracegraph.pause
      sleep 0.2
      Tracegraph.stop
    end
    profile = spans.call
    refute Tracegraph.running?
    refute Tracegraph.paused?
    assert_equal 1, method_named(profile, "TestPause#before_pause").calls
    assert_operator profile.total_time, :<, 100 * MS
    assert_consistent profile
  end

  def test_misuse_raises_a_clear_error
    error = assert_raises(Tracegraph::Error) { Tracegraph.pause }
    assert_match(/not started/, error.message)
    error = assert_raises(Tracegraph::Error) { Tracegraph.resume }
    assert_match(/not started/, error.message)
    Tracegraph.start
    refute Tracegraph.paused?
    error = assert_raises(Tracegraph::Error) { Tracegraph.resume }
    assert_equal "not paused: call Tracegraph.pause first", error.message
    Tracegraph.pause
    assert Tracegraph.paused?
    error = assert_raises(Tracegraph::Error) { Tracegraph.pause }
    assert_equal "already paused: call Tracegraph.resume first", error.message
    Tracegraph.resume
    before_pause
    assert_equal 1, method_named(Tracegraph.stop, "TestPause#before_pause").calls
  end

  def test_pause_and_resume_many_times
    profile = Tracegraph.profile(c_calls: false) do
      100.times do
        before_pause
        Tracegraph.pause
        during_pause
        Tracegraph.resume
      end
    end
    assert_equal 100, method_named(profile, "TestPause#before_pause").calls
    assert_nil profile["TestPause#during_pause"]
    assert_consistent profile
  end
end

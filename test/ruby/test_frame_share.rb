require_relative "test_helper"

# Tracegraph._frame_share (binding/frame_share.c): a sampler's view of an
# unprofiled loop's frames, and Calibration.own_frame_share, its reading.
class TestFrameShare < TracegraphTest
  C = Tracegraph::Calibration

  # A loop whose own frame counts to 20,000 each iteration, and whose
  # callee counts to 40,000: a sampler sees the callee on top for the
  # callee's part of the loop's time (about two thirds; timed below, as
  # YJIT may compile one count and not the other). Counting is
  # instructions, no call: no frame but these two.
  class Counts
    def callee
      j = 0
      j += 1 while j < 40_000
    end

    def loop_counts(n)
      i = 0
      while i < n
        j = 0
        j += 1 while j < 20_000
        callee
        i += 1
      end
    end

    def raises(_n) = raise(ArgumentError, "from the loop")
  end

  def setup
    Tracegraph::FrameProbe.verdict!
    skip "the VM reads are not checked here: #{Tracegraph::FrameProbe.verdict}" unless Tracegraph._vm_probe_verdict == :checked
  end

  # The callee's share of the loop's time, timed, in 5 turns (this
  # machine's speed moves by the second), after warming the loop (as
  # compiled under YJIT as it will be). On this thread's CPU clock: the
  # sampler weighs by CPU time too, and on the wall clock another thread
  # holding the lock (one a test before left running) lands in one
  # measurement and not the other (Ruby 3.3 in CI: the callee timed 28%
  # of the loop, sampled 65%).
  def timed_callee_shares(counts)
    40.times { counts.loop_counts(1) }
    now = -> { Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond) }
    Array.new(5) do
      t = now.()
      counts.loop_counts(20)
      whole = now.() - t
      t = now.()
      20.times { counts.callee }
      (now.() - t).fdiv(whole)
    end
  end

  def test_the_callee_is_on_top_for_its_share_of_the_time
    counts = Counts.new
    shares = timed_callee_shares(counts)
    timed = shares.sort[2]
    depths = Tracegraph._frame_share(counts, :loop_counts, 60)
    offsets = depths.map(&:first)
    assert_equal 2, offsets.size, "the loop's frame and its callee's: #{depths.inspect}"
    assert offsets.all? { |offset| offset.positive? && (offset % 8).zero? }, depths.inspect
    assert_equal offsets.min * 2, offsets.max, "the callee a frame below the loop, as the loop is below ours"
    assert_operator depths.sum { |_, samples, _| samples }, :>=, 100, "a sample every 50 µs or so: #{depths.inspect}"
    assert depths.all? { |_, samples, cpu| cpu.positive? && cpu < samples * 10_000_000 }, depths.inspect
    assert_in_delta timed, C.own_frame_share(depths, 1), 0.2, "timed #{shares}: #{depths.inspect}"
  end

  # A server's other threads run while the calibration samples: this one
  # then waits for the lock where it stopped, for 100 ms at a time, and
  # only its CPU time may count. (Sampled by count, the callee read 27%.)
  def test_another_thread_holding_the_lock_does_not_move_the_share
    # Under YJIT (3.4) this thread's CPU clock runs while it waits, and it
    # waits in the loop's frame: 3 runs of 5 read the callee at 11-14%
    # against 68% timed, each sample carrying a full 50 µs of CPU time.
    # There CPU time cannot tell waiting from running; the calibration's
    # share under YJIT and other threads is as unsure as it was.
    skip "YJIT: waiting for the lock takes CPU time in the loop's frame" if defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?
    counts = Counts.new
    busy = Thread.new { loop { x = 0; 100_000.times { x += 1 } } }
    shares = timed_callee_shares(counts)
    depths = Tracegraph._frame_share(counts, :loop_counts, 60)
    assert_in_delta shares.sort[2], C.own_frame_share(depths, 1), 0.2, "timed #{shares}: #{depths.inspect}"
  ensure
    busy&.kill&.join
  end

  def test_an_empty_methods_frame_is_a_small_share_of_its_loop
    subject = C::Subject.new
    depths = Tracegraph._frame_share(subject, :loop_ruby_0, 300_000)
    share = C.own_frame_share(depths, 1)
    assert_operator share, :>, 0.02, "an empty method's frame is sampled: #{depths.inspect}"
    assert_operator share, :<, 0.6, "but the loop's own work and the call are most: #{depths.inspect}"
  end

  # In a child: after a sample run, SIGPROF's default is back, and ends it.
  def test_what_the_loop_raises_is_raised_and_the_default_handler_put_back
    error = assert_raises(ArgumentError) { Tracegraph._frame_share(Counts.new, :raises, 1) }
    assert_equal "from the loop", error.message
    pid = fork do
      Tracegraph._frame_share(Counts.new, :loop_counts, 20)
      Process.kill("PROF", Process.pid)
      sleep 1
      exit!(0)
    end
    Process.wait(pid)
    assert $?.signaled?, "ended by SIGPROF's default, not by its own exit: #{$?.inspect}"
    assert_equal Signal.list.fetch("PROF"), $?.termsig
  end

  # Another profiler's SIGPROF (stackprof samples with it; a trap is one
  # too) stays its own: nothing is sampled, and it sees no signal of ours.
  def test_a_sigprof_handler_of_someone_elses_is_left_alone
    hits = 0
    Signal.trap("PROF") { hits += 1 }
    assert_nil Tracegraph._frame_share(Counts.new, :loop_counts, 20)
    assert_equal 0, hits
    Process.kill("PROF", Process.pid)
    sleep 0.01 while hits.zero?
    assert_equal 1, hits
  ensure
    Signal.trap("PROF", "DEFAULT")
  end

  def test_a_method_name_must_be_a_symbol
    assert_raises(TypeError) { Tracegraph._frame_share(Counts.new, "loop_counts", 1) }
  end
end

# The reading of the samples by depth, without a sampler.
class TestOwnFrameShare < TracegraphTest
  C = Tracegraph::Calibration

  # By CPU time, not by samples: a sample weighs the CPU time since the
  # one before, and one taken while the thread waited weighs nothing.
  def test_the_share_is_of_the_frames_below_the_one_below_the_loop
    depths = [[64, 900, 800_000], [128, 150, 150_000], [192, 50, 50_000]]
    assert_in_delta 0.2, C.own_frame_share(depths, 1), 1e-9   # 150 + 50 of 1,000 µs
    assert_in_delta 0.05, C.own_frame_share(depths, 2), 1e-9  # 50 of 1,000 µs
  end

  def test_no_sample_as_deep_is_no_share
    assert_equal 0.0, C.own_frame_share([], 1)
    assert_equal 0.0, C.own_frame_share([[64, 10, 500_000]], 1)
    assert_equal 0.0, C.own_frame_share([[64, 10, 500_000], [128, 5, 250_000]], 2)
    assert_equal 0.0, C.own_frame_share([[64, 10, 0], [128, 5, 0]], 1), "no CPU time at all"
  end
end

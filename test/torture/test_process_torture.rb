require_relative "torture_helper"

# Process-level events around a running profiler: fork, exit, abort,
# at_exit, a second TracePoint, and thousands of sessions.
class TestProcessTorture < TortureTest
  def leaf = :leaf
  def work(n) = n.times { leaf }

  # The child inherits the hook and the tables; whatever it does must not
  # touch the parent's counts.
  def test_fork_while_profiling
    skip "no fork" unless Process.respond_to?(:fork)
    Tracegraph.start
    work(10)
    child = fork do
      work(1000)
      profile = Tracegraph.stop
      exit!(profile["TestProcessTorture#leaf"].calls == 1010 ? 0 : 1)
    end
    work(5)
    Process.wait(child)
    profile = Tracegraph.stop
    assert_equal 0, $?.exitstatus, "the child's own profile was wrong or it crashed"
    assert_equal 15, method_named(profile, "TestProcessTorture#leaf").calls
    assert_equal 2, method_named(profile, "TestProcessTorture#work").calls
    assert_sane profile
  end

  def test_fork_child_that_never_stops
    skip "no fork" unless Process.respond_to?(:fork)
    profile = Tracegraph.profile do
      pid = fork { work(100); exit!(0) } # exit!: skip minitest's at_exit in the child
      Process.wait(pid)
      work(3)
    end
    assert $?.success?
    assert_equal 3, method_named(profile, "TestProcessTorture#leaf").calls
    assert_sane profile
  end

  # exit and abort unwind through Tracegraph.profile's ensure; at_exit
  # handlers then see the stopped profile.
  AT_EXIT_REPORT = <<~RUBY
    at_exit do
      p = Tracegraph.last_profile
      ok = p && p.methods.sum(&:self_time) == p.total_time && !Tracegraph.running?
      puts "leaf=\#{p && p["Object#leaf"]&.calls} consistent=\#{ok}"
    end
    def leaf = :leaf
  RUBY

  def test_exit_inside_profiled_block
    out, err, status = run_ruby(AT_EXIT_REPORT + "Tracegraph.profile { 3.times { leaf }; exit 7 }")
    assert_no_crash status, err
    assert_equal 7, status.exitstatus
    assert_equal "leaf=3 consistent=true", out.strip
  end

  def test_abort_inside_profiled_block
    out, err, status = run_ruby(AT_EXIT_REPORT + "Tracegraph.profile { 4.times { leaf }; abort 'gave up' }")
    assert_no_crash status, err
    assert_equal 1, status.exitstatus
    assert_equal "gave up", err.strip
    assert_equal "leaf=4 consistent=true", out.strip
  end

  # Still running at exit: at_exit handlers run profiled, one stops it.
  def test_at_exit_handlers_while_running
    out, err, status = run_ruby(<<~RUBY)
      def leaf = :leaf
      at_exit { puts Tracegraph.stop["Object#leaf"].calls }
      at_exit { 2.times { leaf } }
      Tracegraph.start
      leaf
      Thread.new { loop { leaf; Thread.pass } }
      exit 0
    RUBY
    assert_no_crash status, err
    assert status.success?, err
    assert_operator Integer(out.strip), :>=, 3
  end

  def test_another_tracepoint_at_the_same_time
    seen = 0
    other = TracePoint.new(:call, :return, :c_call, :c_return) { seen += 1 }
    profile = other.enable { Tracegraph.profile { work(7) } }
    assert_operator seen, :>, 2 * 9
    assert_equal 7, method_named(profile, "TestProcessTorture#leaf").calls
    profile = Tracegraph.profile { other.enable { work(7) } }
    assert_equal 7, method_named(profile, "TestProcessTorture#leaf").calls
    assert_sane profile
  end

  def rss_kb = File.read("/proc/self/status")[/^VmRSS:\s+(\d+)/, 1].to_i

  # Every session frees its tables: RSS must settle, not grow per session.
  def test_start_stop_ten_thousand_times
    skip "needs /proc" unless File.exist?("/proc/self/status")
    1_000.times { Tracegraph.start; work(2); Tracegraph.stop }
    GC.start
    before = rss_kb
    Torture.scaled(10_000).times { Tracegraph.start; work(2); Tracegraph.stop }
    GC.start
    growth_kb = rss_kb - before
    assert_operator growth_kb, :<, 20 * 1024, "RSS grew by #{growth_kb} kB"
    assert_sane Tracegraph.profile { work(3) }
  end
end

require_relative "../test_helper"
require "stringio"
require "tracegraph/output/background_writer"

# Tracegraph::BackgroundWriter: jobs run in order on one thread of low
# priority; a full queue refuses a job at once; flush and close wait.
class TestBackgroundWriter < TracegraphTest
  def test_jobs_run_in_order_on_one_thread_and_flush_waits_for_them
    writer = Tracegraph::BackgroundWriter.new(capacity: 3)
    ran = Queue.new
    assert_equal 0, writer.pending
    assert writer.flush(0), "nothing queued: flushed at once"
    5.times do |i|
      assert writer.push(-> { sleep 0.01; ran << [i, Thread.current] })
      writer.flush
    end
    done = Array.new(5) { ran.pop }
    assert_equal [0, 1, 2, 3, 4], done.map(&:first)
    threads = done.map(&:last).uniq
    assert_equal 1, threads.size
    refute_equal Thread.current, threads[0]
    assert_equal ["tracegraph writer", -3], [threads[0].name, threads[0].priority]
    assert_equal 0, writer.pending
  ensure
    writer&.close
  end

  def test_a_full_queue_refuses_at_once_and_close_drains_it
    writer = Tracegraph::BackgroundWriter.new(capacity: 2)
    gate = Queue.new
    running = Queue.new
    ran = []
    assert writer.push(-> { running << 1; gate.pop; ran << :first })
    running.pop
    assert writer.push(-> { ran << :second })
    assert writer.push(-> { ran << :third })
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    refute writer.push(-> { ran << :dropped }), "a third job waiting does not fit"
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 0.5
    assert_equal 3, writer.pending
    refute writer.flush(0.05), "the first job is still held"
    gate << 1
    writer.close
    assert_equal %i[first second third], ran
    refute writer.push(-> { ran << :late }), "closed"
  end

  def test_a_failing_job_is_reported_and_the_next_runs
    errors = StringIO.new
    writer = Tracegraph::BackgroundWriter.new(errors: errors)
    ran = []
    writer.push(-> { raise IOError, "disk gone" })
    writer.push(-> { ran << :next })
    writer.close
    assert_equal [:next], ran
    assert_equal "tracegraph: writing a profile failed: IOError: disk gone\n", errors.string
  end

  def test_shared_is_one_writer_per_process_and_a_forked_child_gets_its_own
    skip "no fork here" unless Process.respond_to?(:fork)

    shared = Tracegraph::BackgroundWriter.shared
    assert_same shared, Tracegraph::BackgroundWriter.shared
    reader, writer = IO.pipe
    pid = fork do
      reader.close
      child = Tracegraph::BackgroundWriter.shared
      ran = Queue.new
      child.push(-> { ran << Process.pid })
      writer.puts [child.equal?(shared), child.pid == Process.pid, ran.pop == Process.pid].inspect
      exit!(0)
    end
    writer.close
    assert_equal "[false, true, true]", reader.read.chomp
    Process.wait(pid)
  end

  # A job starts once no request has been in flight for quiet seconds,
  # or after max_wait seconds of traffic.
  def test_a_job_waits_for_the_requests_to_be_over
    clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
    writer = Tracegraph::BackgroundWriter.new(quiet: 0.1, max_wait: 5)
    started = Queue.new
    writer.request_started
    writer.push(-> { started << clock.() })
    sleep 0.3
    assert started.empty?, "a request is in flight"
    finished = clock.()
    writer.request_finished
    assert_in_delta finished + 0.1, started.pop, 0.08
    writer.close

    writer = Tracegraph::BackgroundWriter.new(quiet: 0.1, max_wait: 0.4)
    writer.request_started # and never finished: a busy server
    pushed = clock.()
    writer.push(-> { started << clock.() })
    assert_in_delta pushed + 0.4, started.pop, 0.15
  ensure
    writer&.close
  end

  def test_bad_capacity_is_refused
    error = assert_raises(ArgumentError) { Tracegraph::BackgroundWriter.new(capacity: 0) }
    assert_equal "capacity must be a positive Integer, not 0", error.message
  end
end

# One thread per process that writes web requests' profiles after their
# responses, so that writing them (the JSON, the HTML report and its
# Graphviz layout: a tenth of a second and more) never holds up the
# thread that serves the next request on the same connection.
#
#   writer = Tracegraph::BackgroundWriter.shared
#   writer.push(-> { files.write_reserved(profile, base) }) or log("dropped")
#
# The queue is bounded (CAPACITY jobs): when it is full, push refuses the
# job at once and says so, rather than block the request's thread or hold
# profiles without end. The thread starts with the first job (again in a
# forked child: a thread does not survive fork), runs at a low priority
# (Ruby gives it shorter turns when a request's thread waits to run), and
# is drained at exit, so a clean shutdown loses no profile that was
# queued.
#
# Ruby runs one thread at a time, so a job that runs while a request is
# served still slows that request. The middleware therefore tells the
# writer when requests start and finish (request_started,
# request_finished), and a job starts only once no request has been in
# flight for QUIET seconds (a keep-alive client's next request comes
# within a millisecond or two of the last reply), or after MAX_WAIT
# seconds whatever the traffic, so a busy server still writes.
module Tracegraph
  class BackgroundWriter
    CAPACITY = 4
    # Thread#priority: Ruby's turn for a thread of priority -3 is an
    # eighth of the usual 100 ms.
    PRIORITY = -3
    QUIET = 0.02
    MAX_WAIT = 2.0

    LOCK = Mutex.new
    private_constant :LOCK

    # The process's writer, made at the first call (and anew in a forked
    # child).
    def self.shared
      LOCK.synchronize do
        @shared = nil if @shared && @shared.pid != Process.pid
        @shared ||= new.tap { |writer| at_exit { writer.close } }
      end
    end

    attr_reader :pid, :capacity

    # errors: where a job's uncaught error is reported (an IO); jobs
    # should report their own. quiet:, max_wait: seconds, as QUIET and
    # MAX_WAIT.
    def initialize(capacity: CAPACITY, errors: $stderr, quiet: QUIET, max_wait: MAX_WAIT)
      raise ArgumentError, "capacity must be a positive Integer, not #{capacity.inspect}" unless capacity.is_a?(Integer) && capacity.positive?

      @capacity = capacity
      @errors = errors
      @quiet = quiet
      @max_wait = max_wait
      @pid = Process.pid
      @queue = SizedQueue.new(capacity)
      @lock = Mutex.new
      @finished = ConditionVariable.new
      @pushed = 0
      @done = 0
      @thread = nil
      @traffic = Mutex.new
      @in_flight = 0
      @last_finished = 0.0
    end

    # The middleware's count of requests in flight, which a job waits to
    # be none for QUIET seconds (at most MAX_WAIT).
    def request_started = @traffic.synchronize { @in_flight += 1 }

    def request_finished
      @traffic.synchronize do
        @in_flight -= 1
        @last_finished = now
      end
    end

    # Queues job (a callable) for the writer's thread. Returns true, or
    # false when the queue is full or closed: the job will not run.
    def push(job)
      @lock.synchronize do
        @queue.push(job, true)
        @pushed += 1
        start_thread
      end
      true
    rescue ThreadError, ClosedQueueError # full; closed
      false
    end

    # Jobs queued and not finished.
    def pending = @lock.synchronize { @pushed - @done }

    # Waits until every job queued before the call has finished, or
    # timeout seconds (nil: no limit). Returns whether they all have.
    def flush(timeout = nil)
      deadline = timeout && Process.clock_gettime(Process::CLOCK_MONOTONIC) + timeout
      @lock.synchronize do
        target = @pushed
        until @done >= target
          left = deadline && deadline - Process.clock_gettime(Process::CLOCK_MONOTONIC)
          return false if left && left <= 0

          @finished.wait(@lock, left)
        end
        true
      end
    end

    # Takes no more jobs, runs those queued, and waits for them.
    def close
      @queue.close
      thread = @lock.synchronize { @thread }
      thread&.join
    end

    private

    # (With @lock held.)
    def start_thread
      return if @thread&.alive?

      @thread = Thread.new { run }
      @thread.name = "tracegraph writer"
      @thread.priority = PRIORITY
      @thread.report_on_exception = false
    end

    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

    # Returns once no request has been in flight for quiet seconds, after
    # max_wait seconds, or at once when closing (the process is ending).
    def wait_for_quiet
      deadline = now + @max_wait
      until @queue.closed?
        in_flight, last_finished = @traffic.synchronize { [@in_flight, @last_finished] }
        left = deadline - now
        quiet = in_flight.zero? ? last_finished + @quiet - now : @quiet
        return if quiet <= 0 || left <= 0

        sleep([quiet, left].min)
      end
    end

    def run
      while (job = @queue.pop)
        begin
          wait_for_quiet
          job.call
        rescue StandardError => e
          @errors.puts("tracegraph: writing a profile failed: #{e.class}: #{e.message}")
        ensure
          @lock.synchronize do
            @done += 1
            @finished.broadcast
          end
        end
      end
    end
  end
end

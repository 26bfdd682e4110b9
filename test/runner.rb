# Runs the Ruby test files for `rake test:ruby`, several at once.
#
# Each file runs in a process of its own, `ruby -Ilib -Itest/ruby FILE`,
# as a developer runs one, and `jobs` of them run at a time: the longest
# first, by the seconds each takes alone (test/file_times.txt; `rake
# test:times` measures them again), the next starting as one ends. A
# process per file, not a share of the files per worker: GC.stress makes
# the collector mark every live object at each allocation, so the GC
# tests took 5 times longer in a worker that also held the other files'
# tests, fixtures and memos (test_gc.rb 129 s against 24 s alone); a
# process costs about 0.1 s. The serial files, which time themselves,
# run after the rest, one at a time with nothing beside them. With one
# job, every file runs in one process, as before.
#
# A line per file as it ends, a failed file's whole output (with
# TESTOPTS=-v every file's), then one summary line in minitest's format
# that adds up every file's (the last such line: rakelib/rubies.rake reads
# it). A file that fails, or whose process dies before minitest's summary,
# fails the run.
require "etc"
require "open3"
require "rbconfig"
require "tmpdir"

class TestRunner
  ROOT = File.expand_path("..", __dir__)
  TIMES = File.join(ROOT, "test/file_times.txt")
  # A file the table does not know yet counts as a typical one.
  UNKNOWN_SECONDS = 1.0
  SUMMARY = /^(\d+) runs, (\d+) assertions, (\d+) failures, (\d+) errors, (\d+) skips$/

  # One process: its files and, once it has ended, how it went.
  Job = Struct.new(:files, :pid, :log, :started, :seconds, :status, :output, keyword_init: true) do
    def name = files.size == 1 ? files.first : "all #{files.size} files"
    # Its summary's numbers, or nil if it died before printing one.
    def counts = output.scan(SUMMARY).last&.map(&:to_i)
    def ok? = status.success? && !counts.nil?

    # "12 runs", "12 runs, 2 skips", or why it failed ("FAILED (exit 1)").
    def how
      return "FAILED (#{[status.inspect[/pid \d+ (.*)>/, 1], ('no summary' unless counts)].compact.join(', ')})" unless ok?

      runs, _, _, _, skips = counts
      "#{runs} run#{'s' unless runs == 1}#{", #{skips} skip#{'s' unless skips == 1}" if skips.positive?}"
    end
  end

  # Seconds each file took alone, by path (as the file list spells it).
  def self.times(path = TIMES)
    return {} unless File.exist?(path)

    File.readlines(path, chomp: true).grep_v(/\A\s*(#|\z)/).to_h do |line|
      seconds, file = line.split("\t", 2)
      [file, Float(seconds)]
    end
  end

  # Runs each file alone, one after another, and writes their seconds
  # into TIMES, longest first (with the other files' as they were, for
  # those that still exist).
  def self.measure(files, out = $stdout)
    load_at_start = File.read("/proc/loadavg").split.first(3).join(" ")
    measured = files.map(&:to_s).to_h do |file|
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      _, status = Open3.capture2e(RbConfig.ruby, "-I#{ROOT}/lib", "-I#{ROOT}/test/ruby", file, chdir: ROOT)
      seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      out.puts format("%6.1f  %s%s", seconds, file, status.success? ? "" : "  (FAILED: run it alone to see why)")
      [file, seconds]
    end
    all = times.select { |file, _| File.exist?(File.join(ROOT, file)) }.merge(measured)
    File.write(TIMES, <<~HEAD + all.sort_by { |f, s| [-s, f] }.map { |f, s| format("%.1f\t%s\n", s, f) }.join)
      # Seconds each Ruby test file takes alone (ruby -Ilib -Itest/ruby FILE):
      # rake test:ruby starts the longest first. Last written by `rake
      # test:times` on #{Time.now.strftime('%Y-%m-%d')}, which measured #{measured.size == all.size ? 'all' : measured.size} of them, #{Etc.nprocessors} cores,
      # load average #{load_at_start} at the start, #{File.read('/proc/loadavg').split.first(3).join(' ')} at the end.
    HEAD
  end

  # files: every file to run; serial: those of them to run after the
  # rest, one at a time; test_opts: minitest's options (TESTOPTS);
  # env and load_path: added to each process's environment and put first
  # on its load path (rake test:asan's runtime and its build).
  def initialize(files, serial: [], jobs: 1, test_opts: [], times: self.class.times, env: {}, load_path: [])
    @files = files.map(&:to_s)
    @env = env
    @load_path = load_path
    @serial = @files & serial.map(&:to_s)
    @jobs = [jobs, 1].max
    @times = times
    # Every file's output, not only a failed one's, with minitest's -v.
    @verbose = test_opts.any? { |o| o.match?(/\A(-v|--verbose)\z/) }
    # One seed for every file, so that a failed one can be run again as it ran.
    @test_opts = test_opts.any? { |o| o.match?(/\A(--seed|-s)/) } ? test_opts : test_opts + ["--seed=#{rand(0xFFFF)}"]
  end

  def seconds(file) = @times.fetch(file, UNKNOWN_SECONDS)

  # The processes to run, [at once, then one at a time], longest first.
  def plan
    return [[Job.new(files: @files)], []] if @jobs == 1

    [@files - @serial, @serial].map { |files| files.sort_by { |f| [-seconds(f), f] }.map { |f| Job.new(files: [f]) } }
  end

  # Runs the plan and prints the summary; true if every file passed.
  def run(out = $stdout)
    started = now
    parallel, serial = plan
    if @jobs == 1
      run_streamed(parallel.first, out)
    else
      out.puts "test:ruby: #{@files.size} files, #{@jobs} at a time#{serial.empty? ? '' : ", then #{serial.size} one at a time"}" \
               " (TEST_JOBS=#{@jobs}), #{@test_opts.join(' ')}"
      Dir.mktmpdir("tracegraph-tests") do |dir|
        run_jobs(parallel, @jobs, dir, out)
        run_jobs(serial, 1, dir, out)
      end
    end
    summary(parallel + serial, now - started, out)
  end

  private

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def command(job)
    # rake's loader requires each file named, and leaves the options to minitest.
    loader = $LOAD_PATH.map { |dir| File.join(dir, "rake/rake_test_loader.rb") }.find { |f| File.exist?(f) }
    [@env, RbConfig.ruby, *@load_path.map { |dir| "-I#{dir}" }, "-I#{ROOT}/lib", "-I#{ROOT}/test/ruby", loader, *job.files, *@test_opts]
  end

  # Runs jobs, at most `slots` at a time, in order, each one's output into
  # a file of its own; a line for each as it ends, and a failed one's output.
  def run_jobs(jobs, slots, dir, out)
    waiting = jobs.dup
    running = []
    until waiting.empty? && running.empty?
      while running.size < slots && (job = waiting.shift)
        job.log = File.join(dir, "#{job.name.tr('/', '-')}.log")
        job.started = now
        job.pid = Process.spawn(*command(job), %i[out err] => job.log, chdir: ROOT)
        running << job
      end
      pid, status = Process.wait2(-1)
      job = running.find { |j| j.pid == pid } or next
      running.delete(job)
      ended(job, status, File.binread(job.log))
      out.puts format("%6.1f s  %s  %s", job.seconds, job.name, job.how)
      out.puts job.output if @verbose || !job.ok?
      out.puts "(to run it again as it ran: ruby -Ilib -Itest/ruby #{job.name} #{@test_opts.join(' ')})", "" unless job.ok?
      out.flush
    end
  ensure
    # Interrupted (Ctrl-C reaches the files' processes as well): leave none behind.
    running.each do |j|
      Process.kill(:TERM, j.pid)
      Process.wait(j.pid)
    rescue SystemCallError
      nil
    end
  end

  # Runs one job with its output printed as it comes, as Rake::TestTask did.
  def run_streamed(job, out)
    job.started = now
    output = +""
    IO.popen(command(job), err: %i[child out], chdir: ROOT) do |io|
      loop do
        chunk = io.readpartial(4096)
        out.write(chunk)
        out.flush
        output << chunk
      rescue EOFError
        break
      end
    end
    ended(job, $?, output)
  end

  def ended(job, status, output)
    job.status = status
    job.seconds = now - job.started
    job.output = output
  end

  # Every process's numbers added up, one that died before its summary
  # counted as an error (so the line cannot say that all passed); true if
  # all passed.
  def summary(jobs, seconds, out)
    totals = jobs.map { |j| j.counts || [0, 0, 0, 1, 0] }.transpose.map(&:sum)
    failed = jobs.reject(&:ok?)
    out.puts "", "test:ruby: #{jobs.size} process#{'es' unless jobs.size == 1} in #{format('%.1f', seconds)} s" \
                 "#{failed.empty? ? '' : "; FAILED: #{failed.map(&:name).join(', ')}"}"
    out.puts format("%d runs, %d assertions, %d failures, %d errors, %d skips", *totals)
    out.flush
    failed.empty?
  end
end

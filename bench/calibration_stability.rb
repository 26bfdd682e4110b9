# How alike one profile's correction is to the next (issue #44): the same
# workload profiled once in each of PROCESSES fresh processes, with the
# machine as it is, with a busy loop beside it on the other core (a CI
# runner's neighbour), and with two (more work than this 2-core machine
# has cores, so each process runs in slices and waits between them).
# Per process:
# - the calibrated cost of a Ruby call's event (inside + outside, ns), as
#   measured at the first start (Tracegraph::Calibration);
# - what the recording took out per event in the end (removed / events):
#   the calibrated cost as the hook's own sampled time moved it;
# - tiny's share of the loop that calls it 300,000 times, the number a
#   user reads, and which moves most when the correction does: on the
#   wall clock (the default) and on the CPU clock (--clock cpu);
# - that share without a profiler, on each clock: the loop's time less
#   the same loop's with the call's work written inline, over the loop's
#   (each loop's fastest of 9 runs of a million iterations).
# - each profiled share over its own process's share without a profiler.
# Each column's median and its max ÷ min over the processes. Writes
# bench/CALIBRATION.md; PROCESSES=n (8). Run it with nothing else running.
#
#   ruby -Ilib bench/calibration_stability.rb
require "rbconfig"

PROCESSES = Integer(ENV.fetch("PROCESSES", "8"))
LIB = File.expand_path("../lib", __dir__)

CHILD = <<~'RUBY'
  require "tracegraph"
  def tiny(x) = x + 1

  def many(n)
    i = 0
    s = 0
    while i < n
      s = tiny(s)
      i += 1
    end
    s
  end

  def inline(n)
    i = 0
    s = 0
    while i < n
      s = s + 1
      i += 1
    end
    s
  end

  def true_share(clock)
    timed = ->(m) { t = Process.clock_gettime(clock); send(m, 1_000_000); Process.clock_gettime(clock) - t }
    # Each loop's fastest of 9, taken in turns: this VM's speed moves by a
    # third from one 20 ms run to the next, and only ever down.
    runs = Array.new(9) { [timed.(:many), timed.(:inline)] }.transpose.map(&:min)
    (runs[0] - runs[1]) / runs[0]
  end

  many(10_000)
  inline(10_000)
  share = ->(p) { p["Object#tiny"].total_time.fdiv(p["Object#many"].total_time) }
  profile = Tracegraph.profile(c_calls: false, blocks: false) { many(300_000) }
  cpu = Tracegraph.profile(c_calls: false, blocks: false, clock: :cpu) { many(300_000) }
  cost = profile.tracing_cost
  events = 2 * profile.methods.sum(&:calls)
  ruby = cost.event_costs[:ruby]
  puts [ruby[:inside] + ruby[:outside], cost.removed.fdiv(events), share.(profile), true_share(Process::CLOCK_MONOTONIC),
        share.(cpu), true_share(Process::CLOCK_THREAD_CPUTIME_ID)].join(" ")
RUBY

def one_process
  line = IO.popen([RbConfig.ruby, "-I#{LIB}", "-e", CHILD], &:read)
  raise "a profiling process failed" unless $?.success?

  values = line.split.map(&:to_f)
  # Each profiled share against its own process's truth: the processes
  # differ in speed (memory layout), and the truth with them.
  values + [values[2] / values[3], values[4] / values[5]]
end

# `count` busy loops, as many processes, for as long as the block runs.
def beside_busy_loops(count)
  busy = Array.new(count) { Process.spawn(RbConfig.ruby, "-e", "loop { }") }
  yield
ensure
  busy&.each do |pid|
    Process.kill(:KILL, pid)
    Process.wait(pid)
  end
end

def median(values) = values.sort[values.size / 2]

SHARES = [2, 3, 4, 5].freeze
RATIOS = [6, 7].freeze

def row(label, runs)
  columns = runs.transpose
  cells = columns.each_with_index.map do |values, i|
    shown = lambda do |v|
      if SHARES.include?(i) then format("%.1f%%", 100 * v)
      elsif RATIOS.include?(i) then format("%.2f", v)
      else format("%.1f ns", v)
      end
    end
    "#{shown.(median(values))} (#{shown.(values.min)}-#{shown.(values.max)}, #{format('%.2f', values.max / values.min)}x)"
  end
  "| #{label} | #{cells.join(' | ')} |"
end

commit = `git -C #{File.expand_path('..', __dir__)} rev-parse --short HEAD 2>/dev/null`.strip
load_before = File.read("/proc/loadavg").split.first rescue "?"
quiet = Array.new(PROCESSES) { one_process }
busy = beside_busy_loops(1) { Array.new(PROCESSES) { one_process } }
overloaded = beside_busy_loops(2) { Array.new(PROCESSES) { one_process } }
load_after = File.read("/proc/loadavg").split.first rescue "?"

table = <<~MD
  # Calibration from one process to the next

  `ruby -Ilib bench/calibration_stability.rb` (PROCESSES=#{PROCESSES}), commit `#{commit}`,
  #{Time.now.utc.strftime('%Y-%m-%d %H:%M UTC')}, Ruby #{RUBY_VERSION}, load average #{load_before} at the
  start and #{load_after} at the end. One profile of `many(300_000)` (a loop calling a
  one-line method) per fresh process on each clock; each cell the median of the processes
  (their least-most, and max ÷ min). "Without a profiler" is the loop's time less the same
  loop's with the call's work inline, over the loop's, in the same process; the last
  two columns divide each process's profiled share by its own.

  | machine | a Ruby call's event, calibrated | taken out per event | tiny's share, wall clock | without a profiler, wall | tiny's share, CPU clock | without a profiler, CPU | profiled ÷ without, wall | profiled ÷ without, CPU |
  | --- | --- | --- | --- | --- | --- | --- | --- | --- |
  #{row('as it is', quiet)}
  #{row('a busy loop on the other core', busy)}
  #{row('two busy loops (more work than cores)', overloaded)}
MD
File.write(File.expand_path("CALIBRATION.md", __dir__), table)
puts table

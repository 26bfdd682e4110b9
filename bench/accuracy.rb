# How far tracegraph's times are from the program's own: for each workload
# (bench/accuracy_workloads.rb) and a few chosen methods in it, the
# method's inclusive share of the run measured without any profiler (the
# truth) against its share in a tracegraph profile, under each
# configuration of the profiler. Tracing costs time on every event, and
# that time lands in the methods that make many calls (or many C calls),
# so their shares grow and the others' shrink; this measures by how much.
#
#   ruby -Ilib bench/accuracy.rb          (rake bench:accuracy; 3 to 5 minutes)
#
# Environment:
#   CONFIGS='{}; c_calls: false'   the configurations, one column each (the
#                                  syntax is in bench/accuracy_options.rb);
#                                  default: {}; c_calls: :all; c_calls: false;
#                                  raw_times: true. One the profiler refuses
#                                  (ArgumentError: an option it lacks) is n/a.
#   WORKLOADS=tiny_calls,blocks    which workloads (default: all five)
#   QUICK=1                        a smoke run: a fifth of each workload's
#                                  rounds (rubocop on one file), 3 runs each,
#                                  in under a minute (BENCH_QUICK=1 too)
#   TRUTH_RUNS, PROFILE_RUNS       runs per measurement (7 and 5; QUICK: 3, 3)
#   ACCURACY_OUT=path              where the report goes (bench/ACCURACY.md)
#
# Every measurement is a fresh `ruby` process (bench/accuracy_run.rb, which
# says why): one for the truth of a workload, and one per configuration.
# Nothing is pinned to a CPU: the machine is shared and noisy, so every
# number is a median, and the truth's range over its runs is shown.
#
# Prints the tables and writes them to ACCURACY_OUT.
require "json"
require "open3"
require "rbconfig"
require "etc"
require "time"
require_relative "accuracy_workloads"
require_relative "accuracy_options"

ROOT = File.expand_path("..", __dir__)
RUNNER = File.join(__dir__, "accuracy_run.rb")
QUICK = AccuracyWorkloads.quick?
TRUTH_RUNS = Integer(ENV.fetch("TRUTH_RUNS", QUICK ? "3" : "7"))
PROFILE_RUNS = Integer(ENV.fetch("PROFILE_RUNS", QUICK ? "3" : "5"))
CONFIGS = AccuracyOptions.parse_list(ENV.fetch("CONFIGS", AccuracyOptions::DEFAULT))
WORKLOADS = ENV.fetch("WORKLOADS", AccuracyWorkloads.names.join(",")).split(",").map { |n| AccuracyWorkloads.fetch(n.strip) }
OUT = ENV.fetch("ACCURACY_OUT", File.join(__dir__, "ACCURACY.md"))

def loadavg = File.exist?("/proc/loadavg") ? File.read("/proc/loadavg").split.first(3).join(" ") : "unknown"

def median(values)
  sorted = values.sort
  mid = sorted.size / 2
  sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
end

# Runs bench/accuracy_run.rb in a fresh process; its JSON line.
def child(*args)
  out, err, status = Open3.capture3(RbConfig.ruby, "-I#{File.join(ROOT, 'lib')}", RUNNER, *args.map(&:to_s), chdir: ROOT)
  abort "bench: accuracy_run.rb #{args.join(' ')} failed:\n#{err}#{out}" unless status.success?
  JSON.parse(out.lines.last)
end

def percent(share) = format("%.1f%%", share * 100)

# reported ÷ true, inverted when below 1: how many times too big or too
# small the profile's share is (1.00× is exact). nil when the profile lacks
# the method (an infinite error).
def error_factor(reported, truth)
  return if reported.nil? || reported <= 0

  ratio = reported / truth
  ratio < 1 ? 1 / ratio : ratio
end

def factor(value) = value ? format("%.2f×", value) : "∞ (missing)"

def short(name) = name.delete_prefix("AccuracyWorkloads::")

def table(head, rows)
  lines = [head, head.map { "---" }, *rows].map { |cells| "| #{cells.join(' | ')} |" }
  lines.join("\n") + "\n"
end

# One workload measured: {truth:, configs: {label => result}} or {skipped:}.
def measure(workload)
  warn "bench: accuracy, #{workload.name}: truth (#{TRUTH_RUNS} runs per target)"
  truth = child("truth", workload.name, TRUTH_RUNS)
  return {skipped: truth["skipped"]} if truth["skipped"]

  configs = CONFIGS.to_h do |options|
    label = AccuracyOptions.label(options)
    warn "bench: accuracy, #{workload.name}: #{label} (#{PROFILE_RUNS} runs)"
    [label, child("profile", workload.name, PROFILE_RUNS, label)]
  end
  {truth: truth, configs: configs}
end

LABELS = CONFIGS.map { |options| AccuracyOptions.label(options) }

# The median share a configuration reported for a target, nil when a run's
# profile lacked it.
def reported_share(config, target)
  shares = config["shares"].fetch(target)
  shares.include?(nil) ? nil : median(shares)
end

# A workload's section of the report, and its {label => worst factor (nil:
# a target missing from the profile; :na: options refused)} and {label =>
# slowdown or :na} for the summaries, and its unprofiled seconds.
def workload_report(workload, result)
  truth = result[:truth]
  configs = result[:configs]
  unprofiled = median(truth["whole_ns"]) / 1e9
  worst = LABELS.to_h { |label| [label, configs[label]["unsupported"] ? :na : 0] }
  rows = workload.targets.map do |target|
    t = truth["targets"].fetch(target)
    true_share = median(t["shares"])
    cells = LABELS.map do |label|
      next "n/a" if worst[label] == :na

      reported = reported_share(configs[label], target)
      f = error_factor(reported, true_share)
      worst[label] = f && worst[label] && [worst[label], f].max
      reported ? "#{percent(reported)} (#{factor(f)})" : factor(nil)
    end
    range = "#{percent(t['shares'].min)}–#{percent(t['shares'].max)}"
    same_run = median(t["inclusive_ns"].zip(t["wrapped_run_ns"]).map { |ns, run| ns.fdiv(run) })
    [short(target), median(t["calls"]).round, "**#{percent(true_share)}** (#{range})", percent(same_run), *cells]
  end
  worst_row = ["**worst ratio**", "", "", "", *LABELS.map { |label| "**#{cell(worst[label])}**" }]
  slowdowns = LABELS.to_h do |label|
    [label, worst[label] == :na ? :na : median(configs[label]["seconds"]) / unprofiled]
  end
  correction = workload.targets.map do |target|
    median(truth["targets"][target]["calls"]) * truth["wrapper_ns"] / median(truth["whole_ns"])
  end.max
  text = <<~MD
    ### #{workload.name}

    #{workload.summary}. Unprofiled: #{format('%.0f', unprofiled * 1000)} ms a run (median of #{TRUTH_RUNS}).

    #{table(['method', 'calls a run', 'true share (its range)', 'same run', *LABELS.map { |l| "`#{l}`" }],
            rows + [worst_row])}
    The truth's wrapper costs #{format('%.0f', truth['wrapper_ns'])} ns per outermost call inside its own timing,
    subtracted from each target: at most #{format('%.2f%%', correction * 100)} of the run here.
  MD
  [text, worst, slowdowns, unprofiled]
end

# A summary cell: a factor, ∞ for a method missing, n/a for options refused.
def cell(value) = value == :na ? "n/a" : factor(value)

# As bench/run.rb says it: -dirty when the checkout has changes.
def revision
  IO.popen(["git", "-C", ROOT, "describe", "--always", "--dirty"], err: File::NULL, &:read).strip
rescue Errno::ENOENT
  "unknown (no git)"
end

def command
  env = []
  env << "QUICK=1" if QUICK
  %w[CONFIGS WORKLOADS TRUTH_RUNS PROFILE_RUNS].each { |k| env << "#{k}='#{ENV[k]}'" if ENV[k] }
  [*env, "rake bench:accuracy"].join(" ")
end

def cpu_model = File.exist?("/proc/cpuinfo") && File.read("/proc/cpuinfo")[/^model name\s*:\s*(.+)$/, 1] || "unknown"

started = Time.now
load_before = loadavg
results = WORKLOADS.to_h { |w| [w, measure(w)] }
load_after = loadavg
finished = Time.now

sections = []
worst = {}
slowdowns = {}
unprofiled = {}
refused = {} # label => the ArgumentError's message
notes = [] # skipped workloads, refused options
results.each do |workload, result|
  if result[:skipped]
    warn "bench: accuracy, #{workload.name} skipped: #{result[:skipped]}"
    sections << "### #{workload.name}\n\nSkipped: #{result[:skipped]}.\n"
    notes << "- #{workload.name}: skipped, #{result[:skipped]}\n"
    next
  end
  result[:configs].each { |label, r| refused[label] = r["unsupported"] if r["unsupported"] }
  text, worst[workload.name], slowdowns[workload.name], unprofiled[workload.name] = workload_report(workload, result)
  sections << text
end

summary = table(["workload", *LABELS.map { |l| "`#{l}`" }],
                worst.map { |name, by_label| [name, *LABELS.map { |l| cell(by_label[l]) }] })
slowdown = table(["workload", "unprofiled", *LABELS.map { |l| "`#{l}`" }],
                 slowdowns.map do |name, by_label|
                   [name, format("%.0f ms", unprofiled[name] * 1000),
                    *LABELS.map { |l| by_label[l] == :na ? "n/a" : format("%.2f×", by_label[l]) }]
                 end)
notes += refused.map { |label, message| "- `#{label}`: n/a, Tracegraph.profile refused it: #{message}\n" }
uname = Etc.uname

report = <<~MD
  # tracegraph's timing accuracy#{' (QUICK smoke run: short workloads, few runs, not meaningful numbers)' if QUICK}

  - Date: #{started.utc.strftime('%Y-%m-%d %H:%M %Z')} (took #{(finished - started).round} s)
  - Machine: #{Etc.nprocessors} CPUs (nproc), #{cpu_model}, #{uname[:sysname]} #{uname[:release]} #{uname[:machine]}
  - Load average (1/5/15 min) at start: #{load_before}; at end: #{load_after}
    (other processes compete for the CPUs: compare with the truth's ranges below)
  - Ruby: #{RUBY_DESCRIPTION}
  - tracegraph: git #{revision}
  - Command: `#{command}`

  Each method's **inclusive share of the run**, measured without a profiler
  (the truth) and in tracegraph's profile under each configuration.
  The truth: a wrapper prepended to the method reads
  `CLOCK_MONOTONIC` around its outermost calls (recursive calls are not
  counted again), one method per run, in runs interleaved with runs of the
  whole workload with no wrapper, whose time is the denominator; the
  median of #{TRUTH_RUNS} rounds' shares, with their range. The profile's share:
  `profile[method].total_time / profile.total_time`, the median of #{PROFILE_RUNS}
  profiled runs. Every measurement is a fresh `ruby` process
  (`bench/accuracy_run.rb`) that runs the workload once unprofiled to
  warm up; no CPU is pinned. "Same run" is a cross-check of the truth:
  the method's time over the time of the wrapped run it was measured in,
  which the load cannot move between numerator and denominator but which
  counts the wrapper's own cost; where it is far from the true share, the
  load changed between runs (the truth's range says by how much). The
  ratio is reported ÷ true, inverted when below 1: how many times too
  large or too small the profile's share is (1.00× is exact), and a
  workload's worst ratio is its largest.

  ## Worst ratio (reported ÷ true share, or its inverse)

  #{summary}#{"\n#{notes.join}" unless notes.empty?}
  ## Slowdown (profiled ÷ unprofiled wall time)

  The whole `Tracegraph.profile` call (start, the workload, stop, the
  Profile built), median of #{PROFILE_RUNS}, over the median unprofiled run (the
  truth's runs of the whole workload, in another process).

  #{slowdown}
  ## Workloads

  #{sections.join("\n")}
MD

puts report
File.write(OUT, report)
warn "bench: wrote #{OUT}"

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
#   WORKLOADS=tiny_calls,blocks    which workloads (default: all of them)
#   QUICK=1                        a smoke run: a fifth of each workload's
#                                  rounds (rubocop on one file), 3 runs each,
#                                  in under a minute (BENCH_QUICK=1 too)
#   TRUTH_RUNS, PROFILE_RUNS       runs per measurement (7 and 5; QUICK: 3, 3)
#   SAMPLE_INTERVAL=250            stackprof's interval for the sampled truth, µs
#   SAMPLES=20000                  samples wanted per workload (QUICK: 1000),
#                                  over SAMPLED_RUNS runs (1) in each of at
#                                  least 3 (QUICK: 1), at most 20 processes
#   SPREAD_PROCESSES=5             fresh processes profiled once each with the
#                                  default options, for the spread (QUICK: 3)
#   ACCURACY_OUT=path              where the report goes (bench/ACCURACY.md)
#
# Two truths: a wrapper that times a target method directly (for methods
# called at most TIMED_MAX_CALLS times a run, whose wrapper costs nothing
# that matters), and stackprof's wall-clock samples (bench/accuracy_sampling.rb)
# for every method, which is the truth for those called more often. Every
# method whose true share is 2% or more is compared.
#
# Every measurement is a fresh `ruby` process (bench/accuracy_run.rb, which
# says why): one for the truth of a workload, one per configuration, a few
# for the sampled truth, and one per profile of the spread.
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
require_relative "accuracy_sampling"
require_relative "report_header"

ROOT = File.expand_path("..", __dir__)
RUNNER = File.join(__dir__, "accuracy_run.rb")
QUICK = AccuracyWorkloads.quick?
TRUTH_RUNS = Integer(ENV.fetch("TRUTH_RUNS", QUICK ? "3" : "7"))
PROFILE_RUNS = Integer(ENV.fetch("PROFILE_RUNS", QUICK ? "3" : "5"))
CONFIGS = AccuracyOptions.parse_list(ENV.fetch("CONFIGS", AccuracyOptions::DEFAULT))
WORKLOADS = ENV.fetch("WORKLOADS", AccuracyWorkloads.names.join(",")).split(",").map { |n| AccuracyWorkloads.fetch(n.strip) }
OUT = ENV.fetch("ACCURACY_OUT", File.join(__dir__, "ACCURACY.md"))
# Every 250 µs, not 100: a sample costs about 50 µs of CPU on this
# machine, half the run at 100 µs, where an error of a fifth in that cost
# (the load moves it that much) moved shares by a tenth.
SAMPLE_INTERVAL = Integer(ENV.fetch("SAMPLE_INTERVAL", "250"))
SAMPLES_WANTED = Integer(ENV.fetch("SAMPLES", QUICK ? "1000" : "20000"))
# One sampled run a process (the second run, after a warm-up) by default:
# the run each fresh profile of the spread is. A program's second run in a process can
# differ from its third: jekyll's Site#write took 10 ms in one and 220 ms
# in the next (the files it writes are there by then).
SAMPLED_RUNS = Integer(ENV.fetch("SAMPLED_RUNS", "1"))
SAMPLED_PROCESSES = (QUICK ? 1 : 3)..20
SPREAD_PROCESSES = Integer(ENV.fetch("SPREAD_PROCESSES", QUICK ? "3" : "5"))
# A target called at most this many times a run keeps the wrapper's truth:
# at about 1 µs a call, its wrapper costs at most 0.1 ms of a run of 100 ms
# or more. Above it, the sampled truth.
TIMED_MAX_CALLS = 100
# Methods compared: a true share of at least this (below it, a sampled
# share is a few hundred samples, and a ratio of small numbers).
MIN_SHARE = 0.02
# The issue's done criteria (#44): the median of five fresh profiles within
# this of the truth, and no method's share varying by more than SPREAD_OK.
RATIO_OK = 1.25
SPREAD_OK = 1.5

def loadavg = ReportHeader.load_average

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

  sampled = measure_sampled(workload)
  configs = CONFIGS.to_h do |options|
    label = AccuracyOptions.label(options)
    warn "bench: accuracy, #{workload.name}: #{label} (#{PROFILE_RUNS} runs)"
    [label, child("profile", workload.name, PROFILE_RUNS, label)]
  end
  warn "bench: accuracy, #{workload.name}: {} once in each of #{SPREAD_PROCESSES} processes"
  fresh = Array.new(SPREAD_PROCESSES) { child("profile", workload.name, 1, "{}") }
  spread = fresh.map { |r| r["methods"].first }
  {truth: truth, sampled: sampled, configs: configs, spread: spread, fresh_totals: fresh.map { |r| r["totals_ns"].first },
   fresh_gc: fresh.map { |r| r["gc_ns"]&.first }}
end

# The sampled truth's processes, until they hold SAMPLES_WANTED samples:
# their results, or {"skipped" => why} (stackprof missing).
def measure_sampled(workload)
  results = []
  until results.size >= SAMPLED_PROCESSES.max ||
        (results.size >= SAMPLED_PROCESSES.min && results.sum { |r| r["samples"] } >= SAMPLES_WANTED)
    warn "bench: accuracy, #{workload.name}: stackprof every #{SAMPLE_INTERVAL} µs, process #{results.size + 1} " \
         "(#{results.sum { |r| r['samples'] }} samples so far)"
    r = child("sampled", workload.name, SAMPLED_RUNS, SAMPLE_INTERVAL)
    return r if r["skipped"]

    results << r
  end
  results
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
  slowdowns[:total] = median(result[:fresh_totals]) / 1e9 / unprofiled
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

# Every method compared against the truth that fits it: those with a true
# share of MIN_SHARE or more, by stackprof's samples or (a target called
# at most TIMED_MAX_CALLS times a run) by the wrapper. Each row: name,
# calls a run (exact, the fresh profiles' median), which truth, the true
# share, the sampled and the timed share, the fresh profiles' shares, and
# each configuration's median share.
def fitting_rows(workload, result)
  sampled = AccuracySampling.shares(result[:sampled])["shares"]
  gc_clock = gc_clock_share(result[:truth])
  sampled["(garbage collection)"] = gc_clock if gc_clock
  spread = result[:spread]
  timed = workload.targets.to_h { |t| [t, median(result[:truth]["targets"].fetch(t)["shares"])] }
  names = (sampled.select { |_, share| share >= MIN_SHARE }.keys | workload.targets)
  names.delete("(garbage collection)") if spread.none? { |m| m["(garbage collection)"] } # not recorded
  rows = names.filter_map do |name|
    counted = spread.filter_map { |m| m[name]&.last }
    calls = counted.empty? ? nil : median(counted).round
    kind = timed[name] && calls && calls <= TIMED_MAX_CALLS ? "timed" : "sampled"
    kind = "GC.total_time" if name == "(garbage collection)" && gc_clock
    true_share = kind == "timed" ? timed[name] : sampled.fetch(name, 0.0)
    next if true_share < MIN_SHARE

    fresh = spread.map { |m| m[name]&.first }
    if (fresh.all?(&:nil?) && !workload.targets.include?(name)) || workload.not_compared&.key?(name)
      next {name: name, truth: true_share, unmatched: workload.not_compared&.fetch(name, nil)}
    end

    # the collector's truth is per run (see run_gc_truths); every other
    # method's is one number for all runs
    truths_of = ->(gc_list, runs) { (kind == "GC.total_time" && run_gc_truths(result[:truth], gc_list)) || [true_share] * runs }
    fresh_truths = truths_of.call(result[:fresh_gc], fresh.size)
    true_share = median(fresh_truths)
    configs = LABELS.to_h do |label|
      c = result[:configs][label]
      next [label, :na] if c["unsupported"]

      per_run = c["methods"].map { |m| m[name]&.first }
      next [label, :absent] if per_run.all?(&:nil?) # not recorded with these options (a C method, c_calls: false)
      next [label, nil] if per_run.include?(nil)

      [label, {share: median(per_run), ratio: median(per_run.zip(truths_of.call(c["gc_ns"], per_run.size)).map { |r, t| r / t })}]
    end
    {name: name, calls: calls, kind: kind, truth: true_share, sampled: sampled[name], timed: timed[name],
     fresh: fresh, fresh_truths: fresh_truths, configs: configs}
  end
  rows.sort_by { |r| -r[:truth] }
end

# The collector's share of the truth's unprofiled runs by its own clock:
# GC.total_time over their CPU time (both CPU time, which other processes
# move less than the wall clock), all runs added up. nil before Ruby 3.1.
def gc_clock_share(truth)
  gc = truth["whole_gc_ns"] or return nil
  gc.sum.fdiv(truth["whole_cpu_ns"].sum)
end

# The collector's true share in each of the given profiled runs (nil when
# a run has no GC clock): its own clock over that run, against the run's
# true length, the unprofiled runs' CPU time without their collector
# (median) plus this run's. How much a run collects is decided by the heap
# it starts from: a fresh process's second run has collected from 92 to
# 200 times (1 to 36 of them major) on the same work here, while the
# profile's box matched GC.total_time within 2% in each. Against the
# unprofiled runs' collector, the bench would read the program's heap.
def run_gc_truths(truth, gc_list)
  return nil if gc_list.nil? || gc_list.include?(nil) || !truth["whole_gc_ns"]

  mutator = median(truth["whole_cpu_ns"].zip(truth["whole_gc_ns"]).map { |cpu, gc| cpu - gc })
  gc_list.map { |gc| gc.fdiv(mutator + gc) }
end

# The collector's time a run, unprofiled and in the fresh profiles (whose
# truth is their own), or "" where Ruby has no GC clock.
def gc_runs_note(result)
  unprofiled = result[:truth]["whole_gc_ns"]
  fresh = result[:fresh_gc]
  return "" if unprofiled.nil? || fresh.nil? || fresh.include?(nil)

  ms = ->(list) { format("%.0f ms (%.0f–%.0f)", median(list) / 1e6, list.min / 1e6, list.max / 1e6) }
  ";\nits time a run, unprofiled: #{ms.call(unprofiled)}; in the #{fresh.size} fresh profiles, " \
    "each the truth of its own run: #{ms.call(fresh)}"
end

def fresh_median(row) = row[:fresh].include?(nil) ? nil : median(row[:fresh])

# Each fresh profile's share over its own truth (one number but for the
# collector's): their median is the row's ratio, not inverted.
def fresh_over_truth(row) = row[:fresh].include?(nil) ? nil : row[:fresh].zip(row[:fresh_truths]).map { |r, t| r / t }

def fresh_ratio(row) = (list = fresh_over_truth(row)) && error_factor(median(list), 1.0)

def fresh_spread(row)
  list = fresh_over_truth(row)
  list.nil? || list.min <= 0 ? nil : list.max / list.min
end

# The largest of the rows' values (nil, a method missing, is the largest),
# with the method it is of: [value, name].
def worst_of(rows)
  scored = rows.map { |r| [yield(r), r[:name]] }
  scored.find { |value, _| value.nil? } || scored.max_by(&:first) || [0, "-"]
end

# For a workload of one loop per kind of call (call_kinds): each loop's
# share in the default profiles (the fresh processes' median) over its
# timed true share, not inverted, and the time per call that this leaves
# in (+) or takes out too much (-): (reported - true share) x the
# unprofiled run over the loop's calls. The plain call's row is the loop's
# own residual, the rest are to be read against it.
def residuals_report(workload, result)
  return "" unless workload.residuals

  truth = result[:truth]
  run_ns = median(truth["whole_ns"])
  rows = workload.targets.map do |target|
    true_share = median(truth["targets"].fetch(target)["shares"])
    fresh = result[:spread].map { |m| m[target]&.first }
    next [short(target), "-", percent(true_share), "missing", "-", "-"] if fresh.include?(nil)

    reported = median(fresh)
    calls = median(result[:spread].map { |m| m[target].last }) * workload.residuals
    [short(target), calls.round, percent(true_share), percent(reported), format("%.2f", reported / true_share),
     format("%+.1f ns", (reported - true_share) * run_ns / calls)]
  end
  <<~MD

    Per kind, the residual of the correction: the loop's share in the default profiles
    (median of #{SPREAD_PROCESSES} fresh processes) over its timed true share, not inverted (above 1: the
    kind reads too large), and what that is per call of the kind: its share's excess times the
    unprofiled run (#{format('%.0f', run_ns / 1e6)} ms), over its calls (#{workload.residuals} a loop).

    #{table(['loop', 'calls of its kind a run', 'true share', 'reported', 'reported ÷ true', 'left in per call'], rows)}
  MD
end

# Names stackprof gives that no profile has, left out of the ratios: an
# alias (CodeRay's Tokens#text_token is Array#push), an anonymous class,
# or a C method whose call Ruby makes inline while tracegraph records.
def unmatched_note(unmatched)
  return "" if unmatched.empty?

  named, absent = unmatched.partition { |r| r[:unmatched].is_a?(String) }
  notes = named.map { |r| "\n`#{short(r[:name])}` (#{percent(r[:truth])}) is not compared: #{r[:unmatched]}.\n" }
  unless absent.empty?
    notes << "\nIn no profile by stackprof's name, so not compared: " \
             "#{absent.map { |r| "`#{short(r[:name])}` (#{percent(r[:truth])})" }.join(', ')}.\n"
  end
  notes.join
end

# A workload's section against the truth that fits, and its summary row.
def fitting_report(workload, result)
  if result[:sampled].is_a?(Hash)
    return ["#### #{workload.name}: against the truth that fits\n\nSkipped: #{result[:sampled]['skipped']}.\n",
            [workload.name, "skipped: #{result[:sampled]['skipped']}"]]
  end

  rows, unmatched = fitting_rows(workload, result).partition { |r| !r.key?(:unmatched) }
  sampled = AccuracySampling.shares(result[:sampled])
  cells = rows.map do |r|
    med = fresh_median(r)
    fresh = r[:fresh].include?(nil) ? "missing in #{r[:fresh].count(nil)}" : "#{percent(r[:fresh].min)}–#{percent(r[:fresh].max)}"
    [short(r[:name]), r[:calls] || "-", r[:kind], "**#{percent(r[:truth])}**",
     r[:sampled] ? percent(r[:sampled]) : "-", r[:timed] ? percent(r[:timed]) : "-",
     med ? "#{percent(med)} (#{factor(fresh_ratio(r))})" : factor(nil),
     "#{fresh} (#{factor(fresh_spread(r))})",
     *LABELS.map do |label|
       v = r[:configs][label]
       next "n/a" if v == :na
       next "not recorded" if v == :absent

       v ? "#{percent(v[:share])} (#{factor(error_factor(v[:ratio], 1.0))})" : factor(nil)
     end]
  end
  ratio, ratio_of = worst_of(rows) { |r| fresh_ratio(r) }
  spread, spread_of = worst_of(rows) { |r| fresh_spread(r) }
  configs = LABELS.map do |label|
    next "n/a" if rows.any? { |r| r[:configs][label] == :na }

    recorded = rows.reject { |r| r[:configs][label] == :absent }
    cell(worst_of(recorded) { |r| (v = r[:configs][label]) && error_factor(v[:ratio], 1.0) }.first)
  end
  met = ratio && spread && ratio <= RATIO_OK && spread <= SPREAD_OK
  costs = result[:sampled].map { |r| r["cost_us"] }
  processes = result[:sampled].size
  text = <<~MD
    #### #{workload.name}: against the truth that fits

    #{rows.size} methods with a true share of #{percent(MIN_SHARE)} or more (#{rows.count { |r| r[:kind] == 'timed' }} timed, #{rows.count { |r| r[:kind] == 'sampled' }} sampled#{', the collector by its clock' if rows.any? { |r| r[:kind] == 'GC.total_time' }}).
    The sampled truth: #{sampled['samples']} samples every #{SAMPLE_INTERVAL} µs, #{SAMPLED_RUNS} runs in each of #{processes} processes;
    sampling cost #{format('%.0f', median(costs))} µs a sample (#{format('%.0f', costs.min)}–#{format('%.0f', costs.max)} by process), taken out;
    the collector's share by its own clock (GC.total_time over the unprofiled runs' CPU time): #{(gc = gc_clock_share(result[:truth])) ? percent(gc) : 'none on this Ruby'}; by its samples: #{percent(sampled['gc_share'])}#{gc_runs_note(result)}.

    #{table(['method', 'calls a run', 'truth', 'true share', 'sampled', 'timed',
             "`{}`, median of #{SPREAD_PROCESSES} fresh", "the #{SPREAD_PROCESSES}: range (max ÷ min)",
             *LABELS.map { |l| "`#{l}`, #{PROFILE_RUNS} in one process" }], cells)}#{unmatched_note(unmatched)}
  MD
  summary = [workload.name, "#{rows.size} (#{rows.count { |r| r[:kind] == 'timed' }} timed)",
             "#{sampled['samples']} in #{processes}", "**#{factor(ratio)}** (#{short(ratio_of)})",
             "**#{factor(spread)}** (#{short(spread_of)})", met ? "yes" : "no", *configs]
  [text, summary]
end

# A summary cell: a factor, ∞ for a method missing, n/a for options refused.
def cell(value) = value == :na ? "n/a" : factor(value)

def revision = ReportHeader.revision(ROOT)

def command
  env = []
  env << "QUICK=1" if QUICK
  %w[CONFIGS WORKLOADS TRUTH_RUNS PROFILE_RUNS SAMPLE_INTERVAL SAMPLES SAMPLED_RUNS SPREAD_PROCESSES].each { |k| env << "#{k}='#{ENV[k]}'" if ENV[k] }
  [*env, "rake bench:accuracy"].join(" ")
end

def cpu_model = ReportHeader.cpu_model

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
fitting = {} # workload name => its row of the summary against the truth that fits
results.each do |workload, result|
  if result[:skipped]
    warn "bench: accuracy, #{workload.name} skipped: #{result[:skipped]}"
    sections << "### #{workload.name}\n\nSkipped: #{result[:skipped]}.\n"
    notes << "- #{workload.name}: skipped, #{result[:skipped]}\n"
    next
  end
  result[:configs].each { |label, r| refused[label] = r["unsupported"] if r["unsupported"] }
  text, worst[workload.name], slowdowns[workload.name], unprofiled[workload.name] = workload_report(workload, result)
  fitting_text, fitting[workload.name] = fitting_report(workload, result)
  sections << text + residuals_report(workload, result) + "\n" + fitting_text
end

fitting_summary = table(["workload", "methods compared", "samples (processes)",
                         "`{}`: worst ratio, median of #{SPREAD_PROCESSES} fresh processes",
                         "largest spread, max ÷ min of the #{SPREAD_PROCESSES}",
                         "within #{RATIO_OK}× and #{SPREAD_OK}×", *LABELS.map { |l| "`#{l}`, #{PROFILE_RUNS} in one process" }],
                        fitting.values)
summary = table(["workload", *LABELS.map { |l| "`#{l}`" }],
                worst.map { |name, by_label| [name, *LABELS.map { |l| cell(by_label[l]) }] })
slowdown = table(["workload", "unprofiled", "`{}`: the profile's total ÷ unprofiled", *LABELS.map { |l| "`#{l}`" }],
                 slowdowns.map do |name, by_label|
                   [name, format("%.0f ms", unprofiled[name] * 1000), format("%.2f×", by_label[:total]),
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

  ## Against the truth that fits: every method with a true share of #{percent(MIN_SHARE)} or more

  Two truths. A method called at most #{TIMED_MAX_CALLS} times a run keeps the
  wrapper's timing (below), whose cost is nothing there. For every other
  method, the truth is stackprof's wall-clock samples (every
  #{SAMPLE_INTERVAL} µs, at least #{SAMPLES_WANTED} samples a workload, over
  several fresh processes): the wrapper's cost, about 1 µs a call, would
  land inside a method called thousands of times, exactly where tracing
  errs. Each sample weighs the time to the next (a long C call drops the
  signals that come during it), less what a sample costs the program (its
  sampled runs against plain ones, per process), and the collector's
  samples go to the stack after them (`bench/accuracy_sampling.rb`).
  The collector's own box is timed by its own clock instead: stackprof
  records a collection's samples after it ends, so their time lands on the
  stack before it and the samples read the collector at about half its
  time. Its truth is per profiled run: that run's `GC.total_time` over the
  run's true length (the unprofiled runs' CPU time without their
  collector, plus this run's). How often a run collects depends on the
  heap it starts from, and varies between fresh processes (from 92 to 200
  collections on arith_vs_string's same work), so a truth from other runs
  would measure the heap, not the profile. Each section gives the
  collector's time in the unprofiled runs and in the fresh profiled ones.
  "Calls a run" are the profiles' exact counts.

  The profile's share, with the default options, is the median of
  #{SPREAD_PROCESSES} profiles, each the only one in a fresh process (after one
  unprofiled run); the ratio is their median share over the truth (for
  the collector, the median of each run's share over its own truth); the
  spread is the largest max ÷ min of any compared method's share over
  those #{SPREAD_PROCESSES} (the collector's: of each share over its truth). Issue #44's bar: within
  #{RATIO_OK}× of the truth, and a spread of at most #{SPREAD_OK}×. The other
  columns are each configuration's #{PROFILE_RUNS} profiles in one process (as below).

  #{fitting_summary}
  ## Worst ratio against the wrapper's truth, targets only (reported ÷ true share, or its inverse)

  #{summary}#{"\n#{notes.join}" unless notes.empty?}
  ## Slowdown (profiled ÷ unprofiled wall time)

  The whole `Tracegraph.profile` call (start, the workload, stop, the
  Profile built), median of #{PROFILE_RUNS}, over the median unprofiled run (the
  truth's runs of the whole workload, in another process). Beside it,
  what the profile says the run took (its total time, tracing's cost
  taken out; the median of the #{SPREAD_PROCESSES} fresh processes' profiles) over
  the same unprofiled run: 1.00× when all of tracing's cost is taken
  out, and above it by what is left in every method's time.

  #{slowdown}
  ## Workloads

  #{sections.join("\n")}
MD

puts report
File.write(OUT, report)
warn "bench: wrote #{OUT}"

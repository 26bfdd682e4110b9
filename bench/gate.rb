# The CI gate's false-alarm and detection rates (issue #17), measured on
# this machine: bench/gate_workload.rb (about 250 ms) is profiled
# PAIRS + 1 times unchanged and PAIRS times with one method 20% slower,
# each measurement `tracegraph --runs RUNS --clock CLOCK`, as the CI
# example does. Then, with the gate docs/comparing-and-ci-gate.md recommends:
#   false alarms: unchanged measurement i+1 against unchanged i (PAIRS pairs)
#   detection:    slowed measurement i against unchanged i (PAIRS pairs)
# A pair fails when `tracegraph diff` exits 3. Writes bench/GATE.md, with
# what other statistics would have done with the same measurements.
#   ruby -Ilib bench/gate.rb     (GATE_PAIRS=30 GATE_RUNS=10 GATE_CLOCK=cpu GATE_SLOWDOWN=1.2)
# GATE_DIR=dir keeps the measurements there, and reuses those it finds.
# GATE_WORKLOAD=jekyll measures a real program instead (a jekyll build
# whose plugin calls String#count: bench/gate_jekyll_workload.rb), and
# GATE_GROUP_BY=gem gates by gem (`diff --group-by gem`), where the C
# method's time is its calling group's: issue 36's check, written to
# bench/GATE-jekyll-gem.md by
#   GATE_WORKLOAD=jekyll GATE_GROUP_BY=gem GATE_RUNS=5 GATE_PAIRS=10 ruby -Ilib bench/gate.rb
require "json"
require "open3"
require "rbconfig"
require "tmpdir"
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "tracegraph"

ROOT = File.expand_path("..", __dir__)
EXE = File.join(ROOT, "exe/tracegraph")
LIB = File.join(ROOT, "lib")
WORKLOADS = {"gate" => "gate_workload.rb", "jekyll" => "gate_jekyll_workload.rb"}.freeze
WORKLOAD_NAME = ENV.fetch("GATE_WORKLOAD", "gate")
WORKLOAD = File.join(__dir__, WORKLOADS.fetch(WORKLOAD_NAME) { abort "bench/gate: GATE_WORKLOAD is one of #{WORKLOADS.keys.join(', ')}" })
GROUP_BY = ENV["GATE_GROUP_BY"]
PAIRS = Integer(ENV.fetch("GATE_PAIRS", "30"))
RUNS = Integer(ENV.fetch("GATE_RUNS", "10"))
CLOCK = ENV.fetch("GATE_CLOCK", "cpu")
SLOWDOWN = ENV.fetch("GATE_SLOWDOWN", "1.2")
SLOWED = "String#count"
GATE = (%w[--fail-on-time 10 --fail-on-calls 0] + (GROUP_BY ? ["--group-by", GROUP_BY] : [])).freeze
OUT = ENV.fetch("GATE_OUT", File.join(__dir__, WORKLOAD_NAME == "gate" && !GROUP_BY ? "GATE.md" : "GATE-#{WORKLOAD_NAME}-#{GROUP_BY || 'method'}.md"))

def tracegraph(*args, env: {})
  out, err, status = Open3.capture3(env, RbConfig.ruby, "-I", LIB, EXE, *args, chdir: ROOT)
  [out, err, status]
end

def measure(path, slow)
  return path if File.size?(path)

  env = slow ? {"GATE_SLOWDOWN" => SLOWDOWN} : {}
  _, err, status = tracegraph("--runs", RUNS.to_s, "--clock", CLOCK, "-o", path, WORKLOAD, env: env)
  abort "bench/gate: measuring failed:\n#{err}" unless status.success?
  path
end

# [exit status, the gate's lines, the slowed method's check line]
def compare(base, head)
  _, err, status = tracegraph("diff", "-o", File.join(File.dirname(head), "diff.dot"), *GATE, base, head)
  # 4: no check failed, but one could not tell, the noise between runs
  # being wider than its limit (diff_gate.rb): an outcome the gate gives
  # on a noisy machine, counted apart from a pass and an alarm.
  abort "bench/gate: diff failed:\n#{err}" unless [0, 3, 4].include?(status.exitstatus)
  [status.exitstatus, err.lines.grep(/FAILED/).map(&:strip)]
end

started = Time.now
load_before = File.read("/proc/loadavg").split.first(3).join(" ")
def in_dir(&block)
  return Dir.mktmpdir("tracegraph-gate-bench", &block) unless ENV["GATE_DIR"]

  FileUtils.mkdir_p(ENV["GATE_DIR"])
  yield ENV["GATE_DIR"]
end

# Other statistics on the same measurements: [name, lambda(profile) -> value].
R = Tracegraph::RunStats
ALTERNATIVES = [
  ["median self time (what the profile shows)", ->(p) { R.median(p.runs.self_times(SLOWED)).to_f }],
  ["median share of the run's total", lambda { |p|
    R.median(p.runs.self_times(SLOWED).zip(p.runs.total_times).map { |s, t| s.to_f / t })
  }],
  ["self time over the rest, each of its fastest quarter of the runs (the gate's)", lambda { |p|
    Tracegraph::DiffGate::AGAINST_REST.call(p.runs.self_times(SLOWED).zip(p.runs.total_times))
  }],
  ["best self time over the best rest", lambda { |p|
    s = p.runs.self_times(SLOWED)
    s.min.to_f / s.zip(p.runs.total_times).map { |a, t| t - a }.min
  }],
  ["median of self time over the rest of its run (the gate's until 2026-11-26)", lambda { |p|
    R.median(p.runs.self_times(SLOWED).zip(p.runs.total_times).map { |s, t| s.to_f / (t - s) })
  }],
  ["total time of the fastest quarter of the runs (--fail-above)", ->(p) { Tracegraph::DiffGate::FASTEST_QUARTER.call(p.runs.total_times) }],
  ["median total time", ->(p) { R.median(p.runs.total_times).to_f }]
].freeze

require "fileutils"
results = in_dir do |dir|
  unchanged = []
  slowed = []
  (PAIRS + 1).times do |i|
    unchanged << measure(File.join(dir, "same#{i}.json"), false)
    slowed << measure(File.join(dir, "slow#{i}.json"), true) if i < PAIRS
    warn "bench/gate: measured #{i + 1} of #{PAIRS + 1}"
  end
  same = (0...PAIRS).map { |i| compare(unchanged[i], unchanged[i + 1]) }
  slow = (0...PAIRS).map { |i| compare(unchanged[i], slowed[i]) }
  {
    false_alarms: same.count { |status, _| status == 3 },
    same_undecided: same.count { |status, _| status == 4 },
    slow_undecided: slow.count { |status, _| status == 4 },
    alarm_lines: same.flat_map(&:last),
    caught: slow.count { |status, lines| status == 3 && lines.any? { |l| l.include?(SLOWED) } },
    other_lines: slow.flat_map(&:last).reject { |l| l.include?(SLOWED) },
    alternatives: ALTERNATIVES.map do |name, stat|
      change = ->(a, b) { 100.0 * (stat.(Tracegraph::Profile.load_json(b)) / stat.(Tracegraph::Profile.load_json(a)) - 1) }
      [name, (0...PAIRS).map { |i| change.(unchanged[i], unchanged[i + 1]) }, (0...PAIRS).map { |i| change.(unchanged[i], slowed[i]) }]
    end,
    totals: unchanged.map { |f| Tracegraph::Profile.load_json(f).total_time }
  }
end

def range(list) = format("%+.1f%% to %+.1f%% (median %+.1f%%)", list.min, list.max, Tracegraph::RunStats.median(list))

seconds = (Time.now - started).round
# The line docs tests read (test/ruby/test_docs_measured.rb): the commit
# measured and its date, and "(with uncommitted changes)" where the code
# measured (ext, lib, the bench's scripts; not its reports) had any.
commit, date = IO.popen(["git", "-C", ROOT, "log", "-1", "--format=%h %cs"], &:read).split
changed = IO.popen(["git", "-C", ROOT, "status", "--porcelain", "--", "ext", "lib", "bench/*.rb"], &:read)
dirty = changed.empty? ? "" : " (with uncommitted changes)"
MEASURED_ON = "*Measured on commit `#{commit}` (#{date})#{dirty}.*"
report = <<~MD
  # The CI gate: false alarms and detection (issue #17)

  - Date: #{started.utc.strftime('%Y-%m-%d %H:%M UTC')} (took #{seconds} s)
  - Machine: #{`nproc`.strip} CPUs (nproc), load average (1/5/15 min) at start #{load_before}, at end #{File.read('/proc/loadavg').split.first(3).join(' ')}
    (a 2-core VM whose speed drifts: the same program's unprofiled user time varies by a third between runs)
  - Ruby: #{RUBY_DESCRIPTION}
  - Command: `#{ENV.fetch('GATE_COMMAND', 'rake bench:gate')}` (GATE_WORKLOAD=#{WORKLOAD_NAME} GATE_PAIRS=#{PAIRS} GATE_RUNS=#{RUNS} GATE_CLOCK=#{CLOCK} GATE_SLOWDOWN=#{SLOWDOWN}#{" GATE_GROUP_BY=#{GROUP_BY}" if GROUP_BY})

  Each measurement is `tracegraph --runs #{RUNS} --clock #{CLOCK} -o profile.json bench/#{File.basename(WORKLOAD)}`
  (median total #{Tracegraph.human_time(Tracegraph::RunStats.median(results[:totals]).round)} of #{CLOCK} time per run).
  #{PAIRS + 1} measurements of the unchanged program and #{PAIRS} with #{SLOWED} #{((Float(SLOWDOWN) - 1) * 100).round}% slower
  (same calls, a #{((Float(SLOWDOWN) - 1) * 100).round}% longer text to count) were compared with
  `tracegraph diff #{GATE.join(' ')} base.json head.json`:

  | comparison | pairs | gate failed (exit 3) | could not tell (exit 4) | target |
  | --- | --- | --- | --- | --- |
  | unchanged against unchanged (each measurement against the next) | #{PAIRS} | **#{results[:false_alarms]}** false alarms | #{results[:same_undecided]} | 0 false alarms |
  | #{SLOWED} slowed against unchanged | #{PAIRS} | **#{results[:caught]}** caught, naming #{SLOWED} | #{results[:slow_undecided]} | #{PAIRS} caught |

  #{MEASURED_ON}

  How #{SLOWED} (or the total) moved by each statistic, over the same pairs: a gate can only
  tell the two apart if the ranges do not overlap.

  | statistic | unchanged against unchanged | #{SLOWED} slowed against unchanged |
  | --- | --- | --- |
  #{results[:alternatives].map { |name, same, slow| "| #{name} | #{range(same)} | #{range(slow)} |" }.join("\n")}

  #{results[:alarm_lines].empty? ? 'No check failed on unchanged code.' : "False alarms:\n\n" + results[:alarm_lines].map { |l| "    #{l}" }.join("\n")}
  #{results[:other_lines].empty? ? 'With the slowdown, no other check failed.' : "Other checks that failed with the slowdown:\n\n" + results[:other_lines].map { |l| "    #{l}" }.join("\n")}
MD
File.write(OUT, report)
puts report
exit(results[:false_alarms].zero? && results[:caught] == PAIRS ? 0 : 1)

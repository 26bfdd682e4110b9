# The benchmark driver behind `rake bench` (which builds the extension first).
#
# Snapshots lib/ and builds the floor hook, then for BENCH_RUNS rounds
# (default 5) runs every configuration x workload cell in a fresh process
# (bench/run_one.rb: one warm-up run, the fastest of BENCH_REPEAT timed runs),
# visiting the cells in a new random order each round so that machine noise
# spreads over all of them. Every process is pinned to one CPU (BENCH_CPU,
# default the last; BENCH_CPU=none to let the scheduler move it), which on
# this 2-CPU VM cuts the run-to-run spread several-fold.
# Then measures memory (bench/memory.rb), CPU clock accuracy and the call
# tree at a million paths (bench/call_tree.rb), prints the report and writes it to
# bench/RESULTS.md (tmp/bench/RESULTS.md for BENCH_QUICK=1 smoke runs).
require "etc"
require "fileutils"
require "json"
require "open3"
require "rbconfig"
require_relative "configs"
require_relative "floor/build"
require_relative "workloads"
require_relative "report"
require_relative "report_header"

ROOT = File.expand_path("..", __dir__)
FLOOR_DIR = File.join(ROOT, "tmp/bench/floor")
LIB_SNAPSHOT = File.join(ROOT, "tmp/bench/lib")
QUICK = Workloads.quick?
RUNS = QUICK ? 1 : Integer(ENV.fetch("BENCH_RUNS", "5"))
SEED = Integer(ENV.fetch("BENCH_SEED", Random.new_seed % 100_000))
# Timed runs per process; run_one.rb keeps the fastest.
REPEAT = Integer(ENV.fetch("BENCH_REPEAT", "3"))
# The CPU every measured process runs on, or nil (taskset missing, or
# BENCH_CPU=none). The 4-thread workload loses nothing: under the GVL only
# one of its threads runs at a time anyway.
PIN_CPU = begin
  cpu = ENV.fetch("BENCH_CPU", (Etc.nprocessors - 1).to_s)
  cpu != "none" && system("taskset", "-c", cpu, "true", out: File::NULL, err: File::NULL) ? cpu : nil
rescue SystemCallError
  nil
end
# [calls, distinct methods] for the memory measurement.
MEMORY_SIZES = QUICK ? [[10_000, 1_000], [100_000, 1_000]] : [[1_000_000, 10_000], [10_000_000, 10_000]]

# Every run measures the build that existed when the benchmark started: a
# rebuild of lib/ during the run (cp overwrites the .so in place) would crash
# the processes that have it mapped, or mix two builds in one table.
def snapshot_lib
  FileUtils.rm_rf(LIB_SNAPSHOT)
  FileUtils.mkdir_p(File.dirname(LIB_SNAPSHOT))
  FileUtils.cp_r(File.join(ROOT, "lib"), LIB_SNAPSHOT)
end

def load_average = ReportHeader.load_average
def revision = ReportHeader.revision(ROOT)

def build_floor = FloorBuild.into(FLOOR_DIR)

# Runs a Ruby script in a fresh process and parses the JSON on its last line.
def ruby_json(script, *args)
  cmd = [RbConfig.ruby, "-I", LIB_SNAPSHOT, "-I", FLOOR_DIR, script, *args.map(&:to_s)]
  cmd = ["taskset", "-c", PIN_CPU, *cmd] if PIN_CPU
  out, err, status = Open3.capture3(*cmd)
  abort "bench: #{cmd.join(' ')} failed:\n#{err}#{out}" unless status.success?
  JSON.parse(out.lines.last)
end

# A fresh process per cell, not one process per configuration: in Ruby 3.1
# a C_CALL hook, once enabled, leaves code slower after it is removed (fib
# about 2x), so nothing measured after any profiler ran is a clean baseline.
def measure_overhead
  cells = Configs.selected.product(Workloads.names)
  samples = Hash.new { |h, k| h[k] = [] }
  rng = Random.new(SEED)
  RUNS.times do |round|
    warn "bench: round #{round + 1}/#{RUNS} (#{cells.size} cells)"
    cells.shuffle(random: rng).each do |config, workload|
      result = ruby_json(File.join(__dir__, "run_one.rb"), config.name, workload, REPEAT)
      samples[[config.name, workload]] << (result["missing"] ? :missing : result.fetch("seconds"))
    end
  end
  samples
end

def measure_memory
  MEMORY_SIZES.map do |calls, methods|
    warn "bench: memory, #{calls} calls over #{methods} methods"
    ruby_json(File.join(__dir__, "memory.rb"), calls, methods)
  end
end

# The call tree at a million paths (bench/call_tree.rb); BENCH_QUICK=1
# sweeps once instead of 25 times.
def measure_call_tree
  warn "bench: call tree at a million paths"
  [ruby_json(File.join(__dir__, "call_tree.rb"), QUICK ? 1 : 25)]
end

# Estimated against exact CPU clock, on a workload of sparse events (scale
# 1) and one of dense events (scale 0.02), for both CPU clocks.
def measure_cpu_accuracy
  %w[cpu thread_cpu].product(QUICK ? [1] : [1, 0.02]).map do |clock, scale|
    warn "bench: CPU clock accuracy, #{clock}, scale #{scale}"
    ruby_json(File.join(__dir__, "cpu_accuracy.rb"), clock, QUICK ? 1 : 5, scale)
  end
end

# BENCH_OVERHEAD_ONLY=1 (used by bench/rubies.rb) measures the slowdowns
# alone, and prints them as one JSON line instead of writing RESULTS.md.
OVERHEAD_ONLY = ENV["BENCH_OVERHEAD_ONLY"] == "1"

started = Time.now
load_before = load_average
snapshot_lib
build_floor
samples = measure_overhead
memory = OVERHEAD_ONLY ? [] : measure_memory
accuracy = OVERHEAD_ONLY ? [] : measure_cpu_accuracy
call_tree = OVERHEAD_ONLY ? [] : measure_call_tree
report = Report.new(samples: samples, memory: memory, accuracy: accuracy, call_tree: call_tree, runs: RUNS, seed: SEED, quick: QUICK, revision: revision,
                    load: [load_before, load_average], started: started, finished: Time.now, pin_cpu: PIN_CPU,
                    repeat: REPEAT)
if OVERHEAD_ONLY
  puts JSON.generate("ruby" => RUBY_DESCRIPTION, "slowdowns" => report.slowdowns)
else
  out = File.join(ROOT, QUICK ? "tmp/bench/RESULTS.md" : "bench/RESULTS.md")
  File.write(out, report.markdown)
  puts report.markdown
  warn "bench: wrote #{out}"
end

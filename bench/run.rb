# The benchmark driver behind `rake bench` (which builds the extension first).
#
# Builds the floor hook, then for BENCH_RUNS rounds (default 5) runs every
# configuration x workload cell in a fresh process (bench/run_one.rb: one
# warm-up run, one timed run), visiting the cells in a new random order each
# round so that machine noise spreads over all of them. Then measures memory
# (bench/memory.rb), prints the report and writes it to bench/RESULTS.md
# (tmp/bench/RESULTS.md for BENCH_QUICK=1 smoke runs).
require "fileutils"
require "json"
require "open3"
require "rbconfig"
require_relative "configs"
require_relative "workloads"
require_relative "report"

ROOT = File.expand_path("..", __dir__)
FLOOR_DIR = File.join(ROOT, "tmp/bench/floor")
QUICK = Workloads.quick?
RUNS = QUICK ? 1 : Integer(ENV.fetch("BENCH_RUNS", "5"))
SEED = Integer(ENV.fetch("BENCH_SEED", Random.new_seed % 100_000))
# [calls, distinct methods] for the memory measurement.
MEMORY_SIZES = QUICK ? [[10_000, 1_000], [100_000, 1_000]] : [[1_000_000, 10_000], [10_000_000, 10_000]]

def build_floor
  FileUtils.mkdir_p(FLOOR_DIR)
  Dir.chdir(FLOOR_DIR) do
    system(RbConfig.ruby, File.join(__dir__, "floor/extconf.rb"), out: File::NULL, exception: true)
    system("make", "V=0", out: File::NULL, exception: true)
  end
end

# Runs a Ruby script in a fresh process and parses the JSON on its last line.
def ruby_json(script, *args)
  cmd = [RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-I", FLOOR_DIR, script, *args.map(&:to_s)]
  out, err, status = Open3.capture3(*cmd)
  abort "bench: #{cmd.join(' ')} failed:\n#{err}#{out}" unless status.success?
  JSON.parse(out.lines.last)
end

def measure_overhead
  cells = Configs::ALL.product(Workloads.names)
  samples = Hash.new { |h, k| h[k] = [] }
  rng = Random.new(SEED)
  RUNS.times do |round|
    warn "bench: round #{round + 1}/#{RUNS} (#{cells.size} cells)"
    cells.shuffle(random: rng).each do |config, workload|
      result = ruby_json(File.join(__dir__, "run_one.rb"), config.name, workload)
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

started = Time.now
build_floor
report = Report.new(samples: measure_overhead, memory: measure_memory, runs: RUNS, seed: SEED, quick: QUICK,
                    started: started, finished: Time.now)
out = File.join(ROOT, QUICK ? "tmp/bench/RESULTS.md" : "bench/RESULTS.md")
File.write(out, report.markdown)
puts report.markdown
warn "bench: wrote #{out}"

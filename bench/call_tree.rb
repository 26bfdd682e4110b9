# The call tree at scale (issue #15): bench/million_paths.rb (6,853 methods,
# 999,751 distinct paths, 25 million calls) run by the tracegraph command
# with each stack output, in a fresh process per row, against the program
# run bare. Reports wall time, peak RSS (VmHWM) and the output's size, and,
# from an in-process run, the call tree's bytes per node while recording
# and after stop. Prints one JSON line.
#   ruby -Ilib bench/call_tree.rb [SWEEPS]
require "json"
require "open3"
require "rbconfig"
require "tmpdir"

ROOT = File.expand_path("..", __dir__)
PROGRAM = File.join(__dir__, "million_paths.rb")
sweeps = (ARGV[0] || "25").to_s

# Runs ruby with args in a fresh directory; ok: the exit statuses that are
# fine (rubocop exits 1 when it finds offenses).
def run(*args, env: {}, ok: [0])
  Dir.mktmpdir("tracegraph-bench") do |dir|
    peak = File.join(dir, "peak")
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    _, err, status = Open3.capture3(env.merge("BENCH_PEAK_FILE" => peak), RbConfig.ruby,
                                    "-r#{File.join(__dir__, 'peak_rss.rb')}", *args, chdir: dir)
    seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    abort "bench: #{args.join(' ')} failed:\n#{err}" unless ok.include?(status.exitstatus)
    outputs = Dir[File.join(dir, "out.*")].sum { |f| File.size(f) }
    {"seconds" => seconds.round(2), "peak_mb" => (File.read(peak).to_i / 1024.0).round(1), "output_mb" => (outputs / 1e6).round(1),
     "note" => err[/reached its cap \(\d+ paths kept\): \d+ calls/]}
  end
end

# The tree's own memory: RSS growth while recording one sweep and after
# stop, in a process with the call tree and one without, both from the
# same point; the difference divided by the nodes.
GROWTH = <<~'RUBY'
  require "tracegraph"
  require "json"
  def rss_kb = File.read("/proc/self/status")[/^VmRSS:\s+(\d+)/, 1].to_i
  eval(File.read(ARGV[0]).sub(/^SWEEPS\.times.*$/, ""), TOPLEVEL_BINDING, ARGV[0])
  MillionPaths.sweep # warm-up: method caches, iseqs
  GC.start
  before = rss_kb
  # The cap goes only with a tree: without one it is refused as an option that does nothing.
  tree = ARGV[1] == "tree"
  Tracegraph.start(call_tree: tree, **(tree ? { max_call_tree_nodes: 2_000_000 } : {}))
  MillionPaths.sweep
  recording = rss_kb - before
  profile = Tracegraph.stop
  GC.start
  puts JSON.generate("recording_kb" => recording, "after_stop_kb" => rss_kb - before,
                     "nodes" => profile.call_tree&.size, "edges" => profile.edges.size)
RUBY

def growth(mode)
  out, err, status = Open3.capture3(RbConfig.ruby, "-I#{File.join(ROOT, 'lib')}", "-e", GROWTH, PROGRAM, mode)
  abort "bench: memory growth failed:\n#{err}" unless status.success?
  JSON.parse(out.lines.last)
end

env = {"SWEEPS" => sweeps}
lib = "-I#{File.join(ROOT, 'lib')}"
exe = File.join(ROOT, "exe/tracegraph")
result = {"sweeps" => Integer(sweeps), "bare" => run(PROGRAM, env: env)}
%w[out.folded out.pb.gz out.speedscope.json].each do |output|
  warn "bench: call tree, -o #{output}"
  result[output] = run(lib, exe, "-o", output, PROGRAM, env: env)
end
warn "bench: call tree, -o out.folded --max-call-tree-nodes 100000"
result["out.folded capped at 100,000"] = run(lib, exe, "--max-call-tree-nodes", "100000", "-o", "out.folded", PROGRAM,
                                             env: env)
# rubocop checking its own style cops, where it is installed: the run
# issue #15 reported (1 min 47 s and 3.9 GB for -o x.folded before the
# call tree was streamed from C). RUBOCOP_FILES of them (40: about as many
# calls as that run).
def rubocop_rows(lib, exe)
  spec = Gem::Specification.find_by_name("rubocop")
  files = Dir[File.join(spec.gem_dir, "lib/rubocop/cop/style/*.rb")].sort.first(Integer(ENV.fetch("RUBOCOP_FILES", "40")))
  # (Options after the script are the script's own, as under ruby: no "--".)
  args = [spec.bin_file("rubocop"), "--cache", "false", "--format", "quiet", *files]
  rows = {"rubocop #{spec.version}, #{files.size} files, alone" => run(*args, ok: [0, 1])}
  %w[out.folded out.pb.gz out.speedscope.json].each do |output|
    warn "bench: call tree, rubocop, -o #{output}"
    rows["rubocop: #{output}"] = run(lib, exe, "-o", output, *args, ok: [0, 1])
  end
  rows
rescue Gem::MissingSpecError
  warn "bench: rubocop is not installed (apt-get install rubocop); the synthetic program stands in for it"
  {}
end

result.merge!(rubocop_rows(lib, exe))
warn "bench: call tree, bytes per node"
plain = growth("plain")
tree = growth("tree")
nodes = tree["nodes"]
result["memory"] = {
  "nodes" => nodes, "edges" => tree["edges"],
  "recording_bytes_per_node" => ((tree["recording_kb"] - plain["recording_kb"]) * 1024.0 / nodes).round(1),
  "after_stop_bytes_per_node" => ((tree["after_stop_kb"] - plain["after_stop_kb"]) * 1024.0 / nodes).round(1)
}
puts JSON.generate(result)

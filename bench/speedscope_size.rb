# speedscope files in proportion (issue #30): rubocop (Debian's package)
# on RUBOCOP_FILES (default 10) of its own style cops, profiled once by
# the tracegraph command writing out.speedscope.json, out.folded and
# out.pb.gz. Reports each file's size, the folded file gzipped (the
# yardstick: the same paths, compressed) and speedscope's size as a
# multiple of it; then speedscope's own importer (test/consumers, the
# npm package under Node) opens the file: its wall time, its peak RSS,
# and whether its total is ours (the folded weights' sum). Prints one JSON
# line and writes bench/SPEEDSCOPE.md (tmp/bench/SPEEDSCOPE.md for
# BENCH_QUICK=1, which takes 2 files).
#   ruby -Ilib bench/speedscope_size.rb
require "fileutils"
require "json"
require "open3"
require "rbconfig"
require "tmpdir"
require "zlib"

ROOT = File.expand_path("..", __dir__)
EXE = File.join(ROOT, "exe/tracegraph")
IMPORTER = File.join(ROOT, "test/consumers/speedscope_import.js")
QUICK = ENV["BENCH_QUICK"] == "1"
FILES = Integer(ENV.fetch("RUBOCOP_FILES", QUICK ? "2" : "10"))
REPORT = File.join(ROOT, QUICK ? "tmp/bench/SPEEDSCOPE.md" : "bench/SPEEDSCOPE.md")

# Counts what is written to it: the gzipped size without keeping it.
class ByteCounter
  attr_reader :bytes

  def initialize = @bytes = 0

  def write(data)
    @bytes += data.bytesize
    data.bytesize
  end
end

# The folded file gzipped (zlib's default level, as gzip's) and its
# weights' sum, read a line at a time: rubocop's is near a gigabyte.
def folded_gzip(path)
  counter = ByteCounter.new
  gz = Zlib::GzipWriter.new(counter)
  sum = 0
  File.foreach(path) do |line|
    gz.write(line)
    sum += Integer(line.rpartition(" ").last)
  end
  gz.finish
  [counter.bytes, sum]
end

# speedscope's importer on the file: [seconds, peak MB, its total], or nil
# where Node or the npm package is missing.
def import(path)
  return nil unless system("command -v node > /dev/null 2>&1")
  return nil unless File.directory?(File.join(ROOT, "test/consumers/node_modules/speedscope"))

  timed = File.executable?("/usr/bin/time") ? ["/usr/bin/time", "-f", "%e %M"] : []
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  out, err, status = Open3.capture3(*timed, "node", IMPORTER, path)
  seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  abort "bench: speedscope's importer failed:\n#{err}" unless status.success?
  peak_mb = timed.empty? ? nil : (err.lines.last.split.last.to_i / 1024.0).round
  [seconds.round(1), peak_mb, JSON.parse(out)["profiles"].sum { |p| p["total"] }]
end

def mb(bytes) = (bytes / 1e6).round(1)

spec = begin
  Gem::Specification.find_by_name("rubocop")
rescue Gem::MissingSpecError
  warn "bench: rubocop is not installed (apt-get install rubocop); no speedscope size to measure"
  exit 0
end
cops = Dir[File.join(spec.gem_dir, "lib/rubocop/cop/style/*.rb")].sort.first(FILES)
result = Dir.mktmpdir("tracegraph-speedscope-size") do |dir|
  warn "bench: speedscope size, rubocop on #{cops.size} files"
  _, err, status = Open3.capture3(RbConfig.ruby, "-I#{File.join(ROOT, 'lib')}", EXE,
                                  "-o", "out.speedscope.json", "-o", "out.folded", "-o", "out.pb.gz",
                                  spec.bin_file("rubocop"), "--cache", "false", "--format", "quiet", *cops, chdir: dir)
  abort "bench: tracegraph rubocop failed:\n#{err}" unless [0, 1].include?(status.exitstatus) # 1: offenses found
  sizes = %w[out.speedscope.json out.folded out.pb.gz].to_h { |f| [f, File.size(File.join(dir, f))] }
  gzipped, folded_total = folded_gzip(File.join(dir, "out.folded"))
  warn "bench: speedscope's importer"
  seconds, peak_mb, speedscope_total = import(File.join(dir, "out.speedscope.json"))
  {"program" => "rubocop #{spec.version}, #{cops.size} files", "speedscope_mb" => mb(sizes["out.speedscope.json"]),
   "folded_mb" => mb(sizes["out.folded"]), "folded_gz_mb" => mb(gzipped), "pprof_mb" => mb(sizes["out.pb.gz"]),
   "ratio_to_folded_gz" => (sizes["out.speedscope.json"].to_f / gzipped).round(2),
   "import_seconds" => seconds, "import_peak_mb" => peak_mb,
   "import_total_is_ours" => speedscope_total && speedscope_total == folded_total}
end
puts JSON.generate(result)

import = if result["import_seconds"]
           "#{result['import_seconds']} s, #{result['import_peak_mb'] || '?'} MB peak; its total is " \
             "#{result['import_total_is_ours'] ? 'ours, to the nanosecond' : 'NOT ours'}"
         else
           "not measured (no Node or no test/consumers/node_modules: bin/setup)"
         end
FileUtils.mkdir_p(File.dirname(REPORT))
File.write(REPORT, <<~MD)
  # speedscope files in proportion

  Written by `ruby -Ilib bench/speedscope_size.rb` (part of `rake bench`)
  on #{Time.now.utc.strftime('%Y-%m-%d %H:%M UTC')}, load average #{File.read('/proc/loadavg').split.first(3).join(' ')}: #{result['program']}, profiled once by the
  tracegraph command writing all three files.

  | file | size |
  |---|---:|
  | `out.speedscope.json` | #{result['speedscope_mb']} MB |
  | `out.folded` | #{result['folded_mb']} MB |
  | `out.folded`, gzipped | #{result['folded_gz_mb']} MB |
  | `out.pb.gz` | #{result['pprof_mb']} MB |

  speedscope's file is **#{result['ratio_to_folded_gz']} times** the folded file gzipped.
  speedscope's own importer (the npm package under Node, test/consumers/speedscope_import.js): #{import}.

  The file is speedscope's evented form: two events per call-tree node, however deep the node.
  Before (the sampled form, each path's whole stack in its sample; measured at cc0ba80 on this machine,
  the same 10 files): 127.9 MB, 11.6 times the folded file gzipped (11.0 MB), and the importer took
  25.0 s and 631 MB (6.8 s and 630 MB on the machine of issue #30).
MD
warn "bench: wrote #{REPORT.delete_prefix("#{ROOT}/")}"

# The HTML diff report at scale (issue #28): each real program's recorded
# profile (test/fixtures/real) against a copy of it with every third
# method's self and total time doubled, so about a third of the rows
# change. For each: the diff's rows, the time to write the report
# (Graphviz's layout of the diff graph included; a layout stopped by
# TRACEGRAPH_DOT_TIMEOUT leaves the graph out and is reported), the
# file's size, and in headless Chromium from file://
# (test/consumers/diff_report_check.js) the page's performance.now()
# when its first view is drawn and the time from asking for the table
# of changes by self time to its being drawn; the medians of 3 loads,
# each in a fresh browser. Prints one JSON line a profile.
# MAX_NODES=40 draws the diff graph with at most that many methods
# (tracegraph diff --max-nodes; the default is 80).
#   ruby -Ilib bench/html_diff_report.rb [NAME...]     (default: all of them)
require "json"
require "open3"
require "tmpdir"
require "zlib"
require "tracegraph"

REAL = File.expand_path("../test/fixtures/real", __dir__)
CHECKER = File.expand_path("../test/consumers/diff_report_check.js", __dir__)
names = ARGV.empty? ? Dir[File.join(REAL, "*.json.gz")].map { |f| File.basename(f, ".json.gz") }.sort : ARGV

def median(values) = values.sort[values.size / 2]

Dir.mktmpdir("tracegraph-diff-html-bench") do |dir|
  names.each do |name|
    real = File.join(REAL, "#{name}.json.gz")
    data = JSON.parse(Zlib::GzipReader.open(real, &:read))
    data["methods"].each_with_index { |m, i| %w[self_time total_time].each { |k| m[k] *= 2 } if (i % 3).zero? }
    File.write(File.join(dir, "slower.json"), JSON.generate(data))
    diff = Tracegraph::Profile.load_json(real).diff(Tracegraph::Profile.load_json(File.join(dir, "slower.json")))
    path = File.join(dir, "#{name}.html")
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    diff.write_html(path, **(ENV["MAX_NODES"] ? {max_nodes: Integer(ENV["MAX_NODES"])} : {}))
    write_seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    html = File.read(path)
    loads = Array.new(3) do
      out, err, status = Open3.capture3("node", CHECKER, path, "--sorts", "self")
      abort "bench: #{name}: #{err}" unless status.success?
      JSON.parse(out)
    end
    puts JSON.generate("profile" => name, "max_nodes" => Integer(ENV.fetch("MAX_NODES", 80)),
                       "rows" => diff.rows.size, "write_seconds" => write_seconds.round(2),
                       "graph" => !html.include?('"svg":null'), "file_mb" => (File.size(path) / 1e6).round(2),
                       "page_ready_ms" => median(loads.map { |l| l["pageReadyMs"] }),
                       "changes_ms" => median(loads.map { |l| l["changes"]["self"]["ms"] }),
                       "errors" => loads.flat_map { |l| l["errors"] + l["requests"] })
  end
end

# The HTML report at scale (issue #28), on the real programs' recorded
# profiles (test/fixtures/real): for each, the time to write the report
# (Graphviz's layout included), the file's size, and the time until its
# first view is drawn in headless Chromium, from file:// (the page's own
# performance.now() when its first view is ready, and the whole wait
# from navigation to that point, the medians of 3 loads, each in a fresh
# browser; test/consumers/html_report_check.js), and the time to focus
# on a method the first graph left out (the one with the most callers):
# from the fragment's change to Graphviz's drawing in the page, at the
# default 40 boxes and at 80, the most it offers (the page's own
# performance.now(), and the whole wait seen from node). Prints one JSON
# line a profile.
#   ruby -Ilib bench/html_report.rb [NAME...]     (default: all of them)
require "json"
require "open3"
require "tmpdir"
require "tracegraph"

REAL = File.expand_path("../test/fixtures/real", __dir__)
CHECKER = File.expand_path("../test/consumers/html_report_check.js", __dir__)
names = ARGV.empty? ? Dir[File.join(REAL, "*.json.gz")].map { |f| File.basename(f, ".json.gz") }.sort : ARGV

def median(values) = values.sort[values.size / 2]

Dir.mktmpdir("tracegraph-html-bench") do |dir|
  names.each do |name|
    profile = Tracegraph::Profile.load_json(File.join(REAL, "#{name}.json.gz"))
    path = File.join(dir, "#{name}.html")
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    profile.write_html(path)
    write_seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
    drawn = profile.to_dot.scan(/tooltip="([^"\\]*)/).flatten.to_h { |t| [t, true] }
    names = profile.methods.map(&:name).tally
    focus = profile.methods.select { |m| names[m.name] == 1 && !drawn.key?(m.name) }
                   .max_by { |m| [profile.edges.count { |e| e.callee.equal?(m) }, m.total_time] }
    check = lambda do |*args|
      out, err, status = Open3.capture3("node", CHECKER, path, *args)
      abort "bench: #{name}: #{err}" unless status.success?
      JSON.parse(out)
    end
    loads = Array.new(3) { check.call("--focus", focus.name, "--focus-only") }
    large = Array.new(3) { check.call("--focus", focus.name, "--focus-boxes", "80", "--focus-only") }
    focus_ms = ->(runs, key) { median(runs.map { |l| l["focus"]["first"][key] }) }
    puts JSON.generate("profile" => name, "methods" => profile.methods.size, "edges" => profile.edges.size,
                       "write_seconds" => write_seconds.round(2), "file_mb" => (File.size(path) / 1e6).round(2),
                       "page_ready_ms" => median(loads.map { |l| l["pageReadyMs"] }),
                       "load_to_ready_ms" => median(loads.map { |l| l["readyMs"] }),
                       "focus" => focus.name, "focus_boxes" => loads.first["focus"]["first"]["boxes"].size,
                       "focus_page_ms" => focus_ms.(loads, "drawnMs"), "focus_wait_ms" => focus_ms.(loads, "redrawMs"),
                       "focus80_boxes" => large.first["focus"]["first"]["boxes"].size,
                       "focus80_page_ms" => focus_ms.(large, "drawnMs"), "focus80_wait_ms" => focus_ms.(large, "redrawMs"),
                       "errors" => (loads + large).flat_map { |l| l["errors"] + l["requests"] })
  end
end

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
#
# With --flame, the flame graph at the call tree's cap instead: rubocop
# (Debian's /usr/bin/rubocop) checking this checkout's lib/ and
# test/ruby/ (80 files) under tracegraph --call-tree, which keeps its
# default cap of 1,000,000 paths; then the same numbers, and for the
# flame view (medians of 3 loads): the page opened at #graph, then #flame
# (the tree unpacked, laid out and drawn: flame_show_ms, from setting the
# fragment to the drawing, and flame_draw_ms, the drawing alone), a click
# that zooms into a frame (zoom_draw_ms, the drawing; zoom_click_ms, from
# the click until the new drawing is seen) and one that zooms out; and the
# page opened at #flame directly (flame_ready_ms); also the packed tree's
# share of the file (tree_mb) and the least and most time the page took to
# unpack it on the 3 openings (flame_unpack_ms, #flame-view's
# data-unpack-ms). PROFILE=path.json uses a profile recorded before
# instead of recording one.
#   ruby -Ilib bench/html_report.rb --flame
require "json"
require "open3"
require "rbconfig"
require "tmpdir"
require "tracegraph"

ROOT = File.expand_path("..", __dir__)
REAL = File.join(ROOT, "test/fixtures/real")
CHECKER = File.join(ROOT, "test/consumers/html_report_check.js")

def median(values) = values.sort[values.size / 2]

def check(path, *args)
  out, err, status = Open3.capture3("node", CHECKER, path, *args)
  abort "bench: #{path}: #{err}" unless status.success?
  JSON.parse(out)
end

# The report of profile at path: how long it took to write, its size, and
# how soon its first graph is drawn.
def report_numbers(profile, path)
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  profile.write_html(path)
  write_seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  loads = Array.new(3) { check(path, "--ready-only") }
  {"methods" => profile.methods.size, "edges" => profile.edges.size,
   "write_seconds" => write_seconds.round(2), "file_mb" => (File.size(path) / 1e6).round(2),
   "page_ready_ms" => median(loads.map { |l| l["pageReadyMs"] }),
   "load_to_ready_ms" => median(loads.map { |l| l["readyMs"] }),
   "errors" => loads.flat_map { |l| l["errors"] + l["requests"] }}
end

def record_rubocop(dir)
  abort "bench: --flame records Debian's rubocop (apt-get install rubocop)" unless File.executable?("/usr/bin/rubocop")
  files = (Dir[File.join(ROOT, "lib/**/*.rb")].sort + Dir[File.join(ROOT, "test/ruby/*.rb")].sort).first(80)
  json = File.join(dir, "rubocop.json")
  _, err, status = Open3.capture3(RbConfig.ruby, "-I#{File.join(ROOT, 'lib')}", File.join(ROOT, "exe/tracegraph"),
                                  "--call-tree", "-o", json, "/usr/bin/rubocop", "--cache", "false",
                                  "--format", "quiet", *files)
  abort "bench: recording rubocop failed: #{err}" unless File.exist?(json)
  warn err.lines.grep(/cap/).join unless status.success? && err.lines.grep(/cap/).empty?
  json
end

Dir.mktmpdir("tracegraph-html-bench") do |dir|
  if ARGV.first == "--flame"
    profile = Tracegraph::Profile.load_json(ENV["PROFILE"] || record_rubocop(dir))
    path = File.join(dir, "rubocop-call-tree.html")
    numbers = report_numbers(profile, path)
    flames = Array.new(3) { check(path, "--flame", "-", "--flame-only") }
    direct = Array.new(3) { check(path, "--open", "#flame", "--ready-only") }
    flame = ->(key) { median(flames.map { |f| key.(f["flame"]) }) }
    puts JSON.generate({"profile" => "rubocop with its call tree", "call_tree_nodes" => profile.call_tree.size,
                        "folded_calls" => profile.call_tree.folded_calls}.merge(numbers).merge(
                          "tree_mb" => (File.read(path)[/"tree":"([^"]*)"/, 1].to_s.bytesize / 1e6).round(2),
                          "flame_show_ms" => flame.(->(f) { f["showMs"] }),
                          "flame_unpack_ms" => flames.map { |f| f["flame"]["shown"]["unpackMs"] }.minmax,
                          "flame_draw_ms" => flame.(->(f) { f["shown"]["drawMs"] }),
                          "frames_drawn" => flame.(->(f) { f["shown"]["frames"] }),
                          "zoom_draw_ms" => flame.(->(f) { f["zoomedIn"]["drawMs"] }),
                          "zoom_click_ms" => flame.(->(f) { f["zoomedIn"]["clickMs"] }),
                          "zoom_out_draw_ms" => flame.(->(f) { f["zoomedOut"]["drawMs"] }),
                          "flame_ready_ms" => median(direct.map { |l| l["pageReadyMs"] }),
                          "flame_load_to_ready_ms" => median(direct.map { |l| l["readyMs"] }),
                          "flame_errors" => (flames + direct).flat_map { |l| l["errors"] + l["requests"] }
                        ))
  else
    names = ARGV.empty? ? Dir[File.join(REAL, "*.json.gz")].map { |f| File.basename(f, ".json.gz") }.sort : ARGV
    names.each do |name|
      profile = Tracegraph::Profile.load_json(File.join(REAL, "#{name}.json.gz"))
      path = File.join(dir, "#{name}.html")
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      profile.write_html(path)
      write_seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
      drawn = profile.to_dot.scan(/tooltip="([^"\\]*)/).flatten.to_h { |t| [t, true] }
      counts = profile.methods.map(&:name).tally
      focus = profile.methods.select { |m| counts[m.name] == 1 && !drawn.key?(m.name) }
                     .max_by { |m| [profile.edges.count { |e| e.callee.equal?(m) }, m.total_time] }
      loads = Array.new(3) { check(path, "--focus", focus.name, "--focus-only") }
      large = Array.new(3) { check(path, "--focus", focus.name, "--focus-boxes", "80", "--focus-only") }
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
end

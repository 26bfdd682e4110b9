# What profiling one Rails request costs (issue #27): GET /posts on the
# test app (test/fixtures/rails_app: five posts, a layout, a view and a
# partial that counts each post's comments, sqlite in memory), in development, unprofiled and
# with ?tracegraph=1, each writing its files as under puma: the response
# first, then the rack.after_reply hooks, which write them. Measures the
# response (the app called, its body read and closed) and the writing
# (the hooks, which queue the files, until the writer thread has written
# them), the median and the fastest of ROUNDS requests each, after
# 20 warm-up requests. One process per setting, each alternating a plain
# and a profiled request, so that both see the same machine (it is
# shared) and the same heap, with a full GC before each (untimed), so
# that none pays for the garbage of the one before:
#   ?tracegraph=1, JSON alone    config.tracegraph.formats = []
#   ?tracegraph=1, no call tree  config.tracegraph.call_tree = false (as before
#                                the Railtie recorded it: no flame graph)
#   ?tracegraph=1 (default)      the HTML report and the JSON, with the call tree
# Then whether a profiled request leaves a cost behind: in one more
# process, AFTER plain requests timed before one profiled request and
# AFTER after it, and a loop of Integer arithmetic (what Ruby's
# instrumented instructions slowed 2.4-2.9x for good, issue 37) timed
# before and after it.
# Writes bench/RAILS.md and prints its tables.
#   ruby -Ilib bench/rails_request.rb [ROUNDS [AFTER]]
#   (rake bench:rails; BENCH_RAILS_ROUNDS, default 30; BENCH_RAILS_AFTER, default 1000)
require "json"
require "open3"
require "rbconfig"
require "tmpdir"

ROOT = File.expand_path("..", __dir__)
APP_DIR = File.join(ROOT, "test/fixtures/rails_app")
ROUNDS = Integer(ARGV[0] || ENV.fetch("BENCH_RAILS_ROUNDS", "30"))
AFTER = Integer(ARGV[1] || ENV.fetch("BENCH_RAILS_AFTER", "1000"))
WARMUP = 20

# Run in the app's directory, as `rails server` runs: prints one JSON
# line, [response seconds, writing seconds] per request, plain and profiled.
CHILD = <<~'RUBY'
  require "json"
  require "./app"
  clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
  rounds, warmup = Integer(ARGV[0]), Integer(ARGV[1])
  request = lambda do |path|
    hooks = []
    env = Rack::MockRequest.env_for(path, "rack.after_reply" => hooks)
    GC.start # (untimed) so that no request pays for the garbage of the one before
    started = clock.()
    status, headers, body = Rails.application.call(env)
    body.each { |_| nil }
    body.close if body.respond_to?(:close)
    replied = clock.()
    hooks.each(&:call)
    # (the hooks queue the files for the writer thread, which starts 20 ms
    # after the last request ends: until they are on disk)
    Tracegraph::BackgroundWriter.shared.flush
    raise "GET #{path}: #{status}" unless status == 200
    $report = headers["x-tracegraph-report"]
    [replied - started, clock.() - replied]
  end
  warmup.times { request.("/posts"); request.("/posts?tracegraph=1") }
  plain, profiled = Array.new(rounds) { [request.("/posts"), request.("/posts?tracegraph=1")] }.transpose
  html = $report.end_with?(".html") ? $report : nil
  profile = Tracegraph::Profile.load_json($report.sub(/\.html\z/, ".json"))
  puts JSON.generate("plain" => plain, "profiled" => profiled, "report" => File.extname($report),
                     "methods" => profile.methods.size, "call_tree" => !profile.call_tree.nil?,
                     "html_bytes" => html && File.size(html))
RUBY

# The lasting cost: AFTER plain requests (no GC.start between them: as a
# worker serves them), one profiled request, AFTER plain requests again;
# the arithmetic loop's best of 5 before and after. Prints one JSON line.
LASTING = <<~'RUBY'
  require "json"
  require "./app"
  clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
  count, warmup = Integer(ARGV[0]), Integer(ARGV[1])
  get = lambda do |path, hooks = nil|
    env = Rack::MockRequest.env_for(path, "rack.after_reply" => hooks || [])
    started = clock.()
    status, headers, body = Rails.application.call(env)
    body.each { |_| nil }
    body.close if body.respond_to?(:close)
    raise "GET #{path}: #{status}" unless status == 200
    [clock.() - started, headers]
  end
  arithmetic = lambda do
    Array.new(5) do
      started = clock.()
      x = i = 0
      while i < 2_000_000
        x += i * 3 - (i >> 1)
        i += 1
      end
      clock.() - started
    end.min
  end
  warmup.times { get.("/posts") }
  before = Array.new(count) { get.("/posts").first }
  arithmetic_before = arithmetic.()
  hooks = []
  _, headers = get.("/posts?tracegraph=1", hooks)
  hooks.each(&:call)
  Tracegraph::BackgroundWriter.shared.flush
  raise "not profiled" unless headers["x-tracegraph-report"]
  after = Array.new(count) { get.("/posts").first }
  arithmetic_after = arithmetic.()
  puts JSON.generate("before" => before, "after" => after,
                     "arithmetic" => [arithmetic_before, arithmetic_after])
RUBY

def run_child(code, env, *args)
  Dir.mktmpdir("tracegraph-bench-rails") do |dir|
    env = {"RAILS_ENV" => "development", "TRACEGRAPH_RAILS_DIR" => dir}.merge(env)
    out, err, status = Open3.capture3(env, RbConfig.ruby, "-I#{File.join(ROOT, 'lib')}", "-e", code,
                                      *args.map(&:to_s), chdir: APP_DIR)
    abort "bench: the app failed:\n#{err}" unless status.success?
    JSON.parse(out.lines.last)
  end
end

# formats: config.tracegraph.formats, comma-separated (nil: the default).
def measure(formats, env = {})
  env = env.merge("TRACEGRAPH_RAILS_FORMATS" => formats) if formats
  run_child(CHILD, env, ROUNDS, WARMUP)
end

def median(values) = values.sort[values.size / 2]

_, err, status = Open3.capture3(RbConfig.ruby, "-e", 'require "rails"; require "sqlite3"')
abort "bench: needs Rails and sqlite3 (apt-get install ruby-rails ruby-sqlite3):\n#{err}" unless status.success?
rails = `#{RbConfig.ruby} -e 'require "rails"; print Rails.version'`

json_alone, no_tree, default = measure(""), measure(nil, "TRACEGRAPH_RAILS_CALL_TREE" => "0"), measure(nil)
abort "bench: the default wrote #{default['report']}, not .html" unless default["report"] == ".html"
abort "bench: the call tree is not where it should be" unless default["call_tree"] && !no_tree["call_tree"]
lasting = run_child(LASTING, {}, AFTER, WARMUP * 10)
ms = ->(seconds) { format("%.1f ms", seconds * 1000) }
# label, [response, writing] samples, methods, report bytes
rows = [["unprofiled (in the JSON alone process)", json_alone["plain"], nil, nil],
        ["unprofiled (in the no call tree process)", no_tree["plain"], nil, nil],
        ["unprofiled (in the default process)", default["plain"], nil, nil],
        ["`?tracegraph=1`, JSON alone (call tree)", json_alone["profiled"], json_alone["methods"], nil],
        ["`?tracegraph=1`, HTML and JSON, no call tree (before)", no_tree["profiled"], no_tree["methods"],
         no_tree["html_bytes"]],
        ["`?tracegraph=1` (default: HTML and JSON, call tree)", default["profiled"], default["methods"],
         default["html_bytes"]]]
table = +"| GET /posts | response, median | fastest | writing after the reply, median | fastest | methods | report |\n" \
         "| --- | --- | --- | --- | --- | --- | --- |\n"
rows.each do |label, samples, methods, bytes|
  response, writing = samples.transpose
  table << "| #{label} | #{ms.(median(response))} | #{ms.(response.min)} | #{ms.(median(writing))} | " \
           "#{ms.(writing.min)} | #{methods} | #{bytes && format('%.0f KB', bytes / 1000.0)} |\n"
end
mean = ->(values) { values.sum / values.size }
us = ->(seconds) { format("%.2f ms", seconds * 1000) }
before, after = lasting.values_at("before", "after")
lasting_table = +"| #{AFTER} plain GET /posts, one process | median | mean | fastest |\n| --- | --- | --- | --- |\n"
[["before the profiled request", before], ["after it", after]].each do |label, samples|
  lasting_table << "| #{label} | #{us.(median(samples))} | #{us.(mean.(samples))} | #{us.(samples.min)} |\n"
end
arithmetic_before, arithmetic_after = lasting["arithmetic"]
lasting_table << "| Integer arithmetic loop (best of 5), before / after | #{ms.(arithmetic_before)} / " \
                 "#{ms.(arithmetic_after)} | | |\n"
plain = median(default["plain"].map(&:first))
profiled = median(default["profiled"].map(&:first))
File.write(File.join(__dir__, "RAILS.md"), <<~MD)
  # Profiling one Rails request

  `ruby -Ilib bench/rails_request.rb` (`rake bench:rails`), #{Time.now.utc.strftime('%Y-%m-%d')}, Ruby #{RUBY_VERSION},
  Rails #{rails}, on a shared 2-core machine. `GET /posts` on the test app
  (`test/fixtures/rails_app/`: five posts, a layout, a view and a partial that counts each
  post's comments, one query a post, sqlite in memory), in development, called through Rack as puma calls it: the response (the app
  called, its body read and closed), then the `rack.after_reply` hooks, where the Railtie
  queues its files for its writer thread; "writing" is until they are on disk (the writer
  starts once no request has been in the app for 20 ms). #{ROUNDS} plain and #{ROUNDS} profiled requests, alternating, after #{WARMUP} of
  each to warm up, in one process per setting of `config.tracegraph.formats`, with a full
  GC before each request (untimed), so that none pays for the garbage of the one before.

  #{table.chomp}

  With the defaults, a profiled request is answered after #{ms.(profiled)} (median), against
  #{ms.(plain)} unprofiled in the same process; its files are written after the response has
  gone out, by the writer thread, in #{ms.(median(default['profiled'].map(&:last)))} (#{ms.(median(json_alone['profiled'].map(&:last)))} for the JSON alone: the rest is
  the HTML report, whose graph Graphviz lays out). Requests without the parameter are not
  profiled: the middleware reads their query string and passes them on.

  ## The call tree, for the flame graph

  The Railtie records the call tree (`config.tracegraph.call_tree`, default true), so
  every request's report has its flame graph. Side by side, in the table above: a
  profiled request without it (as before) is answered after
  #{ms.(median(no_tree['profiled'].map(&:first)))} and written in #{ms.(median(no_tree['profiled'].map(&:last)))}; with it, after #{ms.(profiled)} and written in
  #{ms.(median(default['profiled'].map(&:last)))}, the report #{format('%.0f', no_tree['html_bytes'] / 1000.0)} KB against #{format('%.0f', default['html_bytes'] / 1000.0)} KB (medians; the shared machine's
  noise is of the same order as the difference).

  ## No lasting cost

  One process (`config.tracegraph` as by default): #{WARMUP * 10} plain requests to warm up, then
  #{AFTER} plain `GET /posts` timed, one profiled request (its files written), and #{AFTER}
  plain requests again, timed the same way (no GC between them: as a worker serves
  them); and a loop of Integer arithmetic, whose operators a profile with C calls
  would leave instrumented, timed before and after:

  #{lasting_table.chomp}

  After the profiled request, a plain request takes #{format('%.2f', median(after) / median(before))} times as long as before it
  (medians), and the arithmetic #{format('%.2f', arithmetic_after / arithmetic_before)} times as long.
MD
puts table, lasting_table

# What profiling one Rails request costs (issue #27): GET /posts on the
# test app (test/fixtures/rails_app: one model, five posts, a layout, a
# view and a partial, sqlite in memory), in development, unprofiled and
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
#   ?tracegraph=1 (default)      the HTML report and the JSON
# Writes bench/RAILS.md and prints its table.
#   ruby -Ilib bench/rails_request.rb [ROUNDS]     (rake bench:rails; BENCH_RAILS_ROUNDS)
require "json"
require "open3"
require "rbconfig"
require "tmpdir"

ROOT = File.expand_path("..", __dir__)
APP_DIR = File.join(ROOT, "test/fixtures/rails_app")
ROUNDS = Integer(ARGV[0] || ENV.fetch("BENCH_RAILS_ROUNDS", "30"))
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
  puts JSON.generate("plain" => plain, "profiled" => profiled, "report" => File.extname($report),
                     "methods" => Tracegraph::Profile.load_json($report.sub(/\.html\z/, ".json")).methods.size)
RUBY

def measure(formats)
  Dir.mktmpdir("tracegraph-bench-rails") do |dir|
    env = {"RAILS_ENV" => "development", "TRACEGRAPH_RAILS_DIR" => dir}
    env["TRACEGRAPH_RAILS_FORMATS"] = formats if formats
    out, err, status = Open3.capture3(env, RbConfig.ruby, "-I#{File.join(ROOT, 'lib')}", "-e", CHILD,
                                      ROUNDS.to_s, WARMUP.to_s, chdir: APP_DIR)
    abort "bench: the app failed:\n#{err}" unless status.success?
    JSON.parse(out.lines.last)
  end
end

def median(values) = values.sort[values.size / 2]

_, err, status = Open3.capture3(RbConfig.ruby, "-e", 'require "rails"; require "sqlite3"')
abort "bench: needs Rails and sqlite3 (apt-get install ruby-rails ruby-sqlite3):\n#{err}" unless status.success?
rails = `#{RbConfig.ruby} -e 'require "rails"; print Rails.version'`

json_alone, default = measure(""), measure(nil)
abort "bench: the default wrote #{default['report']}, not .html" unless default["report"] == ".html"
ms = ->(seconds) { format("%.1f ms", seconds * 1000) }
# label, [response, writing] samples, methods
rows = [["unprofiled (in the JSON alone process)", json_alone["plain"], nil],
        ["unprofiled (in the default process)", default["plain"], nil],
        ["`?tracegraph=1`, JSON alone", json_alone["profiled"], json_alone["methods"]],
        ["`?tracegraph=1` (default: HTML report and JSON)", default["profiled"], default["methods"]]]
table = +"| GET /posts | response, median | fastest | writing after the reply, median | fastest | methods |\n" \
         "| --- | --- | --- | --- | --- | --- |\n"
rows.each do |label, samples, methods|
  response, writing = samples.transpose
  table << "| #{label} | #{ms.(median(response))} | #{ms.(response.min)} | #{ms.(median(writing))} | " \
           "#{ms.(writing.min)} | #{methods} |\n"
end
plain = median(default["plain"].map(&:first))
profiled = median(default["profiled"].map(&:first))
File.write(File.join(__dir__, "RAILS.md"), <<~MD)
  # Profiling one Rails request

  `ruby -Ilib bench/rails_request.rb` (`rake bench:rails`), #{Time.now.utc.strftime('%Y-%m-%d')}, Ruby #{RUBY_VERSION},
  Rails #{rails}, on a shared 2-core machine. `GET /posts` on the test app
  (`test/fixtures/rails_app/`: five posts, a layout, a view and a partial, sqlite in
  memory), in development, called through Rack as puma calls it: the response (the app
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
MD
puts table

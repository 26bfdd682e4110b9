# Why is the request after a profiled one slower (issue #37), when the
# files are written by another thread? The test app (test/fixtures/
# rails_app), in one process, called through Rack::MockRequest: before
# each timed plain GET /posts, one of the steps below, then the writer's
# queue emptied, so that the timed request runs alone. Each round runs
# every step once, in turn, after 5 rounds to warm up. Times are the
# request thread's CPU time, which a busy machine's other processes do
# not add to.
#   ruby -Ilib bench/rails_next_request.rb [ROUNDS]
# Prints the median and the fastest for each step before the request.
# The steps that do not profile (a full GC, a walk of the heap, 20 MB of
# memory read) show what a request pays when what ran before it pushed
# its data out of the CPU's caches.
require "tmpdir"

ROOT = File.expand_path("..", __dir__)
APP_DIR = File.join(ROOT, "test/fixtures/rails_app")
ROUNDS = Integer(ARGV[0] || "40")

ENV["RAILS_ENV"] = "development"
ENV["TRACEGRAPH_RAILS_FORMATS"] = "" # the JSON alone: Graphviz's layout runs in a process of its own
dir = ENV["TRACEGRAPH_RAILS_DIR"] = Dir.mktmpdir("tracegraph-bench-next")
Dir.chdir(APP_DIR)
require File.join(APP_DIR, "app")

app = Rack::MockRequest.new(Rails.application)
writer = Tracegraph::BackgroundWriter.shared
cpu = -> { Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) }
STEPS = {
  "a plain request" => -> { app.get("/posts") },
  "a profiled request" => -> { app.get("/posts?tracegraph=1") },
  "Tracegraph.start; stop (nothing run)" => -> { Tracegraph.start(call_tree: true); Tracegraph.stop },
  "the same, c_calls: false" => -> { Tracegraph.start(c_calls: false); Tracegraph.stop },
  "a plain request, then GC.start" => -> { app.get("/posts"); GC.start },
  "a plain request, then a heap walk" => -> { app.get("/posts"); ObjectSpace.each_object(Object) {} },
  "a plain request, then 20 MB read" => -> { app.get("/posts"); ("x" * 20_000_000).sum }
}.freeze

times = Hash.new { |h, k| h[k] = [] }
(5 + ROUNDS).times do |round|
  STEPS.each do |name, step|
    step.()
    writer.flush
    started = cpu.()
    app.get("/posts")
    times[name] << cpu.() - started if round >= 5
  end
end

ms = ->(seconds) { format("%.1f ms", seconds * 1000) }
puts "| before the plain request | its CPU time, median | fastest |"
puts "| --- | --- | --- |"
times.each { |name, list| puts "| #{name} | #{ms.(list.sort[list.size / 2])} | #{ms.(list.min)} |" }
puts "profiles written: #{Dir.children(dir).count { |f| f.end_with?('.json') }}"
FileUtils.rm_rf(dir)

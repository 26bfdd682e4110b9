# Does a profile leave a YJIT process as fast as it found it (issue #43)?
# Run under a Ruby with YJIT (rake bench:yjit runs it in the 3.4-yjit
# chroot, and writes what it prints as Markdown to the bench folder).
#
# 1. Each workload in a fresh process, with YJIT and without: warm it up
#    (30 runs), take the best of 7, profile one run with the default
#    options (Tracegraph.profile), warm it up again, take the best of 7.
#    And the same with TRACEGRAPH_NO_UNTRACE=1: what Ruby leaves behind
#    when nothing puts the instructions back.
# 2. What stop's untracing costs, and how many instructions it puts back.
# 3. A Rails request (test/fixtures/rails_app, as bench/rails_request.rb)
#    under YJIT: what one profiled request costs the requests after it
#    (the untracing, and YJIT compiling the app's code again), and so
#    which N keeps profiling one request in N under 1% of the time.
#   ruby -Ilib bench/yjit.rb
require "json"
require "rbconfig"

ROOT = File.expand_path("..", __dir__)
abort "bench/yjit.rb: this Ruby has no YJIT (#{RUBY_DESCRIPTION})" unless defined?(RubyVM::YJIT)

WORKLOADS = {
  "fib(22) and a 1M-step while loop" => <<~'RUBY',
    def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
    def loop_sum(n)
      i = s = 0
      while i < n
        s += i & 7
        i += 1
      end
      s
    end
    WORK = -> { fib(22) + loop_sum(1_000_000) }
  RUBY
  "kramdown on a 60 KB document" => <<~'RUBY'
    require "kramdown"
    text = +""
    Dir[File.join(ROOT, "docs", "*.md")].sort.each { |f| text << File.read(f) << "\n" }
    TEXT = text.byteslice(0, 60_000).scrub("")
    WORK = -> { Kramdown::Document.new(TEXT).to_html }
  RUBY
}.freeze

# One process: the times before and after the profile, in ms.
CHILD = <<~'RUBY'
  require "tracegraph"
  require "json"
  ROOT = ARGV[0]
  eval(ARGV[1]) # rubocop:disable Security/Eval
  clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
  best = lambda do
    30.times { WORK.() }
    Array.new(7) { t = clock.(); WORK.(); clock.() - t }.min * 1000
  end
  before = best.()
  Tracegraph.profile { WORK.() }
  after = best.()
  puts JSON.generate(before: before, after: after, yjit: Tracegraph.yjit_on?)
RUBY

def child(source, yjit:, untrace: true)
  env = {"RUBY_YJIT_ENABLE" => yjit ? "1" : "0"}
  env["TRACEGRAPH_NO_UNTRACE"] = "1" unless untrace
  out = IO.popen(env, [RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-e", CHILD, ROOT, source], &:read)
  raise "bench/yjit.rb: the child failed" unless $?.success?

  JSON.parse(out, symbolize_names: true)
end

ms = ->(t) { t < 10 ? format("%.2f ms", t) : format("%.1f ms", t) }
ratio = ->(a, b) { format("%.2f×", a / b) }

puts "# YJIT after a profile"
puts
puts "`rake bench:yjit` (bench/yjit.rb), #{RUBY_DESCRIPTION}, #{Time.now.utc.strftime('%Y-%m-%d')}, " \
     "commit #{ENV.fetch('BENCH_COMMIT', '').then { |c| c.empty? ? 'unknown' : c }}."
puts "Best of 7 warm runs, before one `Tracegraph.profile` of a run (default options) and after it and 30 runs " \
     "to warm up again, each row in a fresh process."
puts
puts "| workload | Ruby | before | after | after ÷ before | after, with TRACEGRAPH_NO_UNTRACE=1 | ÷ before |"
puts "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
WORKLOADS.each do |name, source|
  [true, false].each do |yjit|
    now = child(source, yjit: yjit)
    raise "bench/yjit.rb: YJIT is #{now[:yjit] ? 'on' : 'off'} in the child" unless now[:yjit] == yjit

    old = child(source, yjit: yjit, untrace: false)
    puts "| #{name} | #{yjit ? 'YJIT' : 'interpreter'} | #{ms.(now[:before])} | #{ms.(now[:after])} | " \
         "#{ratio.(now[:after], now[:before])} | #{ms.(old[:after])} | #{ratio.(old[:after], old[:before])} |"
  end
end

# 2. The untracing alone, on a process that has loaded kramdown and run it.
UNTRACE_COST = <<~'RUBY'
  require "tracegraph"
  require "json"
  ROOT = ARGV[0]
  eval(ARGV[1]) # rubocop:disable Security/Eval
  10.times { WORK.() }
  clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
  Tracegraph.start
  WORK.()
  Tracegraph.stop_if_running # leaves the instructions traced
  t = clock.()
  counts = Tracegraph.send(:_untrace)
  untraced = clock.() - t
  t = clock.()
  RubyVM::YJIT.code_gc if RubyVM::YJIT.enabled?
  puts JSON.generate(counts.merge(ms: untraced * 1000, code_gc_ms: (clock.() - t) * 1000,
                                  objects: ObjectSpace.count_objects[:TOTAL]))
RUBY
out = IO.popen({"RUBY_YJIT_ENABLE" => "1"}, [RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-e", UNTRACE_COST,
                                             ROOT, WORKLOADS["kramdown on a 60 KB document"]], &:read)
cost = JSON.parse(out, symbolize_names: true)
puts
puts "Putting the instructions back after kramdown's profile, with YJIT on: #{cost[:iseqs]} instruction sequences " \
     "in a heap of #{cost[:objects]} slots, #{cost[:instructions]} instructions made plain, in " \
     "#{ms.(cost[:ms])} (YJIT's code thrown away with them); freeing YJIT's code (`RubyVM::YJIT.code_gc`): " \
     "#{ms.(cost[:code_gc_ms])}."

# 3. Rails, under YJIT: the requests after a profiled one.
RAILS = <<~'RUBY'
  require "json"
  require "tmpdir"
  ROOT = ARGV[0]
  ENV["RAILS_ENV"] = "development"
  ENV["TRACEGRAPH_RAILS_FORMATS"] = "" # the JSON alone
  ENV["TRACEGRAPH_RAILS_DIR"] = Dir.mktmpdir("tracegraph-bench-yjit")
  app_dir = File.join(ROOT, "test/fixtures/rails_app")
  Dir.chdir(app_dir)
  require File.join(app_dir, "app")
  app = Rack::MockRequest.new(Rails.application)
  writer = Tracegraph::BackgroundWriter.shared
  clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
  timed = ->(path) { t = clock.(); app.get(path); clock.() - t }
  rounds = Integer(ENV.fetch("BENCH_YJIT_ROUNDS", "5"))
  after = Integer(ENV.fetch("BENCH_YJIT_AFTER", "300"))
  1000.times { app.get("/posts") } # YJIT compiles the app
  results = Array.new(rounds) do
    base = Array.new(after) { timed.("/posts") }
    profiled = timed.("/posts?tracegraph=1")
    writer.flush
    next_ones = Array.new(after) { timed.("/posts") }
    {base: base, profiled: profiled, after: next_ones}
  end
  puts JSON.generate(results: results, yjit: RubyVM::YJIT.enabled?, rails: Rails.version)
RUBY
rails = IO.popen({"RUBY_YJIT_ENABLE" => "1"}, [RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-e", RAILS, ROOT], &:read)
if $?.success?
  data = JSON.parse(rails, symbolize_names: true)
  median = ->(list) { list.sort[list.size / 2] }
  rows = data[:results].map do |r|
    plain = median.(r[:base])
    # What the requests after the profiled one took beyond the plain median.
    excess = r[:after].sum - plain * r[:after].size
    {plain: plain, profiled: r[:profiled], excess: excess, first: r[:after].first(10).sum,
     last: median.(r[:after].last(100))}
  end
  plain = median.(rows.map { |r| r[:plain] })
  profiled = median.(rows.map { |r| r[:profiled] })
  excess = median.(rows.map { |r| r[:excess] })
  last = median.(rows.map { |r| r[:last] })
  cost = profiled - plain + [excess, 0].max
  n = (cost / (0.01 * plain)).ceil
  puts
  puts "Rails #{data[:rails]} (`GET /posts` on the test app through " \
       "Rack, YJIT on and warm, the JSON alone written; medians of #{rows.size} rounds, each " \
       "#{data[:results].first[:after].size} plain requests, one profiled, and as many plain again):"
  puts
  puts "| | time |"
  puts "| --- | ---: |"
  puts "| a plain request | #{ms.(plain * 1000)} |"
  puts "| the profiled request | #{ms.(profiled * 1000)} |"
  puts "| the #{data[:results].first[:after].size} requests after it, beyond as many plain ones | #{ms.(excess * 1000)} |"
  puts "| the last 100 of them, each (median) | #{ms.(last * 1000)} |"
  puts
  puts "So one profiled request costs about #{ms.(cost * 1000)} of server time in all (itself beyond a plain one, " \
       "and the slower requests after it): #{(cost / plain).round} plain requests' worth. Profiling at most one " \
       "request in #{n} (`every: #{n}` or more) keeps that under 1% of the server's time."
else
  puts
  puts "(The Rails part did not run: Rails or sqlite3 does not load under this Ruby.)"
end

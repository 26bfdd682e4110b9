# Does a profile leave a YJIT process as fast as it found it (issue #43)?
# Run under a Ruby with YJIT (rake bench:yjit runs it in the 3.4-yjit
# chroot, and writes what it prints as Markdown to the bench folder).
#
# 1. Each workload in fresh processes, with YJIT and without: warm it up,
#    take the best of 7, do one thing, warm it up again, take the best of 7.
#    The things: nothing (the control: how much a process's best moves on
#    its own), RubyVM::YJIT.code_gc alone (YJIT throwing its code away and
#    compiling the program again, with no profiler), one Tracegraph.profile
#    of a run with the default options, and the same with
#    TRACEGRAPH_NO_UNTRACE=1 (what Ruby leaves behind when nothing puts the
#    instructions back). A YJIT tight loop's speed depends on where YJIT
#    puts its code, so one process says little: each row is the median of
#    BENCH_YJIT_PROCESSES (5) processes, with the range of their ratios.
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

PROCESSES = Integer(ENV.fetch("BENCH_YJIT_PROCESSES", "5"))

# name => [source defining WORK, warm-up runs before each best of 7,
#          the actions to run it with (nil: all)]
WORKLOADS = {
  "fib(22)" => [<<~'RUBY', 100],
    def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
    WORK = -> { fib(22) }
  RUBY
  "a 1M-step while loop" => [<<~'RUBY', 100],
    def loop_sum(n)
      i = s = 0
      while i < n
        s += i & 7
        i += 1
      end
      s
    end
    WORK = -> { loop_sum(1_000_000) }
  RUBY
  # Why the loop is slower after any recompile: YJIT 3.4 compiles an
  # instruction sequence again as if its environment had escaped (the set
  # of blocks that assumed it had not is left empty when they are freed,
  # and iseq_escapes_ep reads an empty set as "escaped"), so locals go
  # through the heap environment. A loop whose environment really escaped
  # once, before YJIT first compiled it, runs at that speed from the start.
  "the same loop, its environment escaped once before YJIT compiled it" => [<<~'RUBY', 100, ["nothing (control)", "one `Tracegraph.profile`"]],
    def loop_sum(n, escape = false)
      binding if escape
      i = s = 0
      while i < n
        s += i & 7
        i += 1
      end
      s
    end
    loop_sum(1, true)
    WORK = -> { loop_sum(1_000_000) }
  RUBY
  "kramdown on a 60 KB document" => [<<~'RUBY', 60]
    require "kramdown"
    text = +""
    Dir[File.join(ROOT, "docs", "*.md")].sort.each { |f| text << File.read(f) << "\n" }
    TEXT = text.byteslice(0, 60_000).scrub("")
    WORK = -> { Kramdown::Document.new(TEXT).to_html }
  RUBY
}.freeze

# What happens between the two bests: name => [child's ARGV word, env].
ACTIONS = {
  "nothing (control)" => ["nothing", {}],
  "`RubyVM::YJIT.code_gc`, no profiler" => ["code_gc", {}],
  "one `Tracegraph.profile`" => ["profile", {}],
  "one `Tracegraph.profile`, `TRACEGRAPH_NO_UNTRACE=1`" => ["profile", {"TRACEGRAPH_NO_UNTRACE" => "1"}]
}.freeze
INTERPRETER_ACTIONS = ["nothing (control)", "one `Tracegraph.profile`"].freeze

# One process: the times before and after the action, in ms.
CHILD = <<~'RUBY'
  require "tracegraph"
  require "json"
  ROOT = ARGV[0]
  eval(ARGV[1]) # rubocop:disable Security/Eval
  warm = Integer(ARGV[2])
  clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
  best = lambda do
    warm.times { WORK.() }
    Array.new(7) { t = clock.(); WORK.(); clock.() - t }.min * 1000
  end
  before = best.()
  case ARGV[3]
  when "code_gc" then RubyVM::YJIT.code_gc
  when "profile" then Tracegraph.profile { WORK.() }
  end
  after = best.()
  puts JSON.generate(before: before, after: after, yjit: Tracegraph.yjit_on?)
RUBY

def child(source, warm, action, env, yjit:)
  # The flag, not RUBY_YJIT_ENABLE=0: Ruby 3.1 turns YJIT on when that
  # variable is set at all.
  env = env.merge("RUBY_YJIT_ENABLE" => nil)
  out = IO.popen(env, [RbConfig.ruby, yjit ? "--yjit" : "--disable-yjit", "-I", File.join(ROOT, "lib"), "-e", CHILD, ROOT, source, warm.to_s, action], &:read)
  raise "bench/yjit.rb: the child failed" unless $?.success?

  result = JSON.parse(out, symbolize_names: true)
  raise "bench/yjit.rb: YJIT is #{result[:yjit] ? 'on' : 'off'} in the child" unless result[:yjit] == yjit

  result
end

ms = ->(t) { t < 10 ? format("%.2f ms", t) : format("%.1f ms", t) }
ratio = ->(r) { format("%.2f×", r) }
median = ->(list) { list.sort[list.size / 2] }

puts "# YJIT after a profile"
puts
puts "`rake bench:yjit` (bench/yjit.rb), #{RUBY_DESCRIPTION}, #{Time.now.utc.strftime('%Y-%m-%d')}, " \
     "commit #{ENV.fetch('BENCH_COMMIT', '').then { |c| c.empty? ? 'unknown' : c }}, " \
     "load average #{File.read('/proc/loadavg').split.first(3).join(' ')} at the start."
puts "Each process warms the workload up (fib and the loop 100 runs, kramdown 60), takes the best of 7 runs, " \
     "does one thing, warms up again and takes the best of 7 again. Each row is the median of #{PROCESSES} " \
     "fresh processes; the range is their ratios' lowest and highest."
puts
puts "| workload | Ruby | between the two bests | before | after | after ÷ before | range |"
puts "| --- | --- | --- | ---: | ---: | ---: | --- |"
WORKLOADS.each do |name, (source, warm, only)|
  [true, false].each do |yjit|
    next if only && !yjit

    ACTIONS.each do |what, (action, env)|
      next unless yjit || INTERPRETER_ACTIONS.include?(what)
      next if only && !only.include?(what)

      runs = Array.new(PROCESSES) { child(source, warm, action, env, yjit: yjit) }
      ratios = runs.map { |r| r[:after] / r[:before] }
      puts "| #{name} | #{yjit ? 'YJIT' : 'interpreter'} | #{what} | #{ms.(median.(runs.map { |r| r[:before] }))} | " \
           "#{ms.(median.(runs.map { |r| r[:after] }))} | #{ratio.(median.(ratios))} | " \
           "#{ratio.(ratios.min)}–#{ratio.(ratios.max)} |"
    end
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
                                             ROOT, WORKLOADS["kramdown on a 60 KB document"].first], &:read)
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

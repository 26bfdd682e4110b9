# What stopping and drawing cost where a program has many methods: a
# profile of 10,000 named methods (one class each), and one of 10,000
# methods of anonymous classes, which are named at stop by where they were
# defined (Tracegraph::Naming). Each is recorded ROUNDS times; the fastest
# round is kept, as the one a busy machine disturbed least.
#
#   ruby -Ilib bench/stop_and_draw.rb     (rake bench:stop; part of rake bench)
#
# Prints a Markdown table and writes bench/STOP.md.
require "tracegraph"

ROUNDS = Integer(ENV.fetch("BENCH_ROUNDS", "7"))
METHODS = Integer(ENV.fetch("BENCH_METHODS", "10000"))

def clock = Process.clock_gettime(Process::CLOCK_MONOTONIC)

# [stop seconds, to_dot seconds, methods in the profile], fastest round.
def measure(objects)
  rounds = ROUNDS.times.map do
    Tracegraph.start
    objects.each(&:run)
    t0 = clock
    profile = Tracegraph.stop
    t1 = clock
    profile.to_dot
    [t1 - t0, clock - t1, profile.methods.size]
  end
  [rounds.map(&:first).min, rounds.map { |r| r[1] }.min, rounds.first[2]]
end

named = METHODS.times.map do |i|
  Object.const_set(:"TracegraphBenchNamed#{i}", Class.new { define_method(:run) { i } }).new
end
anonymous = METHODS.times.map { |i| Class.new { define_method(:run) { i } }.new }

rows = {"named classes" => measure(named), "anonymous classes" => measure(anonymous)}
ms = ->(s) { format("%.1f ms", s * 1000) }
us = ->(s, n) { format("%.1f µs", s * 1e6 / n) }
table = +"| #{METHODS} methods of | stop | per method | to_dot | stop + to_dot |\n| --- | --- | --- | --- | --- |\n"
rows.each do |what, (stop, dot, n)|
  table << "| #{what} | #{ms[stop]} | #{us[stop, n]} | #{ms[dot]} | #{ms[stop + dot]} |\n"
end
puts table

File.write(File.join(__dir__, "STOP.md"), <<~MD)
  # Stopping and drawing many methods

  `ruby -Ilib bench/stop_and_draw.rb` (`rake bench:stop`, part of `rake bench`),
  #{Time.now.utc.strftime('%Y-%m-%d')}, Ruby #{RUBY_VERSION}, the fastest of #{ROUNDS} rounds each:
  #{METHODS} methods, each the one method of its class, called once. Named
  classes are named by the extension; anonymous ones by where they were
  defined (`Tracegraph::Naming`), which calls Ruby for each.

  #{table}
MD

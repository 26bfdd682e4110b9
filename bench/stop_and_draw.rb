# What stopping and drawing cost where a program has many methods: a
# profile of 10,000 named methods (one class each), and one of 10,000
# methods of anonymous classes, which are named at stop by where they were
# defined (naming.c, Tracegraph::Naming). Each is recorded ROUNDS times; the
# fastest round is kept, as the one a busy machine disturbed least.
#
# Then a program that makes COMPACT_CLASSES anonymous classes (two methods
# each, half of them dropped as it goes) while another thread runs
# GC.compact in a loop, through the stop, in a process of its own: its stop
# against the run's own length. (Issue 30 saw 207,000 classes take 67 s to
# stop after an 18.8 s run: BENCH_COMPACT_CLASSES=207000.)
#
#   ruby -Ilib bench/stop_and_draw.rb     (rake bench:stop; part of rake bench)
#
# Prints Markdown tables and writes bench/STOP.md.
require "tracegraph"
require "rbconfig"

LOAD = File.exist?("/proc/loadavg") ? File.read("/proc/loadavg").split.first(3).join(", ") : "unknown"
ROUNDS = Integer(ENV.fetch("BENCH_ROUNDS", "7"))
METHODS = Integer(ENV.fetch("BENCH_METHODS", "10000"))
COMPACT_CLASSES = Integer(ENV.fetch("BENCH_COMPACT_CLASSES", "20000"))
COMPACT_ROUNDS = Integer(ENV.fetch("BENCH_COMPACT_ROUNDS", "3"))

def clock = Process.clock_gettime(Process::CLOCK_MONOTONIC)

def thread_cpu = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)

# One round of the GC.compact program, in this process (the child):
# prints "methods run_seconds compactions_in_run stop_seconds
# compactions_in_stop to_dot_seconds run_cpu stop_cpu", the last two the
# CPU time of the thread that runs and stops (the compactions the other
# thread makes are not in it).
def compact_round(classes)
  kept = []
  compactions = 0
  done = false
  c0 = thread_cpu
  t0 = clock
  Tracegraph.start
  compactor = Thread.new do
    until done
      GC.compact
      compactions += 1
      sleep 0.001
    end
  end
  classes.times do |i|
    klass = Class.new do
      def run = helper
      def helper = 1
    end
    klass.new.run
    kept << klass if i.even?
  end
  t1 = clock
  c1 = thread_cpu
  in_run = compactions
  profile = Tracegraph.stop
  t2 = clock
  c2 = thread_cpu
  in_stop = compactions - in_run
  done = true
  compactor.join
  t3 = clock
  profile.to_dot
  puts [profile.methods.size, t1 - t0, in_run, t2 - t1, in_stop, clock - t3, c1 - c0, c2 - c1].join(" ")
end

if ARGV[0] == "compact"
  compact_round(Integer(ARGV[1]))
  exit
end

def cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)

# [stop seconds, to_dot seconds, methods in the profile, stop in CPU
# seconds, stop + to_dot in CPU seconds], each the fastest round. The
# process's CPU time counts only this process's work, so a loaded machine
# disturbs it less than the wall clock (only through caches and shared
# cores).
def measure(objects)
  rounds = ROUNDS.times.map do
    Tracegraph.start
    objects.each(&:run)
    c0 = cpu
    t0 = clock
    profile = Tracegraph.stop
    t1 = clock
    c1 = cpu
    profile.to_dot
    [t1 - t0, clock - t1, profile.methods.size, c1 - c0, cpu - c0]
  end
  [0, 1, 2, 3, 4].map { |i| rounds.map { |r| r[i] }.min }
end

named = METHODS.times.map do |i|
  Object.const_set(:"TracegraphBenchNamed#{i}", Class.new { define_method(:run) { i } }).new
end
anonymous = METHODS.times.map { |i| Class.new { define_method(:run) { i } }.new }

rows = {"named classes" => measure(named), "anonymous classes" => measure(anonymous)}
ms = ->(s) { format("%.1f ms", s * 1000) }
us = ->(s, n) { format("%.1f µs", s * 1e6 / n) }
table = +"| #{METHODS} methods of | stop | per method | to_dot | stop + to_dot | " \
         "stop, CPU time | per method | stop + to_dot, CPU time |\n" \
         "| --- | --- | --- | --- | --- | --- | --- | --- |\n"
rows.each do |what, (stop, dot, n, stop_cpu, cpu)|
  table << "| #{what} | #{ms[stop]} | #{us[stop, n]} | #{ms[dot]} | #{ms[stop + dot]} | " \
           "#{ms[stop_cpu]} | #{us[stop_cpu, n]} | #{ms[cpu]} |\n"
end
puts table

compact_rounds = COMPACT_ROUNDS.times.map do
  out = IO.popen([RbConfig.ruby, "-I#{File.expand_path('../lib', __dir__)}", __FILE__, "compact", COMPACT_CLASSES.to_s],
                 &:read)
  methods, run, in_run, stop, in_stop, dot, run_cpu, stop_cpu = out.split
  [Integer(methods), Float(run), Integer(in_run), Float(stop), Integer(in_stop), Float(dot), Float(run_cpu),
   Float(stop_cpu)]
end
sec = ->(x) { format("%.2f s", x) }
compact_table = +"| round | methods | run | compactions in it | stop | compactions in it | stop / run | to_dot | " \
                 "run, its thread's CPU time | stop, the same | stop / run, CPU |\n" \
                 "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
compact_rounds.each.with_index(1) do |(methods, run, in_run, stop, in_stop, dot, run_cpu, stop_cpu), i|
  compact_table << "| #{i} | #{methods} | #{sec[run]} | #{in_run} | #{sec[stop]} | #{in_stop} | " \
                   "#{format('%.2f', stop / run)} | #{sec[dot]} | #{sec[run_cpu]} | #{sec[stop_cpu]} | " \
                   "#{format('%.2f', stop_cpu / run_cpu)} |\n"
end
puts compact_table

File.write(File.join(__dir__, "STOP.md"), <<~MD)
  # Stopping and drawing many methods

  `ruby -Ilib bench/stop_and_draw.rb` (`rake bench:stop`, part of `rake bench`),
  #{Time.now.utc.strftime('%Y-%m-%d')}, Ruby #{RUBY_VERSION}, the fastest of #{ROUNDS} rounds each:
  #{METHODS} methods, each the one method of its class, called once. Named
  classes are named by the extension, and anonymous ones too, by where
  they were defined (`naming.c`'s `owner_name`, which
  `Tracegraph::Naming` calls too). Load average when it began: #{LOAD}
  (2 cores, shared with other work: read the ratios, and compare
  instruction counts, not milliseconds, between versions).

  #{table}
  ## Anonymous classes made while GC.compact runs

  #{COMPACT_CLASSES} anonymous classes, two methods each, half of them
  dropped as they are made, while another thread runs `GC.compact` in a
  loop (through the stop), each round in a process of its own
  (`BENCH_COMPACT_CLASSES`, `BENCH_COMPACT_ROUNDS`):

  #{compact_table}
MD

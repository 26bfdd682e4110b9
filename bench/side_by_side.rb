# Two builds of tracegraph timed side by side, in one run: the cost of a
# change to the hot path, with the machine's noise spread over both.
#
#   git archive main | (mkdir -p /tmp/before && tar -x -C /tmp/before) && (cd /tmp/before && rake compile)
#   ruby bench/side_by_side.rb /tmp/before [AFTER_DIR]      # AFTER_DIR: this checkout
#   ruby bench/side_by_side.rb --paths [DIR]                # one build: the VM reads, then the public API only
#
# --paths times the hook's two paths (docs/rubies.md): "before" is the VM
# reads the probe checked, "after" the same build with
# TRACEGRAPH_NO_VM_READS=1, as on a Ruby the probe does not recognise.
#
# Each round runs every build x clock x workload cell, and each workload
# without a profiler, in a fresh process, in a new random order; a
# process warms up once and keeps the fastest of REPEAT timed runs (noise
# only ever adds time), as bench/run_one.rb does. The table has each
# cell's median over the rounds. Processes are pinned to one CPU
# (BENCH_CPU, default the last; none to let them move), as in bench/run.rb.
#   ROUNDS=7 REPEAT=3  CLOCKS=cpu,cpu:exact,thread_cpu  WORKLOADS=fib,threads,stdlib_mix
require "etc"
require "rbconfig"

if ARGV.first == "--one" # a child: --one CLOCK[:exact] WORKLOAD REPEAT, prints seconds
  require_relative "workloads"
  _, clock, name, repeat = ARGV
  work = Workloads.load(name)
  run = if clock == "none"
          -> { work.call }
        else
          require "tracegraph"
          clock, exact = clock.split(":")
          options = {clock: clock.to_sym, exact_clock: exact == "exact"}
          -> { Tracegraph.start(**options); work.call; Tracegraph.stop }
        end
  run.call
  puts(Array.new(Integer(repeat)) do
    GC.start
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    run.call
    Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  end.min)
  exit
end

abort "usage: ruby bench/side_by_side.rb BEFORE_DIR [AFTER_DIR] | --paths [DIR]" unless ARGV[0]
paths = ARGV[0] == "--paths"
here = File.expand_path("..", __dir__)
builds = (paths ? {"before" => ARGV[1] || here, "after" => ARGV[1] || here} : {"before" => ARGV[0], "after" => ARGV[1] || here})
         .transform_values { |dir| File.join(File.expand_path(dir), "lib") }
envs = Hash.new({"TRACEGRAPH_NO_VM_READS" => nil})
envs["after"] = {"TRACEGRAPH_NO_VM_READS" => "1"} if paths
builds.each_value { |lib| abort "no build in #{lib}: rake compile there" unless Dir[File.join(lib, "tracegraph/*.so")].any? }
rounds = Integer(ENV.fetch("ROUNDS", "7"))
repeat = ENV.fetch("REPEAT", "3")
clocks = ENV.fetch("CLOCKS", "cpu,cpu:exact,thread_cpu").split(",")
workloads = ENV.fetch("WORKLOADS", "fib,threads,stdlib_mix").split(",")
cpu = ENV.fetch("BENCH_CPU", (Etc.nprocessors - 1).to_s)
pin = cpu != "none" && system("taskset", "-c", cpu, "true", out: File::NULL, err: File::NULL) ? ["taskset", "-c", cpu] : []

times = Hash.new { |h, k| h[k] = [] }
rounds.times do
  cells = builds.keys.product(clocks, workloads) + workloads.map { |w| ["none", "none", w] }
  cells.shuffle.each do |build, clock, work|
    lib = builds.fetch(build, builds["after"])
    out = IO.popen(envs[build], [*pin, RbConfig.ruby, "-I", lib, __FILE__, "--one", clock, work, repeat], &:read)
    abort "#{build} #{clock} #{work} failed" unless $?.success?
    times[[build, clock, work]] << Float(out)
  end
end

median = ->(a) { a.sort[a.size / 2] }
bare = workloads.to_h { |w| [w, median[times[["none", "none", w]]]] }
puts "median of #{rounds} rounds (each the fastest of #{repeat} runs), seconds (× no profiler)"
names = paths ? ["VM reads", "public API"] : %w[before after]
printf "%-16s %-11s %17s %17s %7s\n", "clock", "workload", *names, "ratio"
clocks.product(workloads).each do |clock, w|
  b = median[times[["before", clock, w]]]
  a = median[times[["after", clock, w]]]
  printf "%-16s %-11s %8.3f (%6.2f×) %8.3f (%6.2f×) %7.3f\n", clock, w, b, b / bare[w], a, a / bare[w], a / b
end
workloads.each { |w| printf "%-16s %-11s %8.3f\n", "no profiler", w, bare[w] }

# One measurement in a fresh process:
#   ruby -Ilib -Itmp/bench/floor bench/run_one.rb CONFIG WORKLOAD [REPEAT]
# Runs the workload once under the configuration to warm up (method caches,
# lazy requires, heap growth, the profiler's own first-use costs), then
# times REPEAT more runs (default 1; bench/run.rb passes BENCH_REPEAT), each
# after a full GC, and keeps the fastest: noise on a shared machine only
# ever adds time. Prints one JSON
# line: {"seconds": s} or {"missing": library} when a peer profiler is not
# installed.
require "json"
require_relative "configs"
require_relative "workloads"

config_name, workload_name, repeat = ARGV
abort "usage: run_one.rb CONFIG WORKLOAD [REPEAT]" unless workload_name
repeat = Integer(repeat || "1")
config = Configs.fetch(config_name)

begin
  require config.library if config.library
rescue LoadError
  raise unless config.peer

  puts JSON.generate("missing" => config.library)
  exit
end

work = Workloads.load(workload_name)
config.wrap.call(work)
seconds = Array.new(repeat) do
  GC.start # every timed run starts from the same heap state
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  config.wrap.call(work)
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end.min
puts JSON.generate("seconds" => seconds)

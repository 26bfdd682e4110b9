# One measurement in a fresh process:
#   ruby -Ilib -Itmp/bench/floor bench/run_one.rb CONFIG WORKLOAD
# Runs the workload once under the configuration to warm up (method caches,
# lazy requires, heap growth, the profiler's own first-use costs), then
# collects garbage and times one more run. Prints one JSON line: {"seconds": s} or
# {"missing": library} when a peer profiler is not installed.
require "json"
require_relative "configs"
require_relative "workloads"

config_name, workload_name = ARGV
abort "usage: run_one.rb CONFIG WORKLOAD" unless workload_name
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
GC.start # the timed run starts from the same heap state in every process
started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
config.wrap.call(work)
seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
puts JSON.generate("seconds" => seconds)

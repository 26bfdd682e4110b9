# Memory and result-building cost of a big profile, in a fresh process:
#   ruby -Ilib bench/memory.rb CALLS METHODS
# Defines METHODS distinct leaf methods called from METHODS/100 group
# methods, makes about CALLS calls to them under Tracegraph (:wall, C calls
# on), and reports peak RSS (VmHWM) growth over the unprofiled program's
# peak, and the time of stop, to_json and (when the Profile has it) to_dot.
# Prints one JSON line.
require "json"
require "tracegraph"

calls, method_count = ARGV.map { |arg| Integer(arg) }
abort "usage: memory.rb CALLS METHODS" unless method_count

def peak_rss_kb = File.read("/proc/self/status")[/^VmHWM:\s+(\d+)/, 1].to_i

def seconds
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

# Generated source rather than define_method: plain Ruby methods, the
# common case, and a body of direct calls with no send or block per call.
module Callees; end
groups = method_count.fdiv(100).ceil
source = Array.new(method_count) { |i| "def m#{i} = nil" }
groups.times do |g|
  leaves = (g * 100...[(g + 1) * 100, method_count].min).map { |i| "m#{i}" }
  source << "def g#{g}\n#{leaves.join("\n")}\nend"
end
source << "def sweep\n#{Array.new(groups) { |g| "g#{g}" }.join("\n")}\nend"
Callees.module_eval(source.join("\n"))
Callees.extend(Callees)

sweeps = (calls.fdiv(method_count + groups + 1)).ceil
run = -> { sweeps.times { Callees.sweep } }
run.call # warm-up, so the before figure includes the program's own peak
result = {"unprofiled_s" => seconds(&run)}

before = peak_rss_kb
Tracegraph.start(clock: :wall, c_calls: true)
result["profiled_s"] = seconds(&run)
result["while_profiling_kb"] = peak_rss_kb - before
profile = nil
result["stop_s"] = seconds { profile = Tracegraph.stop }
result["after_stop_kb"] = peak_rss_kb - before
json = nil
result["to_json_s"] = seconds { json = profile.to_json }
result["json_bytes"] = json.bytesize
if profile.respond_to?(:to_dot)
  result["to_dot_s"] = seconds { profile.to_dot }
end
result["after_output_kb"] = peak_rss_kb - before
result["profiled_calls"] = profile.total_calls
result["profiled_methods"] = profile.methods.size
result["edges"] = profile.edges.size
puts JSON.generate(result)

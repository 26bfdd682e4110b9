# What the correction leaves in, per kind of call, in nanoseconds (issue
# #44): for each loop of bench/accuracy_workloads.rb's CallKinds (200,000
# calls of one kind: a plain method, define_method, send, method_missing,
# super, attr_reader, a C method that yields, Class#new), the profile's
# total time less the same loop's time without a profiler, over its calls.
# 0 is a kind whose tracing cost is all taken out; +30 ns is 30 ns a call
# left in (the kind costs Ruby more under tracing than the calibration's
# loops measured), so its callers read that much too long.
#
# bench:accuracy's per-kind table reads shares, which a cost left in every
# kind alike does not move; this reads the time itself. Each of PROCESSES
# fresh processes (3) times each loop unprofiled (the median of 7 runs)
# and profiled (the median of 5 profiles, after a first profile that
# calibrates); each cell is the median over the processes, and its range.
# Writes bench/CALL_KINDS.md. Run it with nothing else running.
#
#   ruby -Ilib bench/call_kind_costs.rb
require "json"
require "rbconfig"
require_relative "report_header"

PROCESSES = Integer(ENV.fetch("PROCESSES", "3"))
LIB = File.expand_path("../lib", __dir__)
OUT = ENV.fetch("CALL_KINDS_OUT", File.expand_path("CALL_KINDS.md", __dir__))

CHILD = <<~'RUBY'
  require_relative ARGV[0]
  require "tracegraph"
  require "json"
  kinds = AccuracyWorkloads::CallKinds
  now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) }
  median = ->(values) { values.sort[values.size / 2] }
  Tracegraph.profile { kinds.plain_calls } # the calibration, once
  rows = kinds::KINDS.to_h do |kind|
    kinds.send(kind) # warm
    plain = median.(Array.new(7) { GC.start; t = now.(); kinds.send(kind); now.() - t })
    profiles = Array.new(5) { GC.start; Tracegraph.profile { kinds.send(kind) } }.sort_by(&:total_time)
    profile = profiles[profiles.size / 2]
    [kind, {"plain_ns" => plain, "profiled_ns" => profile.total_time, "removed_ns" => profile.tracing_cost.removed}]
  end
  puts JSON.generate("calls" => kinds::N, "rows" => rows)
RUBY

def median(values) = values.sort[values.size / 2]

workloads = File.expand_path("accuracy_workloads.rb", __dir__)
runs = Array.new(PROCESSES) do |i|
  warn "bench: call kinds, process #{i + 1} of #{PROCESSES}"
  out = IO.popen([RbConfig.ruby, "-I#{LIB}", "-e", CHILD, workloads], &:read)
  raise "bench: a child process failed" unless $?.success?

  JSON.parse(out)
end
calls = runs.first["calls"]
kinds = runs.first["rows"].keys
per_call = ->(kind, &value) { runs.map { |run| value.(run["rows"][kind]).fdiv(calls) } }
cell = lambda do |values, sign: false|
  shown = ->(v) { format(sign ? "%+.1f" : "%.1f", v) }
  "#{shown.(median(values))} (#{shown.(values.min)} to #{shown.(values.max)})"
end
rows = kinds.map do |kind|
  left = per_call.(kind) { |r| r["profiled_ns"] - r["plain_ns"] }
  ["CallKinds.#{kind}", cell.(per_call.(kind) { |r| r["plain_ns"] }), cell.(per_call.(kind) { |r| r["removed_ns"] }),
   "**#{cell.(left, sign: true)}**"]
end
header = ReportHeader.lines(File.expand_path("..", __dir__),
                            "`rake bench:call_kinds` (`bench/call_kind_costs.rb`), #{PROCESSES} fresh processes")
report = <<~MD
  # What the correction leaves in, per kind of call

  #{header.chomp}

  Per call of the kind (#{calls} calls a loop, each loop a block calling
  one method of its kind): its time unprofiled, what the profile took
  out, and what it left in (the profile's total less the unprofiled
  time). The median over the processes, and its range; a few ns either
  way is this machine's noise.

  | loop | unprofiled, ns a call | taken out, ns a call | left in, ns a call |
  | --- | --- | --- | --- |
  #{rows.map { |r| "| #{r.join(' | ')} |" }.join("\n")}
MD
puts report
File.write(OUT, report)
warn "bench: wrote #{OUT}"

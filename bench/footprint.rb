# What an event costs the program where the hook cannot time it (issue
# #44), counted by callgrind instead of timed, so that one run is the next
# whatever else the machine runs.
#
# The correction takes out what the calibration's loops measured, plus
# what the hook's own time, sampled while recording, exceeds it by. In a
# real program that leaves 10-50% of the profile's total in: the part of
# an event's cost that falls outside the hook, in the VM's code around it
# and in the program's own, which the hook's cache traffic slows. This
# counts it. Each workload runs in three processes under valgrind
# (--tool=callgrind --cache-sim=yes --branch-sim=yes), counting only the
# workload's own runs (bench/footprint/collect.c switches counting on and
# off around them): without a profiler; under the floor (an empty C hook
# on the same events that reads the TSC: bench/floor), whose excess is
# the VM's side of each event; and under tracegraph with c_calls: false
# (the floor traces the same events then), whose excess beyond the
# floor's is its own, split by where the code ran: in tracegraph.so (the
# hook, which times itself) and elsewhere (libruby and libc: the VM and
# the program, which nothing times).
#
# The workloads: a loop calling an empty method, as the calibration's
# loops do; CodeRay highlighting Ruby's optparse library (Debian's
# ruby-coderay); and REXML parsing and writing a 140 KB document
# (bench:accuracy's, each skipped where absent);
# WORKLOADS=loop,coderay,rexml,kinds. Per event: instructions,
# L1 instruction-cache misses, L1 data-cache misses, and mispredicted
# branches, as callgrind's simulated caches (the machine's sizes) and
# predictor count them; they show where the costs are, not what they cost
# in ns.
#
# `kinds`: issue #44 asks whether Ruby pays more for some kinds of call
# than for the calibration's plain ones. Each loop of bench:accuracy's
# CallKinds (a plain method, define_method, send, method_missing, super,
# attr_reader, ...; CALL_KINDS=plain_calls,super_calls for some) runs
# without a profiler and under tracegraph with its default options, and
# the report gives, per recorded event, what tracegraph added outside its
# hook (the VM's side of each event; in these small loops nothing misses
# a cache) and in it. Not against the floor: the floor's C-call hook
# makes Ruby run the operators in method_missing's and the `$~` loop as
# calls, which tracegraph does not.
#
# Writes bench/FOOTPRINT.md (FOOTPRINT_OUT). QUICK=1: shorter runs.
#
#   ruby -Ilib bench/footprint.rb
require "json"
require "open3"
require "rbconfig"
require "tmpdir"
require_relative "accuracy_workloads"
require_relative "extension_build"
require_relative "floor/build"
require_relative "footprint/callgrind_costs"
require_relative "report_header"

ROOT = File.expand_path("..", __dir__)
LIB = File.join(ROOT, "lib")
BUILD = File.join(ROOT, "tmp/bench/footprint")
OUT = ENV.fetch("FOOTPRINT_OUT", File.join(__dir__, "FOOTPRINT.md"))
WORKLOADS = ENV.fetch("WORKLOADS", "loop,coderay,rexml,kinds").split(",")
MODES = %w[plain floor tracegraph].freeze
KIND_MODES = %w[plain tracegraph].freeze
CALL_KINDS = ENV.fetch("CALL_KINDS", AccuracyWorkloads::CallKinds::KINDS.join(",")).split(",")
RUNS = 2
COUNTS = {"Ir" => "instructions", "I1mr" => "L1i misses", "D1" => "L1d misses", "mispredicts" => "mispredicts"}.freeze

CHILD = <<~'RUBY'
  require "tracegraph"
  require "tracegraph_bench_floor"
  require "tracegraph_bench_collect"
  require "json"
  mode, workload, runs, root = ARGV[0], ARGV[1], Integer(ARGV[2]), ARGV[3]
  quick = ENV["QUICK"] == "1" # inherited: accuracy_workloads reads it too
  kind = workload[/\Akind:(\w+)\z/, 1]
  kind_calls = nil
  work =
    if kind
      require File.join(root, "bench/accuracy_workloads")
      kinds = AccuracyWorkloads::CallKinds
      kind_calls = kinds::N
      -> { kinds.send(kind) }
    elsif workload == "loop"
      calls = quick ? 20_000 : 200_000
      subject = Object.new
      def subject.empty = nil
      -> { i = 0; (subject.empty; i += 1) while i < calls }
    else
      require File.join(root, "bench/accuracy_workloads")
      setup = AccuracyWorkloads.const_get(workload.capitalize).setup
      if setup.is_a?(String)
        puts JSON.generate("skipped" => setup)
        exit
      end
      setup
    end
  options = kind ? {} : {c_calls: false} # a kind's calls may be C calls: the default options
  work.() # warm
  Tracegraph.profile(**options) { nil } # the calibration, uncounted
  events = 0
  counted = -> { TracegraphBenchCollect.toggle; work.(); TracegraphBenchCollect.toggle }
  runs.times do
    case mode
    when "plain" then counted.()
    when "floor"
      TracegraphBenchFloor.start(:tsc, false, true)
      counted.()
      TracegraphBenchFloor.stop
      Tracegraph._untrace # the floor leaves Ruby's instructions traced: the next run starts as the first
    when "tracegraph"
      profile = Tracegraph.profile(**options, &counted)
      # Not the collector's boxes, nor the counting switch (a C call).
      events += profile.methods.sum { |m| m.name.start_with?("(", "TracegraphBenchCollect") ? 0 : 2 * m.calls }
    end
  end
  puts JSON.generate("events" => events, "calls" => kind_calls && kind_calls * runs)
RUBY

def missing_tool
  return "valgrind is not installed (apt-get install valgrind)" unless system("valgrind", "--version", out: File::NULL, err: File::NULL)
  return "valgrind/callgrind.h is missing (apt-get install valgrind)" unless File.exist?("/usr/include/valgrind/callgrind.h")

  nil
end

def build
  FloorBuild.into(File.join(BUILD, "floor"))
  ExtensionBuild.into(File.join(BUILD, "collect"), File.join(__dir__, "footprint/extconf.rb"))
end

# One process under callgrind: its costs by object, and what it printed.
def counted(mode, workload, dir)
  out_file = File.join(dir, "callgrind.#{workload}.#{mode}")
  command = ["valgrind", "-q", "--tool=callgrind", "--collect-atstart=no", "--cache-sim=yes", "--branch-sim=yes",
             "--callgrind-out-file=#{out_file}", RbConfig.ruby, "-I#{LIB}", "-I#{File.join(BUILD, 'floor')}",
             "-I#{File.join(BUILD, 'collect')}", "-e", CHILD, mode, workload, RUNS.to_s, ROOT]
  out, err, status = Open3.capture3(*command)
  raise "bench: #{workload} under #{mode} failed:\n#{err.lines.last(20).join}" unless status.success?

  said = JSON.parse(out.lines.last)
  [said, said["skipped"] ? nil : CallgrindCosts.by_object(out_file)]
end

# The four counts of one object's costs, or of all of them.
def four(costs)
  sum = ->(*names) { names.sum { |name| costs.fetch(name, 0) } }
  {"Ir" => sum.("Ir"), "I1mr" => sum.("I1mr"), "D1" => sum.("D1mr", "D1mw"), "mispredicts" => sum.("Bcm", "Bim")}
end

def added(sum, part) = sum.merge(part) { |_, a, b| a + b }

# The four counts in tracegraph's extension (the hook), and in all else.
def hook_and_rest(by_object)
  hook = four(by_object.fetch("tracegraph.so", {}))
  rest = by_object.reject { |name, _| name == "tracegraph.so" }.values.map { |c| four(c) }.reduce { |a, b| added(a, b) }
  {hook: hook, rest: rest}
end

def per_event(a, b, events) = COUNTS.keys.to_h { |k| [k, (a[k] - b[k]).fdiv(events)] }

def measure(workload, dir)
  said = {}
  costs = MODES.to_h do |mode|
    warn "bench: footprint of #{workload}, #{mode}"
    said[mode], by_object = counted(mode, workload, dir)
    return said[mode]["skipped"] if by_object.nil?

    [mode, hook_and_rest(by_object)]
  end
  events = said["tracegraph"]["events"]
  total = ->(mode) { added(costs[mode][:hook], costs[mode][:rest]) }
  {events: events / RUNS, vm: per_event(total.("floor"), total.("plain"), events),
   hook: per_event(costs["tracegraph"][:hook], costs["floor"][:hook], events),
   elsewhere: per_event(costs["tracegraph"][:rest], costs["floor"][:rest], events)}
end

# One loop of CallKinds, unprofiled and under tracegraph (the header says
# why not against the floor).
def measure_kind(kind, dir)
  said = {}
  costs = KIND_MODES.to_h do |mode|
    warn "bench: footprint of #{kind}, #{mode}"
    said[mode], by_object = counted(mode, "kind:#{kind}", dir)
    [mode, hook_and_rest(by_object)]
  end
  events = said["tracegraph"]["events"]
  {events_per_call: events.fdiv(said["tracegraph"]["calls"]),
   outside: per_event(costs["tracegraph"][:rest], costs["plain"][:rest], events),
   hook: per_event(costs["tracegraph"][:hook], costs["plain"][:hook], events)}
end

if (why = missing_tool)
  warn "bench: footprint skipped: #{why}"
  exit
end
unknown = CALL_KINDS - AccuracyWorkloads::CallKinds::KINDS.map(&:to_s)
abort "bench: CALL_KINDS: no loop #{unknown.join(', ')} (the loops: #{AccuracyWorkloads::CallKinds::KINDS.join(', ')})" unless unknown.empty?
build
programs = WORKLOADS - ["kinds"]
rows, kind_rows = Dir.mktmpdir("tracegraph-footprint") do |dir|
  [programs.to_h { |w| [w, measure(w, dir)] },
   WORKLOADS.include?("kinds") ? CALL_KINDS.to_h { |kind| [kind, measure_kind(kind, dir)] } : {}]
end
cells = ->(counts) { COUNTS.keys.map { |k| format("%.1f", counts[k]) }.join(" / ") }
lines = rows.map do |workload, row|
  next "| #{workload} | skipped: #{row} | | | |" if row.is_a?(String)

  "| #{workload} | #{row[:events]} | #{cells.(row[:vm])} | #{cells.(row[:hook])} | **#{cells.(row[:elsewhere])}** |"
end
kind_lines = kind_rows.map do |kind, row|
  "| #{kind} | #{format('%.1f', row[:events_per_call])} | **#{cells.(row[:outside])}** | #{cells.(row[:hook])} |"
end
programs_table = <<~MD unless rows.empty?

  Per event of a run (`c_calls: false`, the mean over #{RUNS} runs), as
  #{COUNTS.values.join(' / ')},
  from callgrind's simulated caches and
  branch predictor: what the floor (an empty C hook reading the TSC)
  adds to the run unprofiled, which is the VM's side of each event; and
  what tracegraph adds beyond the floor, in its hook (the part it times
  itself) and elsewhere, in the VM's and the program's code, which no
  one times: the cost its correction cannot see.

  | workload | events a run | the VM's side | tracegraph's hook | **tracegraph, elsewhere** |
  | --- | ---: | --- | --- | --- |
  #{lines.join("\n")}
MD
kinds_table = <<~MD unless kind_rows.empty?

  ## By kind of call

  Each loop of bench:accuracy's `CallKinds` (#{AccuracyWorkloads::CallKinds::N} calls of one kind,
  each from a block), unprofiled and under tracegraph with its default
  options. Per event tracegraph records (a call or return of a method or
  block; a `define_method` method's body is its method's frame, and its
  own two block events are not counted), as
  #{COUNTS.values.join(' / ')}: what tracegraph adds outside its hook,
  which in loops this small is the VM's side of the event, and in its
  hook. The calibration times a Ruby call, a C call and a block; a kind
  that cost the VM more an event would show here.

  | loop | events a call | **outside the hook** | tracegraph's hook |
  | --- | ---: | --- | --- |
  #{kind_lines.join("\n")}
MD
report = <<~MD
  # Where an event's cost falls, counted

  #{ReportHeader.lines(ROOT, '`rake bench:footprint` (`bench/footprint.rb`), under valgrind\'s callgrind').chomp}
  #{programs_table}#{kinds_table}
MD
puts report
File.write(OUT, report)
warn "bench: wrote #{OUT}"

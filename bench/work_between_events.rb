# Whether the hook slows the program's own work between its events (issue
# #44): the cost the calibration cannot see, because it depends on the
# work, not on the events.
#
# Five loops each call one method 200,000 times: an empty one, one that
# matches a regexp with =~ (setting $~), one that calls Regexp#match?, one
# that calls String#upcase and one that allocates an empty Array. With
# c_calls: false each call is the same two events (the method's call and
# return); only the work inside differs. Each loop is timed without a
# profiler, under the floor (an empty C hook on the same events that reads
# the TSC: bench/floor), and under tracegraph, whose raw time is its total
# plus what it took out, with its default gc: true and with gc: false.
# The two differ by what the collector's event hooks cost: on Ruby 3.1
# any of them sends every allocation down the collector's slow path
# (gc.c, newobj_of: gc_event_hook_available_p), where 3.3 and later check
# for an allocation hook only.
# What an event costs the floor or tracegraph is the same in every loop;
# what a loop's cost exceeds the empty loop's by is what the hook did to
# the work itself. The floor's excess is the VM's; tracegraph's beyond
# that is its own hook's (its code and tables, in the caches the work
# wants). The corrected column is what is left in after the correction.
#
# Each of PROCESSES fresh processes (3, pinned to the last CPU where
# taskset exists) takes, per loop and per way, the fastest of 7 runs taken
# in turns; each cell is the median over the processes. Writes
# bench/WORK_BETWEEN_EVENTS.md (WORK_BETWEEN_OUT). Run it with nothing
# else running.
#
#   ruby -Ilib bench/work_between_events.rb
require "etc"
require "json"
require "rbconfig"
require_relative "floor/build"
require_relative "report_header"

PROCESSES = Integer(ENV.fetch("PROCESSES", "3"))
ROOT = File.expand_path("..", __dir__)
LIB = File.join(ROOT, "lib")
FLOOR_DIR = File.join(ROOT, "tmp/bench/floor-work-between") # its own: rake bench builds tmp/bench/floor
OUT = ENV.fetch("WORK_BETWEEN_OUT", File.join(__dir__, "WORK_BETWEEN_EVENTS.md"))
CALLS = ENV["QUICK"] == "1" ? 20_000 : 200_000

CHILD = <<~'RUBY'
  require "tracegraph"
  require "tracegraph_bench_floor"
  require "json"
  class Work
    def empty(_text) = nil
    def last_match(text) = /z/ =~ text
    def match_p(text) = /z/.match?(text)
    def upcase(text) = text.upcase
    def allocate(_text) = []
  end
  LOOPS = %i[empty last_match match_p upcase allocate].freeze
  OBJ = Work.new
  TEXT = "abcdefgh" * 4
  LOOPS.each do |name|
    Object.class_eval("def loop_#{name}(n) = (i = 0; (OBJ.#{name}(TEXT); i += 1) while i < n)", __FILE__, __LINE__)
  end
  calls = Integer(ARGV[0])
  now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) }
  options = {c_calls: false}
  LOOPS.each { |name| send(:"loop_#{name}", calls) } # warm
  Tracegraph.profile(**options) { loop_empty(1_000) } # the calibrations, once each
  Tracegraph.profile(**options, gc: false) { loop_empty(1_000) }
  times = Hash.new { |h, k| h[k] = [] }
  7.times do
    LOOPS.each do |name|
      loop = :"loop_#{name}"
      GC.start
      t = now.()
      send(loop, calls)
      times[[name, "plain"]] << now.() - t
      GC.start
      TracegraphBenchFloor.start(:tsc, false, true)
      t = now.()
      send(loop, calls)
      times[[name, "floor"]] << now.() - t
      TracegraphBenchFloor.stop
      GC.start
      profile = Tracegraph.profile(**options) { send(loop, calls) }
      times[[name, "corrected"]] << profile.total_time
      times[[name, "raw"]] << profile.total_time + profile.tracing_cost.removed
      GC.start
      profile = Tracegraph.profile(**options, gc: false) { send(loop, calls) }
      times[[name, "raw_no_gc"]] << profile.total_time + profile.tracing_cost.removed
    end
  end
  ways = %w[plain floor raw raw_no_gc corrected]
  rows = LOOPS.to_h { |name| [name, ways.to_h { |way| [way, times[[name, way]].min.fdiv(calls)] }] }
  puts JSON.generate("calls" => calls, "rows" => rows)
RUBY

def median(values) = values.sort[values.size / 2]

FloorBuild.into(FLOOR_DIR)
cpu = (Etc.nprocessors - 1).to_s
pin = system("taskset", "-c", cpu, "true", out: File::NULL, err: File::NULL) ? ["taskset", "-c", cpu] : []
runs = Array.new(PROCESSES) do |i|
  warn "bench: work between events, process #{i + 1} of #{PROCESSES}"
  out = IO.popen([*pin, RbConfig.ruby, "-I#{LIB}", "-I#{FLOOR_DIR}", "-e", CHILD, CALLS.to_s], &:read)
  raise "bench: a child process failed" unless $?.success?

  JSON.parse(out.lines.last)
end
loops = runs.first["rows"].keys
cell = ->(loop, way) { median(runs.map { |run| run["rows"][loop][way] }) }
above = ->(loop, way) { cell.(loop, way) - cell.(loop, "plain") }
shown = ->(v) { format("%+.1f", v) }
rows = loops.map do |loop|
  beyond = ->(way) { above.(loop, way) - above.("empty", way) }
  ["Work##{loop}", format("%.1f", cell.(loop, "plain")), shown.(above.(loop, "floor")), shown.(above.(loop, "raw")),
   "**#{shown.(beyond.('raw') - beyond.('floor'))}**", shown.(above.(loop, "raw_no_gc")),
   shown.(beyond.("raw_no_gc") - beyond.("floor")), shown.(above.(loop, "corrected"))]
end
header = ReportHeader.lines(ROOT, "`rake bench:work_between_events` (`bench/work_between_events.rb`), " \
                                  "#{PROCESSES} fresh processes#{pin.empty? ? '' : ", pinned to CPU #{cpu}"}")
report = <<~MD
  # The work between events, under the hook

  #{header.chomp}

  ns a call (#{CALLS} calls a loop, `c_calls: false`: two events a call in
  every loop): the loop without a profiler, then what the floor (an empty
  C hook reading the TSC) and tracegraph (its raw time, and its time with
  tracing's cost taken out) add to it. The hook's own share of the work:
  what tracegraph's raw excess grows by beyond the empty method's, less
  what the floor's grows by (the VM's); the same with `gc: false`, whose
  hook adds no collector events. The median over the processes.

  | loop | unprofiled | floor adds | tracegraph adds, raw | the hook's own, beyond the empty method's | `gc: false` adds, raw | the hook's own, `gc: false` | left in, corrected |
  | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
  #{rows.map { |r| "| #{r.join(' | ')} |" }.join("\n")}
MD
puts report
File.write(OUT, report)
warn "bench: wrote #{OUT}"

# The profiler configurations. Each wraps a workload callable: start the
# profiler, run it, stop and build the result - everything a user pays for.
# Libraries load lazily (in run_one.rb) so the baseline process loads nothing.
module Configs
  Config = Struct.new(:name, :label, :library, :peer, :wrap, keyword_init: true)

  def self.floor(name, label, clock_id, c_calls: true, blocks: false)
    Config.new(name: name, label: label, library: "tracegraph_bench_floor", peer: false,
               wrap: lambda { |work|
                 TracegraphBenchFloor.start(clock_id, c_calls, blocks)
                 work.call
                 TracegraphBenchFloor.stop
               })
  end

  # blocks: true is tracegraph's default (a node per block); blocks:
  # false is the method-only view, listening to fewer events. gc: false
  # leaves the garbage-collection hook out. allocations: true adds the
  # allocation hook (off by default).
  def self.tracegraph(clock, c_calls, gc: true, blocks: true, allocations: false)
    Config.new(name: "tracegraph_#{clock}#{'_no_c' unless c_calls}#{'_no_gc' unless gc}#{'_no_blocks' unless blocks}" \
                     "#{'_allocations' if allocations}",
               label: "tracegraph :#{clock}#{', c_calls: false' unless c_calls}#{', gc: false' unless gc}" \
                      "#{', blocks: false' unless blocks}#{', allocations: true' if allocations}",
               library: "tracegraph", peer: false,
               wrap: lambda { |work|
                 Tracegraph.start(clock: clock, c_calls: c_calls, gc: gc, blocks: blocks, allocations: allocations)
                 work.call
                 Tracegraph.stop
               })
  end

  def self.ruby_prof(name, label, mode_name)
    Config.new(name: name, label: label, library: "ruby-prof", peer: true,
               wrap: lambda { |work|
                 profile = RubyProf::Profile.new(measure_mode: RubyProf.const_get(mode_name))
                 profile.start
                 work.call
                 profile.stop
               })
  end

  ALL = [
    Config.new(name: "baseline", label: "no profiler", library: nil, peer: false, wrap: ->(work) { work.call }),
    floor("floor_empty", "floor: empty hook", nil),
    floor("floor_empty_no_c", "floor: empty hook, call/return only", nil, c_calls: false),
    floor("floor_monotonic", "floor: hook + CLOCK_MONOTONIC", Process::CLOCK_MONOTONIC),
    # tracegraph's wall clock reads the TSC where the kernel keeps time with
    # it; this floor reads the same counter, so the gap to it is tracegraph's
    # bookkeeping alone.
    floor("floor_tsc", "floor: hook + rdtsc", :tsc),
    # The same with b_call and b_return hooked too, as tracegraph's default
    # (blocks: true) does.
    floor("floor_tsc_blocks", "floor: hook + rdtsc, block events too", :tsc, blocks: true),
    # :cpu and :thread_cpu read clocks that cost a system call here; this
    # floor shows how much of their cost is the clock alone.
    floor("floor_process_cpu", "floor: hook + CLOCK_PROCESS_CPUTIME_ID", Process::CLOCK_PROCESS_CPUTIME_ID),
    *%i[wall cpu thread_cpu].flat_map { |clock| [tracegraph(clock, true), tracegraph(clock, false)] },
    # Without the garbage-collection hook: beside tracegraph :wall, what
    # recording GC costs (the allocation workload collects most).
    tracegraph(:wall, true, gc: false),
    tracegraph(:wall, true, blocks: false),
    # With allocations counted: beside tracegraph :wall, what the NEWOBJ
    # hook costs (every allocation takes Ruby's slow path while it is
    # installed; the allocation workload shows it most).
    tracegraph(:wall, true, allocations: true),
    ruby_prof("ruby_prof_wall", "ruby-prof WALL_TIME", :WALL_TIME),
    ruby_prof("ruby_prof_process", "ruby-prof PROCESS_TIME", :PROCESS_TIME),
    Config.new(name: "stackprof_wall", label: "stackprof :wall (sampling, 1 ms)", library: "stackprof", peer: true,
               wrap: ->(work) { StackProf.run(mode: :wall, raw: false) { work.call } })
  ].freeze

  # BENCH_CONFIGS="a,b" measures only those (and the baseline).
  def self.selected
    names = ENV.fetch("BENCH_CONFIGS", "").split(",")
    return ALL if names.empty?

    names.each { |name| fetch(name) }
    ALL.select { |c| c.name == "baseline" || names.include?(c.name) }
  end

  def self.fetch(name)
    ALL.find { |c| c.name == name } or
      raise ArgumentError, "unknown config #{name.inspect} (have: #{ALL.map(&:name).join(', ')})"
  end
end

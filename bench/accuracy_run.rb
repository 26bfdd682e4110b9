# One process of bench/accuracy.rb (which starts each in a fresh `ruby`):
#
#   ruby -Ilib bench/accuracy_run.rb truth WORKLOAD RUNS
#   ruby -Ilib bench/accuracy_run.rb sampled WORKLOAD RUNS INTERVAL_US
#   ruby -Ilib bench/accuracy_run.rb profile WORKLOAD RUNS 'c_calls: false'
#
# prints one JSON line on stdout (see the modes below), or
# {"skipped": why} when the workload cannot run here (rubocop missing).
#
# Why a process each: installing a C-call hook (tracegraph with c_calls)
# permanently slows the operators Ruby inlines (Integer#+, #<, Array#[]...)
# in that process, even after the hook is removed, so a "truth" run after a
# profiled one would not be the program's true speed; and one profiler
# configuration must not slow another's runs the same way. The truth mode
# never loads tracegraph at all.
require "json"
require_relative "accuracy_workloads"
require_relative "accuracy_options"

mode, workload_name, runs, options_text = ARGV
unless %w[truth sampled profile].include?(mode) && workload_name && runs && (mode == "truth" || options_text)
  abort "usage: accuracy_run.rb truth WORKLOAD RUNS | sampled WORKLOAD RUNS INTERVAL_US | " \
        "profile WORKLOAD RUNS OPTIONS"
end
RUNS = Integer(runs)
WORKLOAD = AccuracyWorkloads.fetch(workload_name)

def now_ns = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
def cpu_ns = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
# The collector's own clock (Ruby 3.1+): the CPU time of every collection,
# lazy sweeping included. nil where Ruby has none.
def gc_ns = GC.respond_to?(:total_time) ? GC.total_time : nil

def median(values)
  sorted = values.sort
  mid = sorted.size / 2
  sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
end

work = WORKLOAD.setup.call
if work.is_a?(String)
  puts JSON.generate("skipped" => work)
  exit
end

# One unprofiled run from the same heap state (after a full collection),
# timed around the work alone: [wall ns, CPU ns, the collector's CPU ns
# (nil before Ruby 3.1)]. timed_run is its wall time.
def plain_run(work)
  GC.start
  gc = gc_ns
  cpu = cpu_ns
  started = now_ns
  work.call
  [now_ns - started, cpu_ns - cpu, gc && gc_ns - gc]
end

def timed_run(work) = plain_run(work).first

# --- truth: the program's own times, without a profiler -------------------
#
# A target's inclusive time is measured by a wrapper prepended to its owner,
# which reads the clock around the outermost calls only: the depth check
# makes a recursive call pass straight through, so its time is not counted
# twice (a profile's total_time counts it once too). The counters are
# globals because a global is the cheapest thing for the wrapper to read
# and write, and only one wrapper is installed at a time.
#
# Only one target is wrapped in a run, because a wrapper costs time itself
# and would slow the others' runs; the whole run is timed in runs of its
# own with no wrapper at all, and that is each share's denominator. The
# runs are interleaved, round by round (whole, target 1, target 2, ...), so
# that the machine's load drifting during the minute this takes moves the
# numerator and the denominator of a round alike; a round's share is its
# target's time over the same round's whole run, and the median of the
# rounds' shares is reported.
#
# Each wrapped run is timed whole too ("wrapped_run_ns"): the target's time
# over its own run's is a cross-check that the load cannot move between a
# numerator and a denominator measured a second apart, though it counts
# the wrapper's cost in the run.
#
# The part of the wrapper's own cost that falls inside the timed region
# (the second half of one clock read, the first of the other, the super
# call) is measured on an empty method (calibrate_wrapper) and subtracted,
# per outermost call; it matters only for targets called thousands of
# times (rubocop's lexer), and is reported.
$accuracy_depth = 0
$accuracy_ns = 0
$accuracy_calls = 0

WRAPPER = <<~'RUBY'
  def %<name>s(...)
    return super(...) if $accuracy_depth > 0 # an inner, recursive call: not timed again

    $accuracy_depth = 1
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
    begin
      super(...)
    ensure
      $accuracy_ns += Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - started
      $accuracy_calls += 1
      $accuracy_depth = 0
    end
  end
RUBY

# A module prepended to the target's owner (once: a module cannot be taken
# out again), in which the wrapper is defined for a run and removed after
# it. Empty, it costs nothing: calls resolve past it to the method and are
# cached there.
class Wrapper
  def initialize(target)
    owner_name, kind, @method = target.match(/\A(.+?)([#.])([^#.]+)\z/)&.captures
    raise ArgumentError, "#{target.inspect} is not Class#method or Class.method" unless @method

    owner = Object.const_get(owner_name)
    owner = owner.singleton_class if kind == "."
    unless owner.method_defined?(@method) || owner.private_method_defined?(@method)
      raise ArgumentError, "#{target} is not defined"
    end

    @module = Module.new
    owner.prepend(@module)
  end

  # Runs the block with the wrapper installed; returns [nanoseconds in the
  # outermost calls, their number].
  def measure
    $accuracy_ns = 0
    $accuracy_calls = 0
    @module.module_eval(format(WRAPPER, name: @method), __FILE__, __LINE__)
    begin
      yield
    ensure
      @module.send(:remove_method, @method)
    end
    [$accuracy_ns, $accuracy_calls]
  end
end

class Calibration
  def empty = nil
end

# Nanoseconds the wrapper adds inside its own timed region per outermost
# call: its time around an empty method, the median of 7 batches.
def calibrate_wrapper
  wrapper = Wrapper.new("Calibration#empty")
  object = Calibration.new
  calls = 100_000
  per_call = Array.new(7) do
    ns, = wrapper.measure do
      i = 0
      while i < calls
        object.empty
        i += 1
      end
    end
    ns.fdiv(calls)
  end
  median(per_call)
end

def truth(work)
  work.call # warm up: lazy requires, method caches, the heap's growth
  wrappers = WORKLOAD.targets.to_h { |t| [t, Wrapper.new(t)] } # after: rubocop loads parts as it runs
  wrapper_ns = calibrate_wrapper
  whole = []
  whole_cpu = []
  whole_gc = []
  targets = WORKLOAD.targets.to_h { |t| [t, {"inclusive_ns" => [], "calls" => [], "shares" => [], "wrapped_run_ns" => []}] }
  RUNS.times do
    wall, cpu, gc = plain_run(work)
    whole << wall
    whole_cpu << cpu
    whole_gc << gc
    wrappers.each do |target, wrapper|
      GC.start
      started = now_ns
      ns, calls = wrapper.measure { work.call }
      row = targets[target]
      row["wrapped_run_ns"] << now_ns - started
      row["inclusive_ns"] << ns
      row["calls"] << calls
      row["shares"] << [ns - (calls * wrapper_ns), 0].max.fdiv(whole.last)
    end
  end
  {"whole_ns" => whole, "whole_cpu_ns" => whole_cpu, "whole_gc_ns" => (whole_gc unless whole_gc.include?(nil)),
   "wrapper_ns" => wrapper_ns, "targets" => targets}
end

# --- sampled: the program under stackprof, for the sampled truth ----------
#
# RUNS sampled runs (stackprof in wall mode every INTERVAL_US, raw), each
# before a plain run, interleaved as the truth's are: the plain runs'
# median CPU time against the sampled runs' is what sampling cost, per
# sample ("cost_us", never below 0), which bench/accuracy_sampling.rb takes
# out. Plain runs are timed around the work alone, as the sampled ones
# are (a GC.start inside would read as sampling saving time). The sampled
# run comes first, after the warm-up, so that it is the run each fresh
# profile is: the program's second (jekyll's third run
# writes over the files of its second, and checks them, five times slower).
# Each run's samples become inclusive times per method name there; they
# are added up over the runs. tracegraph is never loaded.
def accuracy_sampled_run(work) = work.call

def sampled(work, interval)
  begin
    require "stackprof"
  rescue LoadError
    return {"skipped" => "stackprof is not installed (apt-get install ruby-stackprof)"}
  end
  require_relative "accuracy_sampling"
  work.call # warm up
  plain = []
  sampled_ns = []
  runs = []
  plain_cpu = []
  sampled_cpu = []
  RUNS.times do
    GC.start
    started = ended = nil
    # timed inside the block: stopping stackprof and building its results
    # (tens of ms for a big program) are not the run, nor its last sample's
    result = StackProf.run(mode: :wall, interval: interval, raw: true) do
      cpu = cpu_ns
      started = now_ns
      accuracy_sampled_run(work)
      ended = now_ns
      sampled_cpu << cpu_ns - cpu
    end
    sampled_ns << ended - started
    runs << AccuracySampling.inclusive(result, ended / 1000)
    result = nil # its samples would be marked by every collection of the plain run
    wall, cpu, = plain_run(work)
    plain << wall
    plain_cpu << cpu
  end
  frames = Hash.new { |h, k| h[k] = [0, 0] }
  runs.each { |r| r["frames"].each { |name, (us, n)| frames[name][0] += us; frames[name][1] += n } }
  samples = runs.sum { |r| r["samples"] }
  gc_samples = runs.sum { |r| r["gc_samples"] }
  stacked = [samples - gc_samples, 1].max.fdiv(RUNS)
  # in CPU time, which the other processes on the machine move far less
  # than the wall clock (a wall-clock difference of two runs under load
  # read 90-250 µs a sample on jekyll, and took out most of its time)
  cost_us = [(median(sampled_cpu) - median(plain_cpu)) / 1000.0 / stacked, 0].max
  {"interval" => interval, "plain_ns" => plain, "sampled_ns" => sampled_ns, "cost_us" => cost_us,
   "plain_cpu_ns" => plain_cpu, "sampled_cpu_ns" => sampled_cpu,
   "frames" => frames, "us" => runs.sum { |r| r["us"] }, "samples" => samples,
   "gc_us" => runs.sum { |r| r["gc_us"] }, "gc_samples" => gc_samples}
end

# --- profile: the same program under Tracegraph.profile(**options) ---------
#
# Each run's share of a target is profile[target].total_time (inclusive,
# counted once under recursion) over profile.total_time, and its time is the
# whole Tracegraph.profile call (start, the workload, stop and building the
# Profile, as `rake bench` times it). A target missing from the profile
# has no share (null). "methods" has every method's share and calls, per
# run, for the sampled truth's comparisons; bench/accuracy.rb runs this
# with RUNS 1 in five processes for the spread from one profile to the next.
# "gc_ns" is the collector's own clock over each profiled run (nil before
# Ruby 3.1): how much collecting that run did, which the heap it started
# from decides, and the collector's truth is measured against.
def profile(work, options_text)
  require "tracegraph"
  options = AccuracyOptions.parse(options_text)
  work.call # warm up, unprofiled
  begin
    Tracegraph.profile(**options) {} # only to see whether this tracegraph takes these options
  rescue ArgumentError => e
    return {"unsupported" => e.message}
  end
  seconds = []
  totals = []
  shares = WORKLOAD.targets.to_h { |t| [t, []] }
  methods = []
  gc_times = []
  RUNS.times do
    GC.start
    gc = nil
    started = now_ns
    # the collector's clock read inside the block: what stop and building
    # the Profile collect is no part of the run (rubocop's: a third of it)
    result = Tracegraph.profile(**options) do
      gc = gc_ns
      work.call
      gc &&= gc_ns - gc
    end
    seconds << (now_ns - started) / 1e9
    gc_times << gc
    totals << result.total_time
    total = result.total_time.to_f
    shares.each { |target, list| list << (result[target] && result[target].total_time / total) }
    methods << method_shares(result)
  end
  {"seconds" => seconds, "totals_ns" => totals, "shares" => shares, "methods" => methods,
   "gc_ns" => (gc_times unless gc_times.include?(nil))}
end

# Every method's [share, calls] in a profile, by name (the report compares
# those whose true share is 2% or more). A name
# that is several boxes (an iterator split by its callers) adds them up.
def method_shares(result)
  total = result.total_time.to_f
  by_name = Hash.new { |h, k| h[k] = [0, 0] }
  result.methods.each do |m|
    row = by_name[m.name]
    row[0] += m.total_time
    row[1] += m.calls
  end
  by_name.filter_map { |name, (ns, calls)| [name, [ns / total, calls]] if ns.positive? }.to_h
end

result =
  case mode
  when "truth" then truth(work)
  when "sampled" then sampled(work, Integer(options_text))
  else profile(work, options_text)
  end
puts JSON.generate(result)

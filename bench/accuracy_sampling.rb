# The sampled truth of bench/accuracy.rb: each method's inclusive share of
# a run, from stackprof's wall-clock samples (Debian's ruby-stackprof), for
# methods called too often for a wrapper to time them (a wrapper's own
# cost, about 1 µs a call, lands inside the method it times).
#
# stackprof's sample counts alone are not the time. A signal that comes
# while the last sample is still waiting to be recorded (at the VM's next
# interrupt check) is dropped, so a long C call that checks no interrupts
# (Array#sort of 20,000 floats) is one sample however long it runs: counted
# so, the blocks workload's sort read 1% of the run against a timed 52%.
# So each sample weighs the time from its capture to the next one's
# (raw_sample_timestamps), which holds what ran under that stack. And
# each sample costs the program time itself (the signal, the stack walk,
# the recording: about 50 µs of CPU a sample on this 2-core VM, half of
# a run at 100 µs intervals), inside that same gap: bench/accuracy_run.rb
# measures that cost per sample (sampled runs' CPU time against plain
# ones') and the report takes it out of every sample, as tracegraph takes
# out tracing's cost. bench/accuracy.rb samples every 250 µs by default,
# so that the cost is about a fifth of the run and an error in it smaller.
#
# The garbage collector's samples carry no Ruby stack in stackprof; the
# collection ran on behalf of the code that allocated, which resumes after
# it, so their time goes to the stack of the next sample that has one (as
# tracegraph puts "(garbage collection)" under the methods that set it off).
#
# They are not the truth of tracegraph's "(garbage collection)" box:
# stackprof records a collection's samples after it ends, all with the
# same timestamp, so the collection's time is in the gap of the sample
# before it, and its own samples weigh next to nothing (REXML, in
# bench/ACCURACY.md of 2026-12-04: 14.4% of the run by samples, 17.2% by
# the collector's clock). The box's truth is
# the collector's own clock, GC.total_time (the CPU time of every
# collection, lazy sweeping included), over the CPU time of the truth's
# unprofiled runs (bench/accuracy.rb, gc_clock_share).
module AccuracySampling
  GC_FRAMES = ["(garbage collection)", "(marking)", "(sweeping)"].freeze
  # Frames that are the harness's, not the workload's: everything up to
  # and including this method of bench/accuracy_run.rb, the Method#call or
  # Proc#call right under it, and the callable it calls (the whole run, at
  # 100%; stackprof on Ruby 3.1 names a block's frame by its method, so a
  # workload's lambda reads as the setup method that made it).
  HARNESS = "Object#accuracy_sampled_run"
  CALLS = ["Method#call", "Proc#call"].freeze

  # One stackprof result (raw: true) of a run that ended at ended_us
  # (CLOCK_MONOTONIC, µs, the clock of stackprof's timestamps):
  # {"frames" => {name => [µs, samples]}, "us" => total µs, "samples" =>,
  # "gc_us" =>, "gc_samples" =>}. A name counts once per sample, however
  # often it is on the stack (as a profile's total_time counts recursion).
  def self.inclusive(result, ended_us)
    names = result[:frames].transform_values { |f| f[:name] }
    stacks = expand(result[:raw], names)
    times = result[:raw_sample_timestamps]
    raise "stackprof: #{stacks.size} stacks, #{times.size} timestamps" unless stacks.size == times.size

    frames = Hash.new { |h, k| h[k] = [0, 0] }
    total = 0
    gc_us = 0
    gc_samples = 0
    pending = 0 # GC time waiting for the next stack
    stacks.each_with_index do |stack, i|
      gap = (times[i + 1] || ended_us) - times[i]
      gap = 0 if gap.negative?
      total += gap
      if stack.all? { |name| GC_FRAMES.include?(name) }
        gc_us += gap
        gc_samples += 1
        pending += gap
        next
      end
      workload(stack).each do |name|
        row = frames[name]
        row[0] += gap + pending
        row[1] += 1
      end
      pending = 0
    end
    {"frames" => frames, "us" => total, "samples" => stacks.size, "gc_us" => gc_us, "gc_samples" => gc_samples}
  end

  # stackprof's raw buffer: [n, frame ids outermost first..., times seen
  # in a row] repeated; one list of names per sample.
  def self.expand(raw, names)
    stacks = []
    i = 0
    while i < raw.size
      n = raw[i]
      ids = raw[i + 1, n]
      stack = ids.map { |id| names[id] || names[id & ((1 << 48) - 1)] || "(unknown)" }
      raw[i + 1 + n].times { stacks << stack }
      i += n + 2
    end
    stacks
  end

  # The stack's names below the harness, each once.
  def self.workload(stack)
    at = stack.index(HARNESS)
    inner = at ? stack.drop(at + 1) : stack
    inner = inner.drop(1) if CALLS.include?(inner.first)
    inner.drop(1).uniq - GC_FRAMES
  end

  # Several processes' results added up, with what a sample costs taken
  # out of every sample with a stack (a signal during a collection is only
  # counted, and recorded with the others after it). The cost is the median
  # of the processes' (each is one sampled run against one plain one, which
  # the load moves): {"shares" => {name => share}, "samples" =>, "gc_share" =>}.
  def self.shares(results)
    frames = Hash.new(0.0)
    total = 0.0
    samples = 0
    gc = 0.0
    costs = results.map { |r| r["cost_us"] }.sort
    cost = costs.empty? ? 0 : costs[costs.size / 2]
    results.each do |r|
      r["frames"].each { |name, (us, n)| frames[name] += us - (cost * n) }
      total += r["us"] - (cost * (r["samples"] - r["gc_samples"]))
      gc += r["gc_us"]
      samples += r["samples"]
    end
    shares = frames.transform_values { |us| [us, 0].max / total }
    # the collector's own samples, the box's truth where Ruby has no clock of it
    shares["(garbage collection)"] = gc / total
    {"shares" => shares, "samples" => samples, "gc_share" => gc / total}
  end
end

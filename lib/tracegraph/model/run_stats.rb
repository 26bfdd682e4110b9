# Repeated measurements: the profiles of N runs of one program combined
# into one typical profile, keeping what each run measured so a diff can
# tell a real change from the noise between runs.
#
#   profile = Tracegraph::Profile.median([run1, run2, run3, run4, run5])
#   profile["Object#work"].self_time   # the median of the five runs
#   profile.runs.self_times("Object#work")  # the five values
#
# Every count and time is the per-name median over the runs (a method
# missing from a run counts 0 there; one in fewer than half the runs has a
# median of 0 calls and is left out of the methods, but its samples are
# kept). The median ignores the odd run a busy machine slowed down, where
# the mean would follow it. So are the run's other figures: GC runs, wall
# time, each thread's time (threads matched by name), and, for a view,
# the threads recorded and the waiting left out. The samples are written
# in the JSON's "runs" member and read back by load_json:
#   "runs": {"count": 5, "total_time": [t1, ..., t5],
#            "self_time": [[m0 run1, ..., m0 run5], ...], "calls": [[...], ...],
#            "others": [{"name": "Hash#rehash", "self_time": [...], "calls": [0, 1, 0, 0, 1]}]}
# with one row per entry of "methods", in the same order, and in "others"
# (optional; files from before it have none) the methods left out.
module Tracegraph
  # The per-run values behind a median profile.
  class RunSamples
    attr_reader :count, :total_times

    # by_name: name => [self_times, calls], each an array of count integers.
    def initialize(count:, total_times:, by_name:)
      @count = count
      @total_times = total_times.freeze
      @by_name = by_name.freeze
    end

    # A method's self time in each run (zeros if it never ran), nanoseconds.
    def self_times(name) = @by_name.fetch(name) { [Array.new(count, 0)] }.first

    # A method's call count in each run.
    def calls(name) = @by_name.fetch(name) { [nil, Array.new(count, 0)] }.last

    def names = @by_name.keys

    def to_h(methods)
      listed = methods.to_h { |m| [m.name, true] }
      others = names.reject { |name| listed.key?(name) }.map do |name|
        {"name" => name, "self_time" => self_times(name), "calls" => calls(name)}
      end
      {"count" => count, "total_time" => total_times,
       "self_time" => methods.map { |m| self_times(m.name) }, "calls" => methods.map { |m| calls(m.name) }}
        .merge(others.empty? ? {} : {"others" => others})
    end
  end

  # Medians and spreads of small samples.
  module RunStats
    # Scale from the median absolute deviation to a normal standard
    # deviation, and from that to the standard error of a median (the
    # median of n normal values varies sqrt(pi/2) times more than a mean).
    MAD_TO_SIGMA = 1.4826
    MEDIAN_SE = Math.sqrt(Math::PI / 2)

    module_function

    # The median: the middle value, or the mean of the two middle ones.
    def median(values)
      raise ArgumentError, "median of no values" if values.empty?

      sorted = values.sort
      mid = sorted.size / 2
      sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
    end

    # A robust standard deviation: 1.4826 x the median absolute deviation,
    # which one wild run cannot inflate as it would the plain one.
    def robust_sigma(values)
      m = median(values)
      MAD_TO_SIGMA * median(values.map { |v| (v - m).abs })
    end

    # The standard error of the median of values, from their own spread;
    # nil for fewer than 3 values (no spread worth the name).
    def median_error(values)
      return nil if values.size < 3

      MEDIAN_SE * robust_sigma(values) / Math.sqrt(values.size)
    end

    BOOTSTRAP_SAMPLES = 200

    # How much statistic (a block taking an array of runs) would vary had
    # other runs been drawn: the standard deviation of it over
    # BOOTSTRAP_SAMPLES resamples of runs with replacement, drawn from a
    # fixed seed so the same runs always give the same answer. nil for
    # fewer than 3 runs.
    def bootstrap_error(runs, &statistic)
      return nil if runs.size < 3

      random = Random.new(runs.size)
      values = Array.new(BOOTSTRAP_SAMPLES) { statistic.call(Array.new(runs.size) { runs[random.rand(runs.size)] }).to_f }
      mean = values.sum / values.size
      Math.sqrt(values.sum { |v| (v - mean)**2 } / (values.size - 1))
    end
  end

  class Profile
    # The samples behind a median profile (RunSamples), or nil for a profile of one run.
    attr_reader :runs

    def runs=(samples)
      raise ArgumentError, "runs must be RunSamples or nil" unless samples.nil? || samples.is_a?(RunSamples)

      @runs = samples
    end

    # The typical profile of several runs of one program: each method's,
    # edge's and thread's median, with the per-run values in #runs. The
    # profiles must share a clock. Call trees are not combined. Allocation
    # counts are medians too, if every run has them (else none are kept),
    # and so are allocations by type, each type's its own median (so they
    # need not add up to the median of the self allocations).
    def self.median(profiles)
      profiles, clock = combinable!(profiles, "Profile.median", "combine")
      per_run = profiles.map { |p| Profile.merge([p]) } # same-named methods summed, as a diff matches them
      allocations = per_run.all?(&:allocations?)
      methods = median_methods(per_run, allocations)
      profile = new(clock: clock, threads: median_threads(per_run), methods: methods.values,
                    edges: median_edges(per_run, methods, allocations), program: profiles.first.program,
                    complete: profiles.all?(&:complete?), gc_runs: median_of(profiles.map { |p| p.gc.runs }),
                    wall_time: profiles.all?(&:wall_time) ? median_of(profiles.map(&:wall_time)) : nil,
                    allocations: allocations,
                    tracing_cost: merged_tracing_cost(profiles) { |removed| median_of(removed) },
                    yjit: profiles.any?(&:yjit?),
                    viewed_from: ViewOrigin.new(recorded_threads: median_of(profiles.map(&:recorded_threads)),
                                                hidden_waiting: median_of(profiles.map(&:hidden_waiting))))
      names = per_run.flat_map { |p| p.methods.map(&:name) }.uniq
      by_name = names.to_h do |name|
        [name, [per_run.map { |p| p[name]&.self_time || 0 }, per_run.map { |p| p[name]&.calls || 0 }]]
      end
      profile.runs = RunSamples.new(count: profiles.size, total_times: per_run.map(&:total_time), by_name: by_name)
      profile
    end

    def self.median_of(values) = RunStats.median(values).round

    def self.median_methods(profiles, allocations)
      types = allocations && profiles.all?(&:allocations_by_type)
      names = profiles.flat_map { |p| p.methods.map(&:name) }.uniq
      names.each_with_object({}) do |name, kept|
        found = profiles.map { |p| p[name] }
        calls = median_of(found.map { |m| m ? m.calls : 0 })
        next if calls.zero?

        first = found.compact.first
        kept[name] = MethodStats.new(name: name, file: first.file, line: first.line, c_method: first.c_method,
                                     calls: calls, total_time: median_of(found.map { |m| m ? m.total_time : 0 }),
                                     self_time: median_of(found.map { |m| m ? m.self_time : 0 }),
                                     **median_allocations(found, allocations),
                                     allocations_by_type: types ? median_types(found) : nil)
      end
    end

    # A method's allocations by type from its stats in each run (nil where
    # it did not run): each type's median.
    def self.median_types(found)
      names = found.compact.flat_map { |m| m.allocations_by_type.keys }.uniq
      AllocationTypes.sorted(names.to_h do |name|
        [name, median_of(found.map { |m| m ? m.allocations_by_type.fetch(name, 0) : 0 })]
      end)
    end

    # allocations: and self_allocations: for a method or an edge, from its
    # stats in each run (nil where it did not run): medians, or nil.
    def self.median_allocations(found, allocations)
      return {} unless allocations

      {allocations: median_of(found.map { |s| s ? s.allocations : 0 }),
       self_allocations: median_of(found.map { |s| s ? s.self_allocations : 0 })}
    end

    def self.median_edges(profiles, methods, allocations)
      by_pair = Hash.new { |h, k| h[k] = Array.new(profiles.size) }
      profiles.each_with_index do |p, i|
        p.edges.each { |e| by_pair[[e.caller.name, e.callee.name]][i] = e }
      end
      by_pair.filter_map do |(caller, callee), found|
        next unless methods.key?(caller) && methods.key?(callee)

        calls = median_of(found.map { |e| e ? e.calls : 0 })
        next if calls.zero?

        EdgeStats.new(caller: methods[caller], callee: methods[callee], calls: calls,
                      total_time: median_of(found.map { |e| e ? e.total_time : 0 }),
                      self_time: median_of(found.map { |e| e ? e.self_time : 0 }),
                      **median_allocations(found, allocations))
      end
    end

    def self.median_threads(profiles)
      names = profiles.flat_map { |p| p.threads.map(&:name) }.uniq
      names.each_with_index.map do |name, i|
        times = profiles.map { |p| p.threads.select { |t| t.name == name }.sum(&:total_time) }
        ThreadStats.new(id: i + 1, name: name, total_time: median_of(times))
      end
    end
    private_class_method :median_of, :median_methods, :median_allocations, :median_types, :median_edges,
                         :median_threads
  end
end

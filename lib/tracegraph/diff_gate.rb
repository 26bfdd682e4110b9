# The gate of `tracegraph diff`: which changes from base to head are
# regressions that should fail a build.
#
# Call counts are exact, so a change in them is a change in behaviour:
# calls: fails for a method whose call count moved (either way) by more
# than its limit, in percent of base's (a method new in head has moved
# infinitely). If the profiles are medians of several runs
# (tracegraph --runs N) and a method's count varied between the runs, it
# must also move by more than that variation (max - min, both sides added).
#
# Times are noisy, so a time limit fails only for a change that is both
# above the limit and larger than the noise measured between the runs:
# SIGMAS standard errors of the difference of the medians, each median's
# from the robust spread of its runs (RunStats.median_error). That margin
# is what follows "±" in the report: "+21.0% ± 2.4%". A profile of one
# run has no measured noise: with one on one side, the other side's stands
# for both; with none, the limit alone decides and the report says so.
# Times are the profile's clock: profiles recorded with --clock cpu are
# gated on CPU time. Profiles of different clocks are not compared.
#   total: the run's total time grew by more than PCT
#   time:  a method's self time grew by more than its limit; methods under
#          min_share percent of the total (in both runs) are not gated,
#          their relative changes being mostly noise
# Limits are percentages; calls and time take {default: PCT or nil,
# methods: {name => PCT}}. ignore: names or globs (File.fnmatch) that
# neither per-method gate looks at.
module Tracegraph
  class DiffGate
    SIGMAS = 3.0

    # One comparison. change and margin are percentages of base (change is
    # Float::INFINITY for something new); margin is nil without measured noise.
    Check = Struct.new(:kind, :name, :base, :head, :change, :margin, :limit, :runs, keyword_init: true) do
      def above_limit? = kind == :calls ? change.abs > limit : change > limit

      def within_noise? = !margin.nil? && change.abs <= margin

      def failed? = above_limit? && !within_noise?
    end

    attr_reader :checks

    def initialize(diff, total: nil, time: nil, calls: nil, ignore: [], min_share: 1.0, normalize: false)
      @diff = diff
      @ignore = ignore
      @min_share = min_share
      @scale = normalize ? diff.normalize_factor : 1.0
      @rows = diff.rows(normalize: normalize)
      if (total || time) && diff.base.clock != diff.head.clock
        raise ArgumentError, "base was recorded with the #{diff.base.clock} clock and head with #{diff.head.clock}: " \
                             "their times cannot be compared"
      end
      @checks = []
      @checks << total_check(total) if total
      @checks.concat(time_checks(time)) if time
      @checks.concat(calls_checks(calls)) if calls
    end

    def failures = checks.select(&:failed?)

    def failed? = failures.any?

    # What the gate found, one line each, for the build log: the total,
    # every failure, and methods above their limit but within the noise.
    def report(io)
      checks.each do |c|
        next unless c.kind == :total || c.above_limit?

        io.puts "tracegraph diff: #{describe(c)}"
      end
      per_method = checks.reject { |c| c.kind == :total }
      return if per_method.empty?

      io.puts "tracegraph diff: #{per_method.size} method check#{per_method.size == 1 ? '' : 's'}, " \
              "#{per_method.count(&:failed?)} failed#{noise_note}"
    end

    private

    def noise_note
      runs = [@diff.base.runs, @diff.head.runs].map { |r| r ? r.count : 1 }
      return " (one run each: the noise is not measured; record with tracegraph --runs 5)" if runs == [1, 1]

      " (#{runs.join(' and ')} runs)"
    end

    def clock = "#{@diff.head.clock} time"

    def describe(c)
      what = case c.kind
             when :total then "total #{clock}"
             when :time then "#{clock} of #{Tracegraph.printable(c.name)}"
             else "calls of #{Tracegraph.printable(c.name)}"
             end
      values = if c.kind == :calls
                 "#{Tracegraph.group_digits(c.base.round)} -> #{Tracegraph.group_digits(c.head.round)}"
               else
                 "#{Tracegraph.human_time(c.base.round)} -> #{Tracegraph.human_time(c.head.round)}"
               end
      change = c.change.infinite? ? "new" : format("%+.1f%%", c.change)
      change += format(" ± %.1f%%", c.margin) if c.margin && !c.change.infinite?
      allowed = c.kind == :calls ? format("±%g%%", c.limit) : format("%+g%%", c.limit)
      verdict = if c.failed? then "more than the allowed #{allowed}: FAILED"
                elsif c.above_limit? then "above the allowed #{allowed} but within the noise between runs"
                else "within the allowed #{allowed}"
                end
      "#{what} #{values}, #{change}: #{verdict}"
    end

    def ignored?(name)
      @ignore.any? { |pattern| pattern == name || File.fnmatch?(pattern, name, File::FNM_EXTGLOB) }
    end

    def limit_for(limits, name) = limits[:methods].fetch(name, limits[:default])

    def total_check(limit)
      base_runs = @diff.base.runs&.total_times
      head_runs = @diff.head.runs&.total_times
      time_check(:total, nil, @diff.base.total_time * @scale, @diff.head.total_time, base_runs, head_runs, limit)
    end

    def time_checks(limits)
      base_total = @diff.base.total_time * @scale
      head_total = @diff.head.total_time
      @rows.filter_map do |r|
        next if r.gone? || ignored?(r.name)

        limit = limit_for(limits, r.name)
        next unless limit
        next unless share?(r.base_self, base_total) || share?(r.head_self, head_total)

        time_check(:time, r.name, r.base_self, r.head_self, @diff.base.runs&.self_times(r.name),
                   @diff.head.runs&.self_times(r.name), limit)
      end
    end

    def share?(part, whole) = whole.positive? && 100.0 * part / whole >= @min_share

    def time_check(kind, name, base, head, base_runs, head_runs, limit)
      base_runs = base_runs&.map { |v| v * @scale }
      change = base.zero? ? (head.zero? ? 0.0 : Float::INFINITY) : 100.0 * (head - base) / base
      error = combined_error(base_runs && RunStats.median_error(base_runs), head_runs && RunStats.median_error(head_runs))
      margin = error && base.positive? ? 100.0 * SIGMAS * error / base : nil
      Check.new(kind: kind, name: name, base: base, head: head, change: change, margin: margin, limit: limit,
                runs: [base_runs&.size || 1, head_runs&.size || 1])
    end

    # The standard error of the difference of two medians; one side's
    # stands for both when only it was measured.
    def combined_error(base, head)
      return nil unless base || head

      Math.sqrt((base || head)**2 + (head || base)**2)
    end

    def calls_checks(limits)
      @rows.filter_map do |r|
        next if ignored?(r.name)

        limit = limit_for(limits, r.name)
        next unless limit

        b = r.base_calls
        h = r.head_calls
        change = b.zero? ? (h.zero? ? 0.0 : Float::INFINITY) : 100.0 * (h - b) / b
        spread = [@diff.base.runs, @diff.head.runs].sum { |runs| runs ? runs.calls(r.name).minmax.then { |lo, hi| hi - lo } : 0 }
        margin = spread.positive? && b.positive? ? 100.0 * spread / b : nil
        Check.new(kind: :calls, name: r.name, base: b, head: h, change: change, margin: margin, limit: limit,
                  runs: [@diff.base.runs&.count || 1, @diff.head.runs&.count || 1])
      end
    end
  end
end

# The gate of `tracegraph diff`: which changes from base to head are
# regressions that should fail a build.
#
# Call counts are exact, but not always the same on every run of the same
# code: String#hash is seeded per process, so hash collisions, and the
# eql?/==/is_a? calls they make, differ from run to run; so do lazy
# caches, anything that depends on timing or threads, and the GC nodes.
# calls: fails for a method whose call count moved (either way) by more
# than its limit, in percent of base's (a method new in head has moved
# infinitely). If the profiles are medians of several runs
# (tracegraph --runs N) and a method's count varied between the runs of
# either side, it is noisy in calls: it must also move by more than that
# variation, in calls (max - min over each side's runs, the two sides
# added; a run it did not appear in counts 0), and the report says by how
# much it varies. A method whose count was the same in every run keeps the
# exact rule: any change beyond the limit fails. With one run each, the
# variation is not measured and the limit alone decides. In a grouped
# diff (--group-by) counts are still gated per method (see count_rows).
#
# Allocation counts (allocations: true) are exact too: allocations: fails
# for a method whose own allocations grew by more than its limit, in
# percent of base's (one that allocated nothing in base, or is new, has
# grown infinitely as soon as it allocates). Both profiles must have the
# counts. As for calls, there is no share below which a method is left
# alone: a count that moved is a change in behaviour, not noise. (Medians
# of runs keep no per-run allocation counts, so no variation is allowed.)
#
# Times are noisy, so a time limit fails only for a change that is both
# above the limit and larger than the noise measured between the runs
# (tracegraph --runs N keeps every run's numbers): SIGMAS (one) bootstrap
# standard error of the change, computed from the runs. That margin is
# what follows "±" in the report: "+21.0% ± 2.4%". (Two would be the
# textbook choice; on the bench's busy machine it hid 2 of 30 real 20%
# slowdowns, and the limit already keeps unchanged code quiet.) A profile
# of one run has no measured noise: with one on one side, the other
# side's stands for both; with none, the limit alone decides and the
# report says so.
#   time:  a method's cost against the rest of the run grew by more than
#          its limit. The cost is its self time in the fastest quarter of
#          the N runs divided by the time everything else took in its
#          fastest quarter (AGAINST_REST): interference only slows, and a
#          machine that is slower for a whole measurement (a busy CI
#          runner, a slower one than the last build's) slows both alike.
#          Methods under min_share percent of the total (5; in both runs)
#          are not gated: their relative changes are mostly noise. The
#          garbage collector's nodes (and the GC group, --group-by) are
#          time-gated only when named (NAME=PCT): their time moves with the
#          heap's state from one measurement to the next (an unchanged
#          jekyll build's marking went 28.7 -> 36.5 ms, +27%, at --runs 5,
#          against a margin of 4%), and what makes it grow for good, more
#          garbage, is gated exactly by allocations and, in time, by total.
#          The calls gate leaves them out too unless named: how often the
#          collector runs is the heap's state, not the program's calls (two
#          unchanged Rails runs went (garbage collection) 2 -> 1).
#   total: the total time of the fastest quarter of the runs grew by
#          more than PCT. It moves with the machine, so it suits runners
#          that keep their speed.
# When the noise measured is wider than the limit, a time check that did
# not fail cannot tell whether the change is within the limit (a slowdown
# of the limit's size would be hidden in it): it says "cannot tell", and
# tracegraph diff exits with status 4 when no check failed but one could
# not tell (UNDECIDED), rather than pass a build it could not judge.
# Every line states the two numbers compared, the change and the noise.
# Times are the profile's clock: profiles recorded with --clock cpu are
# gated on CPU time. Profiles of different clocks are not compared on time.
# Limits are percentages; calls, time and allocations take {default: PCT
# or nil, methods: {name => PCT}}. ignore: names or globs (File.fnmatch)
# that no per-method gate looks at; the calls they make are not counted
# in their callees' calls either.
require "tracegraph/comparison/diff"

module Tracegraph
  class DiffGate
    SIGMAS = 1.0

    # One comparison. change and margin are percentages of base (change is
    # Float::INFINITY for something new); margin is nil without measured noise.
    # spread (calls only): by how many calls the method varied between
    # runs, both sides added; 0 if it never did or was not measured.
    # group: in a grouped diff, a count's check is its method's, and this
    # names the group the method is in (see calls_checks).
    # uncounted (calls only): [base, head], the calls made by exempt
    # methods, left out of base and head (see exempt_calls).
    # compared (time only): [[self, rest] of base, of head], the fastest
    # quarters whose ratios change is of (AGAINST_REST).
    Check = Struct.new(:kind, :name, :base, :head, :change, :margin, :limit, :runs, :spread, :group, :uncounted,
                       :compared, keyword_init: true) do
      # Calls fail moving either way; time and allocations, growing.
      def above_limit? = kind == :calls ? change.abs > limit : change > limit

      def within_noise?
        return noisy? && (head - base).abs <= spread if kind == :calls

        !margin.nil? && change.abs <= margin
      end

      # Whether the method's call count varied between the runs.
      def noisy? = kind == :calls && spread.positive?

      def failed? = above_limit? && !within_noise?

      # A time check that did not fail, whose noise is wider than its
      # limit, and which a change of the limit's size could hide in: it
      # cannot tell whether the code got slower by more than allowed.
      def undecided?
        return false if kind == :calls || kind == :allocations || margin.nil? || failed? || change.infinite?

        margin > limit && change + margin > limit
      end
    end

    attr_reader :checks

    def initialize(diff, total: nil, time: nil, calls: nil, allocations: nil, ignore: [], min_share: 5.0,
                   normalize: false)
      @diff = diff
      @ignore = ignore
      @min_share = min_share
      @scale = normalize ? diff.normalize_factor : 1.0
      @rows = diff.rows(normalize: normalize)
      if (total || time) && diff.base.clock != diff.head.clock
        raise ArgumentError, "base was recorded with the #{diff.base.clock} clock and head with #{diff.head.clock}: " \
                             "their times cannot be compared"
      end
      check_same_times!(diff) if total || time
      diff.check_allocations!("compared") if allocations
      @checks = []
      @checks << total_check(total) if total
      @checks.concat(time_checks(time)) if time
      @checks.concat(calls_checks(calls)) if calls
      @checks.concat(allocations_checks(allocations)) if allocations
    end

    def failures = checks.select(&:failed?)

    def failed? = failures.any?

    # The checks that could not tell (Check#undecided?).
    def undecided = checks.select(&:undecided?)

    # Whether some check could not tell and none failed: tracegraph diff's
    # status 4.
    def undecided? = !failed? && undecided.any?

    # What the gate found, one line each, for the build log: the total,
    # every failure, and methods above their limit but within the noise.
    def report(io)
      checks.each do |c|
        next unless c.kind == :total || c.above_limit? || c.undecided?

        io.puts "tracegraph diff: #{describe(c)}"
      end
      per_method = checks.reject { |c| c.kind == :total }
      return if per_method.empty?

      cannot = per_method.count(&:undecided?)
      io.puts "tracegraph diff: #{checks_counted(per_method)}, " \
              "#{per_method.count(&:failed?)} failed#{", #{cannot} could not tell" if cannot.positive?}" \
              "#{noise_note}#{noisy_calls_note(per_method)}#{reached_note}"
    end

    private

    # "2 gem checks" when --group-by gem made the rows gems; "3 gem checks
    # and 410 method checks of counts" when counts were gated per method.
    def checks_counted(per_method)
      by_row, by_method = per_method.partition { |c| c.group.nil? }
      parts = []
      parts << "#{by_row.size} #{@diff.head.grouping} check#{by_row.size == 1 ? '' : 's'}" unless by_row.empty?
      unless by_method.empty?
        parts << "#{Tracegraph.group_digits(by_method.size)} method check#{by_method.size == 1 ? '' : 's'} of counts " \
                 "(each method in its #{@diff.head.grouping})"
      end
      parts.join(" and ")
    end

    def noise_note
      runs = [@diff.base.runs, @diff.head.runs].map { |r| r ? r.count : 1 }
      return " (one run each: the noise is not measured; record with tracegraph --runs 10)" if runs == [1, 1]

      " (#{runs.join(' and ')} runs)"
    end

    def noisy_calls_note(checks)
      noisy = checks.count(&:noisy?)
      return "" if noisy.zero?

      # Counts are per method even in a grouped diff (count_rows).
      "; #{plural(noisy, :method)} varied in calls between runs and #{noisy == 1 ? 'was' : 'were'} " \
        "compared within that"
    end

    # What --exempt left out beyond the methods it names, so that a glob
    # that caught a hub (Integer#* catches Integer#times, and every block
    # under it) shows: "; 4 more methods exempt, as only exempt methods call them".
    def reached_note
      return "" if @ignore.empty?

      _, base, head = count_rows
      names = [base, head].flat_map { |p| exempt_reach(p).keys.map(&:name) }
      more = names.uniq.reject { |n| ignored?(n) }.size
      return "" if more.zero?

      "; #{more} more method#{more == 1 ? '' : 's'} exempt, as only exempt methods call #{more == 1 ? 'it' : 'them'}"
    end

    # "1 method", "3 classes": a count of what the rows are.
    def plural(count, grouping) = "#{count} #{count == 1 ? grouping : Profile::GROUPING_PLURALS.fetch(grouping)}"

    # Times with tracing's cost taken out against raw ones would show every
    # method faster (or slower) by what tracing costs it: refused, saying
    # which is which (docs/accuracy.md).
    def check_same_times!(diff)
      return if diff.base.raw_times? == diff.head.raw_times?

      raw, corrected = diff.base.raw_times? ? %w[base head] : %w[head base]
      raise ArgumentError, "#{raw} has raw times (recorded with --raw-times, or by a tracegraph from before it " \
                           "took tracing's cost out) and #{corrected} has tracing's cost taken out: their times " \
                           "cannot be compared; record both the same way (docs/accuracy.md)"
    end

    def clock = "#{@diff.head.clock} time"

    def describe(c)
      what = case c.kind
             when :total then "total #{clock}#{' (fastest quarter of the runs)' if c.runs.max > 1}"
             when :time then "#{clock} of #{Tracegraph.printable(c.name)}"
             when :allocations then "allocations of #{Tracegraph.printable(c.name)}"
             else "calls of #{Tracegraph.printable(c.name)}"
             end
      what += " (in #{Tracegraph.printable(c.group)})" if c.group
      values = if %i[calls allocations].include?(c.kind)
                 "#{Tracegraph.group_digits(c.base.round)} -> #{Tracegraph.group_digits(c.head.round)}"
               elsif c.compared && !c.change.infinite?
                 compared_values(c)
               else
                 "#{Tracegraph.human_time(c.base.round)} -> #{Tracegraph.human_time(c.head.round)}"
               end
      change = if !c.change.infinite? then format("%+.1f%%", c.change)
               elsif c.kind == :allocations then "from none"
               else "new"
               end
      timed = %i[time total].include?(c.kind) && !c.change.infinite?
      change += c.margin ? format(" ± %.1f%% (the noise between runs)", c.margin) : " (noise not measured)" if timed
      "#{what} #{values}#{uncounted_note(c)}, #{change}: #{verdict(c)}#{variation(c)}#{member_note(c)}"
    end

    # "its self time against the rest's, in the fastest quarter of the
    # runs: 48.1 ms / 565 ms -> 49.0 ms / 452 ms": the two ratios the
    # change is of.
    def compared_values(c)
      (base_own, base_rest), (head_own, head_rest) = c.compared
      t = ->(ns) { Tracegraph.human_time(ns.round) }
      quarter = c.runs.max > 1 ? ", in the fastest quarter of the runs" : ""
      "against the rest of the run (its self time / the rest's#{quarter}): " \
        "#{t.(base_own)} / #{t.(base_rest)} -> #{t.(head_own)} / #{t.(head_rest)}"
    end

    def verdict(c)
      allowed = c.kind == :calls ? format("±%g%%", c.limit) : format("%+g%%", c.limit)
      if c.failed? then "more than the allowed #{allowed}#{' and the noise' if c.margin && c.kind != :calls}: FAILED"
      elsif c.undecided?
        format("cannot tell: the noise between runs (± %.1f%%) is wider than the allowed %s; record with more " \
               "--runs, or on a quieter machine", c.margin, allowed)
      elsif c.above_limit? then "above the allowed #{allowed} but within the noise between runs"
      else "within the allowed #{allowed}"
      end
    end

    # " (not counting 4 -> 0 calls from exempt methods)".
    def uncounted_note(c)
      return "" unless c.uncounted&.any?(&:positive?)

      " (not counting #{c.uncounted.map { |n| Tracegraph.group_digits(n.round) }.join(' -> ')} calls from exempt methods)"
    end

    # For a group's row (--group-by): which of its methods moved the most,
    # and the C method that did, if another: "; most of the change:
    # Array#sort (C), self 10.0 ms -> 50.0 ms". A C method is in the groups
    # whose code called it, so this is where the gate can name it.
    def member_note(c)
      return "" unless %i[time calls].include?(c.kind) && @diff.head.grouping != :method && c.group.nil?

      i = c.kind == :time ? 0 : 1
      base = @diff.base.group_members(c.name)
      head = @diff.head.group_members(c.name)
      moved = ->(n) { (head.dig(n, i) || 0) - (base.dig(n, i) || 0) }
      names = (base.keys | head.keys).reject { |n| moved.(n).zero? }.sort_by { |n| [-moved.(n).abs, n] }
      c_name = names.find { |n| (head[n] || base[n])[2] }
      picked = [names.first, c_name].compact.uniq
      return "" if picked.empty?

      "; most of the change: " + picked.map do |n|
        b = base.dig(n, i) || 0
        h = head.dig(n, i) || 0
        values = i.zero? ? "self #{Tracegraph.human_time(b)} -> #{Tracegraph.human_time(h)}"
                         : "calls #{Tracegraph.group_digits(b)} -> #{Tracegraph.group_digits(h)}"
        "#{Tracegraph.printable(n)}#{' (C)' if (head[n] || base[n])[2]}, #{values}"
      end.join("; ")
    end

    # " (Kernel#is_a? varies by ±1 call between runs)" for a method noisy in calls.
    def variation(c)
      return "" unless c.noisy?

      " (#{Tracegraph.printable(c.name)} varies by ±#{Tracegraph.group_digits(c.spread)} " \
        "call#{c.spread == 1 ? '' : 's'} between runs)"
    end

    def ignored?(name)
      @ignore.any? { |pattern| pattern == name || File.fnmatch?(pattern, name, File::FNM_EXTGLOB) }
    end

    def limit_for(limits, name) = limits[:methods].fetch(name, limits[:default])

    # The fastest quarter's total, for the reason FASTEST_QUARTER gives.
    def total_check(limit)
      base_runs = @diff.base.runs&.total_times&.map { |t| t * @scale }
      base_point = @diff.base.total_time * @scale
      head_runs = @diff.head.runs&.total_times
      change, margin = compare([base_point, base_runs], [@diff.head.total_time, head_runs], FASTEST_QUARTER)
      Check.new(kind: :total, name: nil, base: base_runs ? FASTEST_QUARTER.(base_runs) : base_point,
                head: head_runs ? FASTEST_QUARTER.(head_runs) : @diff.head.total_time,
                change: change, margin: margin, limit: limit, runs: run_counts)
    end

    def time_checks(limits)
      base_total = @diff.base.total_time * @scale
      head_total = @diff.head.total_time
      @rows.filter_map do |r|
        next if r.gone? || ignored?(r.name)

        limit = limit_for(limits, r.name)
        next unless limit
        next if Profile::GC_NODES.include?(r.name) && !limits[:methods].key?(r.name)
        next unless gated_share?(r, base_total, head_total)

        base_side = method_side(@diff.base, r.name)
        head_side = method_side(@diff.head, r.name)
        change, margin = compare(base_side, head_side, AGAINST_REST)
        Check.new(kind: :time, name: r.name, base: r.base_self, head: r.head_self, change: change, margin: margin,
                  limit: limit, runs: run_counts, compared: [base_side, head_side].map { |side| against_rest_parts(side) })
      end
    end

    # The mean of the fastest quarter of values (at least one): the runs
    # least disturbed. Other work on a shared machine only ever slows a
    # program down, so the fast runs are the ones to trust, and a few of
    # them, not the single fastest, so one lucky run does not decide.
    FASTEST_QUARTER = lambda do |values|
      k = (values.size + 3) / 4
      values.min(k).sum.to_f / k
    end

    # A method's cost against the rest of the run, from [self, total]
    # pairs, one per run: its fastest-quarter self time divided by the
    # fastest-quarter time of everything else. A machine slower for a
    # whole measurement slows both alike and cancels out. (bench/gate.rb
    # on this project's 2-CPU VM, unchanged code measured 31 times with 10
    # runs each while other test suites ran: this moved by at most 9.7%;
    # the median over the runs of each run's own ratio, which the gate
    # used before, by up to 13.7%: bench/GATE-busy.md.) Its own time alone
    # if it is all of the run.
    AGAINST_REST = lambda do |runs|
      own = FASTEST_QUARTER.call(runs.map(&:first))
      rest = FASTEST_QUARTER.call(runs.map { |s, t| t - s })
      rest.positive? ? own / rest : own
    end

    # [value from the profile, runs as [self, total] pairs or nil, and
    # the [self, total] pair of the profile itself]
    def method_side(profile, name)
      m = profile[name]
      pair = [m ? m.self_time : 0, profile.total_time]
      point = m ? AGAINST_REST.call([pair]) : 0.0
      runs = profile.runs&.then { |r| r.self_times(name).zip(r.total_times) }
      [point, runs, pair]
    end

    # [self, rest] whose ratio AGAINST_REST is, for a side of method_side.
    def against_rest_parts((_, runs, pair))
      runs ||= [pair]
      [FASTEST_QUARTER.call(runs.map(&:first)), FASTEST_QUARTER.call(runs.map { |s, t| t - s })]
    end

    def share?(part, whole) = whole.positive? && 100.0 * part / whole >= @min_share

    # Whether a row holds enough of the run to be gated on time. The GC
    # group (--group-by) holds the collector's steps, marking and sweeping,
    # which the method-level gate judges one by one, and each is often
    # under the floor while their sum is above it: GC's time moves with
    # the heap's state from run to run, so the group is gated only where
    # one of its steps would be (an unchanged jekyll failed by gem on GC
    # at +18.5%, where by method no step was gated).
    def gated_share?(row, base_total, head_total)
      if @diff.head.grouping != :method && row.name == Profile::GC_NODE
        base = @diff.base.group_members(row.name).values
        head = @diff.head.group_members(row.name).values
        return base.any? { |self_time, _| share?(self_time * @scale, base_total) } ||
               head.any? { |self_time, _| share?(self_time, head_total) }
      end
      share?(row.base_self, base_total) || share?(row.head_self, head_total)
    end

    def run_counts = [@diff.base.runs&.count || 1, @diff.head.runs&.count || 1]

    # [change in percent, margin in percent or nil] of statistic from base
    # to head, each side [value without runs, runs or nil]. The margin is
    # SIGMAS bootstrap standard errors of the ratio; a side without runs
    # borrows the other's relative error.
    def compare((base_point, base_runs, *), (head_point, head_runs, *), statistic)
      base = base_runs ? statistic.call(base_runs) : base_point
      head = head_runs ? statistic.call(head_runs) : head_point
      return [head.zero? ? 0.0 : Float::INFINITY, nil] if base.zero?

      errors = [[base, base_runs], [head, head_runs]].map do |value, runs|
        runs && value.positive? ? RunStats.bootstrap_error(runs, &statistic)&./(value) : nil
      end
      error = combined_error(*errors)
      [100.0 * (head - base) / base, error && 100.0 * SIGMAS * error * head / base]
    end

    # The relative error of a ratio of two measurements; one side's
    # stands for both when only it was measured.
    def combined_error(base, head)
      return nil unless base || head

      Math.sqrt((base || head)**2 + (head || base)**2)
    end

    # Counts (calls, allocations) are exact per method, and gated per
    # method in a grouped diff too: a group's count holds pieces of C
    # methods shared out by edges that are medians of runs (--runs), which
    # move from one measurement to the next although no method's count
    # does (an unchanged jekyll by gem failed on calls in 5 pairs of 5,
    # by method in none). Each check names its method and its group, and
    # a limit or --ignore given for the group applies to its methods.
    # [[row, group or nil]] and the profiles the rows are of.
    def count_rows
      @count_rows ||= if @diff.head.grouping == :method
                        [@rows.map { |r| [r, nil] }, @diff.base, @diff.head]
                      else
                        base = @diff.base.ungrouped
                        head = @diff.head.ungrouped
                        rows = ProfileDiff.new(base, head).rows
                        [rows.map { |r| [r, @diff.head.group_of(r.name) || @diff.base.group_of(r.name)] }, base, head]
                      end
    end

    def count_limit(limits, name, group)
      return nil if ignored?(name) || (group && ignored?(group))

      limits[:methods].fetch(name) { group && limits[:methods].key?(group) ? limits[:methods][group] : limits[:default] }
    end

    def calls_checks(limits)
      rows, base, head = count_rows
      rows.filter_map do |r, group|
        limit = count_limit(limits, r.name, group)
        next unless limit
        next if Profile::GC_NODES.include?(r.name) && !limits[:methods].key?(r.name) # (see the top)

        uncounted = [exempt_calls(base)[r.name], exempt_calls(head)[r.name]]
        b = r.base_calls - uncounted[0]
        h = r.head_calls - uncounted[1]
        change = b.zero? ? (h.zero? ? 0.0 : Float::INFINITY) : 100.0 * (h - b) / b
        spread = calls_range(base, r.name) + calls_range(head, r.name)
        margin = spread.positive? && b.positive? ? 100.0 * spread / b : nil
        Check.new(kind: :calls, name: r.name, base: b, head: h, change: change, margin: margin, limit: limit,
                  runs: run_counts, spread: spread, group: group, uncounted: uncounted)
      end
    end

    # {callee name => calls into it from exempt methods}: an exempt
    # method's calls are its own behaviour, exempt with it. A Hash key
    # collision (String#hash is seeded per process) calls the key's eql?,
    # and ActiveModel::Attribute#== then asks both sides' name and
    # value_before_type_cast: --exempt '*#==' must leave those out too,
    # and what only they call in turn (Gem::Specification#eql? calls
    # same_attributes?, which calls authors): Profile#reached_only_through.
    def exempt_calls(profile)
      @exempt_calls ||= {}
      @exempt_calls[profile.object_id] ||= begin
        exempt = exempt_reach(profile)
        profile.edges.each_with_object(Hash.new(0)) do |e, sums|
          sums[e.callee.name] += e.calls if !e.caller.equal?(e.callee) && exempt[e.caller]
        end
      end
    end

    # The exempt methods and what only they reach ({method => true}).
    def exempt_reach(profile)
      @exempt_reach ||= {}
      @exempt_reach[profile.object_id] ||= profile.reached_only_through { |m| ignored?(m.name) }
    end

    # max - min of a method's call count over a profile's runs; 0 for a
    # profile of one run.
    def calls_range(profile, name)
      return 0 unless profile.runs

      lo, hi = profile.runs.calls(name).minmax
      hi - lo
    end

    # Each method's own allocations, growth only; exact counts, no margin.
    def allocations_checks(limits)
      rows, = count_rows
      rows.filter_map do |r, group|
        next if r.gone?

        limit = count_limit(limits, r.name, group)
        next unless limit

        b = r.base_allocations
        h = r.head_allocations
        change = b.zero? ? (h.zero? ? 0.0 : Float::INFINITY) : 100.0 * (h - b) / b
        Check.new(kind: :allocations, name: r.name, base: b, head: h, change: change, margin: nil, limit: limit,
                  runs: run_counts, group: group)
      end
    end
  end
end

# Comparing two profiles: what changed from a base run to a head run.
#
#   base = Tracegraph::Profile.load_json("before.json")
#   head = Tracegraph::Profile.load_json("after.json")
#   diff = base.diff(head)               # reads "from base to head"
#   diff.write_dot("diff.dot")           # red = slower, blue = faster
#   diff.print_text(limit: 10)           # top regressions and improvements
#
# When both profiles have allocation counts (allocations: true), the
# rows and the text compare each method's own allocations too: counts,
# exact and never normalized; and write_dot(size_by: :allocations) draws
# the graph by them: red where a method's own allocations grew.
#
# Methods are matched by name. The graph is drawn by the C emitter
# (ext/tracegraph/core/tg_diff_dot.c); this file validates options, builds the
# per-method table and prints it.
require "tracegraph/formats/dot"

module Tracegraph
  class Profile
    # The change from this profile (the base, "before") to head ("after").
    def diff(head)
      ProfileDiff.new(self, head)
    end
  end

  class ProfileDiff
    DOT_DEFAULTS = {**Tracegraph::GRAPH_DEFAULTS, normalize: false, size_by: :time,
                    focus: nil, ignore: nil}.freeze

    # One method's numbers in both runs, matched by name. Times are integer
    # nanoseconds (base ones scaled to head's total when normalizing); a
    # side the method is missing from has zeros. status is :changed (in
    # both runs, whether or not its numbers moved), :new (only in head) or
    # :gone (only in base). base_allocations and head_allocations are the
    # objects it allocated itself in each run (0 where missing), or nil
    # unless both profiles have allocation counts.
    Row = Struct.new(:name, :file, :line, :c_method, :base_calls, :head_calls, :base_self, :head_self,
                     :base_total, :head_total, :status, :base_allocations, :head_allocations,
                     keyword_init: true) do
      def self_delta = head_self - base_self
      def total_delta = head_total - base_total
      def calls_delta = head_calls - base_calls
      def allocations_delta = base_allocations && head_allocations - base_allocations

      # Change in own allocations as a percentage of base's, or nil (new
      # method, none in base, or no allocation counts).
      def allocations_change_percent
        base_allocations&.positive? ? 100.0 * allocations_delta / base_allocations : nil
      end

      # Change in self time as a percentage of base's, or nil where base
      # has none (a new method, or one whose own time rounded to 0 ns).
      def self_change_percent
        base_self.zero? ? nil : 100.0 * self_delta / base_self
      end

      def new? = status == :new
      def gone? = status == :gone
    end

    attr_reader :base, :head

    def initialize(base, head)
      [[base, "base"], [head, "head"]].each do |profile, role|
        raise ArgumentError, "#{role} must be a Tracegraph::Profile, not #{profile.class}" unless profile.is_a?(Profile)
      end
      @base = base
      @head = head
    end

    # Whether both profiles have allocation counts, so they can be compared.
    def allocations? = base.allocations? && head.allocations?

    # Raises ArgumentError unless both profiles have allocation counts,
    # saying which lacks them and how to record them; what: what cannot
    # be done with allocations ("compared", "drawn").
    def check_allocations!(what)
      missing = [[base, "base"], [head, "head"]].reject { |profile, _| profile.allocations? }.map(&:last)
      return if missing.empty?

      raise ArgumentError, "allocations cannot be #{what}: #{missing.join(' and ')} " \
                           "#{missing.size == 1 ? 'has' : 'have'} no allocation counts; record both with " \
                           "allocations: true (tracegraph --allocations)"
    end

    # head total - base total, in nanoseconds (never normalized).
    def total_change = head.total_time - base.total_time

    # The change in total time as a percentage of base's (25.0 for 120 ms
    # -> 150 ms), or nil when base recorded no time.
    def total_change_percent
      base.total_time.zero? ? nil : 100.0 * total_change / base.total_time
    end

    # The factor base times are multiplied by when normalizing.
    def normalize_factor
      base.total_time.zero? ? 1.0 : head.total_time.to_f / base.total_time
    end

    # Every method of either run, biggest change in self time first (ties:
    # bigger head self, then name). normalize: scale base times to head's
    # total first, so a run that is uniformly slower shows no change.
    def rows(normalize: false)
      OptionChecks.boolean!(:normalize, normalize)
      scale = normalize ? normalize_factor : 1.0
      base_by = group(base)
      head_by = group(head)
      names = (base_by.keys | head_by.keys)
      rows = names.map { |name| row(name, base_by[name], head_by[name], scale) }
      rows.sort_by { |r| [-r.self_delta.abs, -r.head_self, r.name] }
    end

    # Rows whose self time grew, biggest growth first.
    def regressions(normalize: false)
      rows(normalize: normalize).select { |r| r.self_delta.positive? }
    end

    # Rows whose self time shrank, biggest drop first.
    def improvements(normalize: false)
      rows(normalize: normalize).select { |r| r.self_delta.negative? }
    end

    # Rows whose own allocations changed, biggest change (either way)
    # first, ties by more in head, then name; [] unless allocations?.
    def allocation_changes
      return [] unless allocations?

      rows.reject { |r| r.allocations_delta.zero? }
          .sort_by { |r| [-r.allocations_delta.abs, -r.head_allocations, r.name] }
    end

    # The differential call graph as DOT text: drawn for head, box size by
    # head's self time, red where self time grew, blue where it shrank,
    # dashed blue ghosts for methods and calls only base had. Options:
    #   normalize:     scale base times by head total / base total first (false)
    #   node_fraction: drop methods under this share of the larger total in both runs (0.005; 0 keeps all)
    #   edge_fraction: the same for calls (0.001)
    #   max_nodes:     keep at most this many methods, by max(base, head) total (80; 0 = no cap)
    #   size_by:       :time, or :allocations (both profiles need allocation counts): box size by
    #                  head's self allocations, colour by their change, red where a method's own
    #                  allocations grew; the fractions and max_nodes go by objects. Labels give both.
    #   focus:         Regexp/String: as Profile#to_dot's, in both runs: only the call paths through
    #                  the methods whose name matches it when both have a call tree and a match,
    #                  else the methods a match is reached from and those it reaches; the matches
    #                  first, never cut for their size, then their callers and callees
    #   ignore:        Regexp/String: hide matching methods (paths through them stay, dotted)
    def to_dot(**options)
      o = DiffDotOptions.parse(options)
      by_allocations = o[:size_by] == :allocations
      check_allocations!("drawn") if by_allocations
      sides, focus = focused_sides(o[:focus])
      counts = by_allocations ? sides.map { |side| Formats::Dot.legend_allocations(side) } : [nil, nil]
      # The C writer's options, by name (binding/dot_text.c reads each
      # key and refuses one it does not know); focus and ignore are flags
      # per method of each side, or nil.
      Tracegraph._render_diff_dot(*Formats::Dot.model_parts(sides[0]), *Formats::Dot.model_parts(sides[1]), {
        node_fraction: o[:node_fraction], edge_fraction: o[:edge_fraction], max_nodes: o[:max_nodes],
        normalize: o[:normalize], cwd: Dir.pwd, base_allocations: counts[0], head_allocations: counts[1],
        size_by: o[:size_by], focus: focus, ignore: name_flags(o[:ignore], sides),
        notes: grouped_notes(sides), edge_calls_only: sides.any?(&:arrows_estimated?)
      })
    end

    # The legend's lines on grouped profiles: how they are grouped, and, if
    # either side's arrows could only be estimated (no call tree), that
    # the arrows give their calls alone, and why; nil by method.
    def grouped_notes(sides)
      return nil if head.grouping == :method

      estimated = sides.map(&:arrows_estimated?).find(&:itself)
      [Formats::Dot.grouping_note(head), estimated && Formats::Dot::ARROWS_ESTIMATED.fetch(estimated)].compact
    end

    # [[base, head] to draw, the focus as _render_diff_dot takes it]: with
    # a focus both runs' call paths through it (Profile#focus_paths) when
    # both can give them, and the methods that left out, by name across the
    # runs; else both whole, for the walk by methods.
    def focused_sides(pattern)
      return [[base, head], nil] unless pattern

      paths = [base, head].map { |side| side.focus_paths(pattern) }
      return [[base, head], name_flags(pattern).merge(only_paths: false, left_out: 0)] if paths.any?(&:nil?)

      sides = paths.map(&:first)
      names = ->(list) { list.flat_map { |side| side.methods.map(&:name) }.uniq }
      left_out = names.call([base, head]).size - names.call(sides).size
      [sides, name_flags(pattern, sides).merge(only_paths: true, left_out: left_out)]
    end

    # Writes the differential DOT graph to path; returns the path.
    #   dot -Tsvg diff.dot -o diff.svg
    def write_dot(path = "diff.dot", **options)
      Tracegraph.write_output(path, to_dot(**options))
    end

    # Prints the top `limit` regressions and improvements by self time as
    # a table, for CI logs; and the top `limit` changes in methods' own
    # allocations when both profiles have them.
    def print_text(io = $stdout, limit: 10, normalize: false)
      raise ArgumentError, "limit must be a positive integer, not #{limit.inspect}" unless limit.is_a?(Integer) && limit > 0

      all = rows(normalize: normalize)
      io.puts summary_line
      io.puts "base times normalized to head's total (x#{format('%.3f', normalize_factor)})" if normalize
      [["Regressions (self time grew)", all.select { |r| r.self_delta.positive? }],
       ["Improvements (self time shrank)", all.select { |r| r.self_delta.negative? }]].each do |title, list|
        io.puts
        io.puts "#{title}: #{list.empty? ? 'none' : list.size}"
        next if list.empty?

        io.puts format("%10s  %10s  %11s  %8s  %21s  %s", "base self", "head self", "change", "change%", "calls", "method")
        list.first(limit).each { |r| io.puts table_line(r) }
        io.puts "(#{list.size - limit} more not shown)" if list.size > limit
      end
      print_allocations(io, limit)
      nil
    end

    def inspect
      "#<Tracegraph::ProfileDiff base=#{base.total_time}ns head=#{head.total_time}ns>"
    end

    private

    # nil, or [base's, head's] flags, one per method: its name matches pattern.
    # {base:, head:} flags per method of each side: whether its name
    # matches pattern; nil without a pattern.
    def name_flags(pattern, sides = [base, head])
      pattern && %i[base head].zip(sides).to_h { |key, side| [key, side.methods.map { |m| pattern.match?(m.name) }] }
    end

    # Methods of one profile by name; same-named ones (anonymous owners) are summed.
    def group(profile)
      profile.methods.group_by(&:name)
    end

    def row(name, base_methods, head_methods, scale)
      first = (head_methods || base_methods).first
      sum = ->(list, field) { list ? list.sum(&field) : 0 }
      scaled = ->(field) { (sum.(base_methods, field) * scale).round }
      status = if base_methods.nil? then :new
               elsif head_methods.nil? then :gone
               else :changed
               end
      Row.new(name: name, file: first.file, line: first.line, c_method: first.c_method ? true : false,
              base_calls: sum.(base_methods, :calls), head_calls: sum.(head_methods, :calls),
              base_self: scaled.(:self_time), head_self: sum.(head_methods, :self_time),
              base_total: scaled.(:total_time), head_total: sum.(head_methods, :total_time), status: status,
              base_allocations: allocations? ? sum.(base_methods, :self_allocations) : nil,
              head_allocations: allocations? ? sum.(head_methods, :self_allocations) : nil)
    end

    def summary_line
      pct = total_change_percent
      change = pct ? format("%+.1f%%", pct) : "n/a"
      clocks = base.clock == head.clock ? base.clock.to_s : "#{base.clock} -> #{head.clock} (different clocks!)"
      if base.raw_times? != head.raw_times?
        clocks += ", #{base.raw_times? ? 'raw times' : 'less tracing'} -> " \
                  "#{head.raw_times? ? 'raw times' : 'less tracing'} (not comparable!)"
      end
      allocated = if allocations?
                    ", allocations #{Tracegraph.group_digits(base.total_allocations)} -> " \
                      "#{Tracegraph.group_digits(head.total_allocations)}"
                  end
      "tracegraph diff (#{clocks}): total #{Tracegraph.human_time(base.total_time)} -> " \
        "#{Tracegraph.human_time(head.total_time)} (#{change}), " \
        "calls #{Tracegraph.group_digits(base.total_calls)} -> #{Tracegraph.group_digits(head.total_calls)}" \
        "#{allocated}"
    end

    # The allocation changes' table, or a word on why there is none.
    def print_allocations(io, limit)
      if base.allocations? != head.allocations?
        io.puts
        io.puts "Allocations: only #{base.allocations? ? 'base' : 'head'} has allocation counts; " \
                "record both with allocations: true (tracegraph --allocations) to compare them"
      end
      return unless allocations?

      list = allocation_changes
      io.puts
      io.puts "Allocations (a method's own objects): #{list.empty? ? 'no change' : "#{list.size} changed"}"
      return if list.empty?

      io.puts format("%12s  %12s  %12s  %8s  %s", "base allocs", "head allocs", "change", "change%", "method")
      list.first(limit).each { |r| io.puts allocation_line(r) }
      io.puts "(#{list.size - limit} more not shown)" if list.size > limit
    end

    def allocation_line(r)
      pct = if r.new? then "new"
            elsif r.gone? then "gone"
            elsif r.base_allocations.zero? then "from 0"
            else format("%+.1f%%", r.allocations_change_percent)
            end
      delta = r.allocations_delta
      format("%12s  %12s  %12s  %8s  %s", Tracegraph.group_digits(r.base_allocations),
             Tracegraph.group_digits(r.head_allocations),
             "#{delta.negative? ? '-' : '+'}#{Tracegraph.group_digits(delta.abs)}", pct, Tracegraph.printable(r.name))
    end

    def table_line(r)
      pct = if r.new? then "new"
            elsif r.gone? then "gone"
            elsif r.base_self.zero? then "from 0" # in both runs, but under a nanosecond of its own in base
            else format("%+.1f%%", r.self_change_percent)
            end
      calls = "#{Tracegraph.group_digits(r.base_calls)} -> #{Tracegraph.group_digits(r.head_calls)}"
      format("%10s  %10s  %11s  %8s  %21s  %s", Tracegraph.human_time(r.base_self), Tracegraph.human_time(r.head_self),
             signed_time(r.self_delta), pct, calls, Tracegraph.printable(r.name))
    end

    def signed_time(ns)
      "#{ns.negative? ? '-' : '+'}#{Tracegraph.human_time(ns.abs)}"
    end
  end

  # Validation of ProfileDiff#to_dot's options.
  module DiffDotOptions
    def self.parse(options)
      OptionChecks.known!(options, ProfileDiff::DOT_DEFAULTS.keys)
      o = ProfileDiff::DOT_DEFAULTS.merge(options)
      # The pruning options mean what they mean for Profile#to_dot.
      o.merge!(DotOptions.parse(o.slice(:node_fraction, :edge_fraction, :max_nodes)).slice(:node_fraction,
                                                                                           :edge_fraction, :max_nodes))
      OptionChecks.boolean!(:normalize, o[:normalize])
      %i[focus ignore].each { |key| o[key] = DotOptions.regexp(key, o[key]) }
      o[:size_by] = DotOptions.size_by(o[:size_by])
      o
    end
  end
end

# DOT call graphs. The C core makes the decisions: which boxes and arrows
# are kept (the graph pass, ext/tracegraph/core/tg_graph.c), then sizes,
# colours, the legend and escaping (the writer, tg_dot.c). This file
# validates options, applies the model's views (focus, grouping, hub
# split, chain fold) and hands the C the profile's numbers.
require "tracegraph/formats/output_file"

module Tracegraph
  module Formats
    module Dot
      # The fractions and max_nodes are the C graph pass's (tg_graph.h).
      DEFAULTS = Tracegraph::GRAPH_DEFAULTS.merge(focus: nil, ignore: nil, split_hubs: true, fold_chains: true,
                                                  size_by: :time, group_by: :method).freeze
      # What size_by takes: what picks, sizes and colours the boxes and edges.
      SIZE_BY = %i[time allocations].freeze

      module_function

      # The call graph as a DOT string. Options:
      #   node_fraction: drop methods under this share of total time (0.005; 0 keeps all)
      #   edge_fraction: drop calls under this share of total time (0.001; 0 keeps all)
      #   max_nodes:     keep at most this many methods, by total time (80; 0 = no cap)
      #   focus:         Regexp/String: only the call paths through the methods matching it (with a
      #                  call tree: the matches' callers on those paths, with only that part of
      #                  their time, and what the matches call; see model/focus.rb), or without
      #                  one the methods a match is reached from and those it reaches; the
      #                  matches first (never cut for their size), then their callers and callees
      #   ignore:        Regexp/String: hide matching methods (paths through them stay, dotted)
      #   split_hubs:    draw an iterator many methods call with their own blocks as one box
      #                  per caller, where the profile says exactly what is whose (true; see model/hub_split.rb)
      #   fold_chains:   fold chains of frames that only pass the call on into one arrow (true; model/chain_fold.rb)
      #   size_by:       :time, or :allocations (needs allocations: true): box size by self allocations,
      #                  colour by total allocations, and the fractions and max_nodes by allocations
      #                  too, so the graph shows where the garbage comes from. Labels give both.
      #   group_by:      :method, or :class, :file or :gem: one box per group of methods, with exact
      #                  sums (Profile#group_by, model/group_by.rb); the tooltip names its heaviest methods
      #   threads:, idle: which threads to show, and whether to hide waiting (Profile#view)
      def generate(profile, **options)
        profile, options = profile.viewed(options)
        o = DotOptions.parse(options)
        if o[:size_by] == :allocations && !profile.allocations?
          raise Error, "size_by: :allocations needs allocation counts, and this profile has none: " \
                       "record with allocations: true (tracegraph --allocations)"
        end
        tracing = profile.tracing_cost && tracing_note(profile)
        profile, focus_paths, focus_note = focus_paths(profile, o[:focus])
        calls = profile.total_calls # the legend's: its groups' and folded frames' add up to fewer
        profile = profile.group_by(o[:group_by])
        graph, context, notes = o[:split_hubs] ? profile.split_hubs : [profile, {}, []]
        notes = [grouping_note(profile)] + notes if profile.grouping != :method
        notes << ARROWS_ESTIMATED.fetch(profile.arrows_estimated?) if profile.arrows_estimated?
        graph, via, fold_notes = o[:fold_chains] ? graph.fold_chains : [graph, {}, []]
        notes += fold_notes
        notes << tracing if tracing
        notes << Profile::YJIT_NOTE if profile.yjit?
        notes << focus_note if focus_note
        notes << inlined_new_note(profile) if profile.inlined_class_new?
        focus = o[:focus] && graph.methods.map { |m| o[:focus].match?(m.name) }
        ignore = o[:ignore] && graph.methods.map { |m| o[:ignore].match?(m.name) }
        waiting = graph.methods.map(&:waiting?)
        # The C writer's options, by name (binding/dot_text.c reads each
        # key and refuses one it does not know). Per-method arrays have an
        # entry per method of graph, per-edge arrays per edge; nil is none.
        Tracegraph._render_dot(*model_parts(graph), {
          node_fraction: o[:node_fraction], edge_fraction: o[:edge_fraction], max_nodes: o[:max_nodes],
          focus: focus, ignore: ignore,                          # flags per method
          cwd: Dir.pwd,
          waiting: waiting.any? ? waiting : nil,                 # flags per method: drawn grey
          threads: legend_threads(profile),
          context: context.empty? ? nil : graph.methods.map { |m| context[m] }, # a label line per method
          notes: notes,                                          # legend lines
          short_files: Tracegraph.short_paths(graph.methods.map(&:file)),
          method_total: method_total(graph, profile),            # the methods the boxes stand for
          edge_via: via.empty? ? nil : graph.edges.map { |e| via[e] }, # folded chains per edge
          allocations: legend_allocations(graph),
          size_by: o[:size_by],
          tooltips: tooltips(graph, profile),                    # more tooltip lines per method
          held_whole: held_whole(profile, o[:size_by]),
          focus_paths: focus_paths,
          edge_calls_only: profile.arrows_estimated? ? true : false, # times not counted: calls alone
          total_calls: calls,
          recorded_by: profile.recorded_by                       # the legend's last line
        })
      end

      # [the profile to draw, {only_paths: whether it is only the call
      # paths through the focus, left_out: how many methods that left out}
      # for the legend, its note or nil]. Without a call tree (or a method
      # matching), the graph's walk by methods does the focusing (tg_graph.c).
      def focus_paths(profile, pattern)
        return [profile, nil, nil] unless pattern

        focused, left_out = profile.focus_paths(pattern)
        return [profile, {only_paths: false, left_out: 0}, nil] unless focused

        [focused, {only_paths: true, left_out: left_out}, focus_time_note(focused.total_time, profile.total_time)]
      end

      # "Paths through the focus: 12.0 ms of 2.40 s (0.5%)": what the
      # graph's times and percentages are out of.
      def focus_time_note(kept, whole)
        share = whole.positive? ? format(" (%.1f%%)", 100.0 * kept / whole) : ""
        "Paths through the focus: #{Tracegraph.human_time(kept)} of #{Tracegraph.human_time(whole)}#{share}"
      end

      # What "The boxes hold X%" is a share of: the self amounts of the
      # profile's methods (before folding, whose frames no box holds). In a
      # recorded profile they add up to its total; in a profile of medians
      # (--runs) each is a median of its own: on a busy machine the demo's
      # boxes, all but one drawn, held "61.8%" of the median total.
      def held_whole(profile, size_by)
        size_by == :allocations ? profile.methods.sum(&:self_allocations) : profile.methods.sum(&:self_time)
      end

      # The methods the boxes stand for, when it is not one box a method
      # (hubs split per caller, or groups), for the legend; else nil.
      def method_total(graph, profile)
        graph.methods.size == profile.grouped_methods ? nil : profile.grouped_methods
      end

      # The legend's line on times less tracing's cost: "Tracing's cost
      # taken out: 412 ms of 1.20 s, ± 25 ms" (the raw total is the times
      # plus it; ± how sure, Profile::TracingCost).
      def tracing_note(profile)
        "Tracing's cost taken out: #{Tracegraph.tracing_cost_summary(profile)}"
      end

      # The legend's line on a grouped profile without a call tree, whose
      # arrows' times could only be estimated (bounded sums of method
      # edges, model/group_sums.rb): they are drawn with their calls alone,
      # which are exact. Why: no call tree, or one cut at
      # --max-call-tree-nodes. (Under 60 characters, as legend lines are.)
      ARROWS_ESTIMATED = {no_tree: "Arrows give calls only: their times need --call-tree",
                          cut_tree: "Arrows give calls only: the call tree was cut"}.freeze

      # Ruby 4.0 compiles Foo.new to opt_new, which calls initialize
      # straight from the caller: no Class#new box, and nothing is wrong
      # with the stacks (docs/rubies.md).
      def inlined_new_note(profile)
        "Class#new is inlined on Ruby #{profile.recorded_ruby} (no box of its own)"
      end

      # The legend's line on a grouped profile: "Grouped by class: 6,172 methods in 791 classes"
      # (under 60 characters, as legend lines should be; the tooltips name each group's methods).
      def grouping_note(profile)
        what = "#{Profile::GROUPING_PLURALS.fetch(profile.grouping)}#{' and libraries' if profile.grouping == :gem}"
        "Grouped by #{profile.grouping}: #{Tracegraph.group_digits(profile.grouped_methods)} methods in " \
          "#{Tracegraph.group_digits(profile.methods.size)} #{what}"
      end

      # Per box, the tooltip lines naming a group's heaviest methods, or nil.
      def tooltips(graph, profile)
        texts = profile.group_tooltips
        texts.empty? ? nil : graph.methods.map { |m| texts[m] }
      end

      # {self:, total: each method's self and total allocations, whole: the
      # profile's, edges: each edge's, types: each method's biggest types
      # ("String 1,000 · Array 500", or nil) or nil} for the boxes, their
      # tooltips, the legend and size_by: :allocations, or nil without
      # allocations. The form the C writers take them in (the diff graph
      # has no use for types).
      def legend_allocations(profile)
        return nil unless profile.allocations?

        methods = profile.methods
        types = methods.map { |m| AllocationTypes.summary(m.allocations_by_type) }
        {self: methods.map(&:self_allocations), total: methods.map(&:allocations), whole: profile.total_allocations,
         edges: profile.edges.map(&:allocations), types: types.any? ? types : nil}
      end

      # What the legend says of threads: how many the numbers cover, how
      # many were recorded, their names, the wall time or nil, the waiting
      # left out and where it was (Profile#waiting_where).
      def legend_threads(profile)
        {count: profile.threads.size, recorded: profile.recorded_threads, names: profile.thread_names_summary,
         wall_time: profile.wall_time, hidden_waiting: profile.hidden_waiting,
         waiting_where: Tracegraph.printable(profile.waiting_where)}
      end

      # [meta, methods, edges], the form in which the C emitters
      # (Tracegraph._render_dot, _render_diff_dot) take a profile and build
      # their tg_model (core/tg_model.h): meta a Hash that binding/dot_text.c
      # reads by name, the rows plain arrays of the columns below.
      # The legend's first line names the title, else the program.
      def model_parts(profile)
        gc = profile.gc
        meta = {title: (profile.title || profile.program)&.to_s, clock: profile.clock.to_s,
                total_time: profile.total_time,
                gc: {runs: gc.runs, entries: gc.entries, time: gc.total_time, mark_time: gc.mark_time,
                     sweep_time: gc.sweep_time}}
        rows = profile.methods.map do |m|
          [m.name, m.file, m.line, m.c_method ? true : false, m.calls, m.total_time, m.self_time]
        end
        links = profile.edges.map do |e|
          [profile.index_of(e.caller), profile.index_of(e.callee), e.calls, e.total_time, e.self_time]
        end
        [meta, rows, links]
      end

      # Writes the DOT call graph to path; returns the path.
      #   dot -Tpdf call_graph.dot -o call_graph.pdf
      def write(profile, path, **options) = Tracegraph.write_output(path, generate(profile, **options))
    end
  end

  # Validation of to_dot's options, shared by the API and the CLI.
  module DotOptions
    MAX_NODES_LIMIT = 2**32 - 1

    def self.parse(options)
      OptionChecks.known!(options, Formats::Dot::DEFAULTS.keys)
      o = Formats::Dot::DEFAULTS.merge(options)
      %i[node_fraction edge_fraction].each do |key|
        value = o[key]
        unless value.is_a?(Numeric) && value >= 0 && value <= 1
          raise ArgumentError, "#{key} must be a number from 0 to 1, not #{value.inspect}"
        end
        o[key] = value.to_f
      end
      # The renderer counts methods in 32 bits; more cannot exist anyway.
      unless o[:max_nodes].is_a?(Integer) && o[:max_nodes].between?(0, MAX_NODES_LIMIT)
        raise ArgumentError, "max_nodes must be an integer from 0 (no cap) to #{MAX_NODES_LIMIT}, " \
                             "not #{o[:max_nodes].inspect}"
      end
      %i[focus ignore].each { |key| o[key] = regexp(key, o[key]) }
      o[:split_hubs] = OptionChecks.boolean!(:split_hubs, o[:split_hubs])
      o[:fold_chains] = OptionChecks.boolean!(:fold_chains, o[:fold_chains])
      o[:size_by] = size_by(o[:size_by])
      o[:group_by] = Profile.grouping(o[:group_by])
      o
    end

    # :time or :allocations, from a Symbol or String (the CLI's --size-by).
    def self.size_by(value)
      choice = value.to_sym if value.is_a?(Symbol) || value.is_a?(String)
      return choice if Formats::Dot::SIZE_BY.include?(choice)

      raise ArgumentError, "size_by must be one of #{Formats::Dot::SIZE_BY.map(&:inspect).join(', ')}, not #{value.inspect}"
    end

    def self.regexp(key, value)
      case value
      when nil, Regexp then value
      when String
        begin
          Regexp.new(value)
        rescue RegexpError => e
          raise ArgumentError, "#{key}: invalid regular expression #{value.inspect} (#{e.message})"
        end
      else raise ArgumentError, "#{key} must be a Regexp or String, not #{value.class}"
      end
    end
  end
end

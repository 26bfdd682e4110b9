# The profile's data model: methods, caller->callee edges and threads, with
# integer nanosecond times. Every output (DOT, JSON, the flat table) is
# rendered from this one model.
module Tracegraph
  # Raised for misuse: starting twice, stopping when not started, pausing
  # when not running, resuming when not paused, malformed profile files.
  # (The extension defines it first when it is loaded.)
  class Error < StandardError; end unless const_defined?(:Error)

  # The clocks a profile can be recorded with.
  CLOCKS = %i[wall cpu thread_cpu].freeze

  NANOS_PER_SECOND = 1_000_000_000.0

  # Seconds accessors for the nanosecond fields.
  module Seconds
    def total_seconds = total_time / NANOS_PER_SECOND
    def self_seconds = self_time / NANOS_PER_SECOND
  end

  # Defines struct.from_fields(*fields), one from its fields in order,
  # for Profile.from_native, which makes one for each method and edge at
  # every stop: new with keywords builds a Hash for each (3.3 µs a method
  # here; this, 0.6 µs). Written out as code, one assignment a field, as
  # a loop over the members would cost it again.
  def self.define_from_fields(struct)
    fields = struct.members
    struct.singleton_class.class_eval(<<~RUBY, __FILE__, __LINE__ + 1)
      def from_fields(#{fields.join(', ')})
        s = allocate
        #{fields.map { |f| "s.#{f} = #{f}" }.join('; ')}
        s
      end
    RUBY
  end
  private_class_method :define_from_fields

  # One method: "Class#meth" (instance), "Class.meth" (singleton). file and
  # line are where it is defined (nil for C methods). total_time counts
  # each moment once even under recursion; self_time excludes callees.
  # With allocations: true, allocations and self_allocations are the
  # objects allocated in it and everything it called (recursion once) and
  # in it alone; nil in a profile recorded without them.
  # allocations_by_type splits self_allocations by type, {"String" => 1000,
  # "Array" => 500} biggest first (see allocation_types.rb), or is nil.
  MethodStats = Struct.new(:name, :file, :line, :calls, :total_time, :self_time, :c_method,
                           :allocations, :self_allocations, :allocations_by_type, keyword_init: true) do
    include Seconds
    alias_method :c_method?, :c_method

    def to_s = name
    def inspect = "#<Tracegraph::MethodStats #{name} calls=#{calls} total=#{total_time}ns self=#{self_time}ns>"
  end
  define_from_fields(MethodStats)

  # One caller->callee edge. caller and callee are MethodStats; total_time
  # is the time spent in callee when called from caller, self_time the
  # callee's self time in those calls; allocations and self_allocations
  # the same for objects allocated (nil when not recorded).
  EdgeStats = Struct.new(:caller, :callee, :calls, :total_time, :self_time, :allocations, :self_allocations,
                         keyword_init: true) do
    include Seconds

    def inspect = "#<Tracegraph::EdgeStats #{caller.name} -> #{callee.name} calls=#{calls} total=#{total_time}ns>"
  end
  define_from_fields(EdgeStats)

  # One Ruby thread: total_time is the time it spent inside profiled
  # methods, which is also the sum of its methods' self times.
  ThreadStats = Struct.new(:id, :name, :total_time, keyword_init: true) do
    def total_seconds = total_time / NANOS_PER_SECOND
  end

  # One distinct call path (with call_tree: true): parent is the calling
  # path's node or nil for a stack's bottom frame; method is a MethodStats;
  # thread is the ThreadStats of the thread that ran the path (each thread
  # has its own paths), or nil in a file saved before threads were kept.
  # With allocations: true, allocations and self_allocations are the
  # objects allocated in the path and everything it called, and in it
  # alone (calls folded at the cap included, as in self_time); nil without.
  CallTreeNode = Struct.new(:parent, :method, :calls, :total_time, :self_time, :thread,
                            :allocations, :self_allocations, keyword_init: true) do
    # The methods from the bottom of the stack to this node.
    def stack
      node = self
      path = []
      while node
        path << node.method
        node = node.parent
      end
      path.reverse
    end

    def inspect = "#<Tracegraph::CallTreeNode #{stack.map(&:name).join(' > ')} calls=#{calls}>"
  end

  # Garbage collection while recording. runs: collections started (what
  # GC.count counts) on recorded threads; entries: the collector's steps,
  # each a call of the "(garbage collection)" node (a collection takes one
  # step, or several with incremental marking and lazy sweeping); times in
  # nanoseconds of the profile's clock (CPU time for :cpu and :thread_cpu),
  # the whole, then its marking and sweeping parts.
  GCStats = Struct.new(:runs, :entries, :total_time, :mark_time, :sweep_time, keyword_init: true) do
    def total_seconds = total_time / NANOS_PER_SECOND
  end

  class Profile
    # The pseudo-methods garbage collection is recorded as: a step of the
    # collector, called by the method that was running when it began, and
    # its marking and sweeping parts, called by the step. No real method's
    # name has this form ("Owner#name" or "Owner.name").
    GC_NODE = "(garbage collection)"
    GC_MARKING_NODE = "(garbage collection: marking)"
    GC_SWEEPING_NODE = "(garbage collection: sweeping)"
    GC_NODES = [GC_NODE, GC_MARKING_NODE, GC_SWEEPING_NODE].freeze

    attr_reader :clock, :threads, :methods, :edges, :program, :call_tree, :tracing_cost
    # What records the call tree where this profile came from, for the
    # notices of outputs that need it (the HTML report), or nil: set by
    # Tracegraph.stop for the API's profiles.
    attr_accessor :call_tree_hint

    # What was profiled, in words, or nil: a web request's
    # "GET /posts 200 · PostsController#index · 412 ms" (set by the Rack
    # middlewares with titled). Reports show it where they would show the
    # program; views keep it, merges and medians (of many) do not.
    attr_reader :title

    # Which of the hook's two paths recorded it, on which Ruby and why, or
    # nil (a file from before it was kept): "VM reads checked on 3.4.5",
    # "public API only: Ruby 4.1.0's frame layout was not recognised"
    # (Tracegraph::FrameProbe.verdict, docs/rubies.md). Views keep it;
    # merges keep the one their profiles share.
    attr_reader :recorded_by

    # The Ruby that recorded it ("4.0.1"), from recorded_by, or nil.
    def recorded_ruby = recorded_by && recorded_by[/\b(\d+\.\d+\.\d+\S*?)(?:'s\b|\)|\z)/, 1]

    # Whether that Ruby inlines Class#new (opt_new, Ruby 4.0 and later):
    # its graphs have no Class#new, and initialize hangs under the caller.
    def inlined_class_new? = !recorded_ruby.nil? && Gem::Version.new(recorded_ruby[/\A\d+\.\d+\.\d+/]) >= Gem::Version.new("4.0.0")

    # This profile with a title (a String, nil for none).
    def titled(title)
      raise ArgumentError, "title must be a String or nil, not #{title.class}" unless title.nil? || title.is_a?(String)

      copy = derived(methods: methods, edges: edges, call_tree: call_tree, grouped_from: group_origin,
                     recorded_methods: recorded_methods, title: title && Profile.clean_name(title))
      copy.runs = runs
      copy.call_tree_hint = call_tree_hint
      copy
    end

    # Whether the times still hold tracing's own cost (see TracingCost).
    def raw_times? = @tracing_cost.nil?

    # Whether YJIT was on in the recording process. Traced code runs in
    # the interpreter (YJIT compiles no trace_ instruction), so such a
    # profile's times are the interpreter's, not YJIT's (docs/accuracy.md#yjit).
    def yjit? = @yjit

    # The legend's line for such a profile (under 60 characters).
    YJIT_NOTE = "YJIT was on: these are the interpreter's times"

    # Wall-clock time while recording, from start to stop less pauses
    # (nanoseconds), or nil for a profile saved before it was kept. With
    # several threads, total_time (their times summed) can exceed it.
    attr_reader :wall_time

    # Tracing's own cost, taken out of the times (raw_times: false, the
    # default): removed is how much in all (ns, all threads), event_costs
    # what one event of each kind cost ({ruby:, block:, c:}, ns; see
    # Tracegraph::Calibration). A profile whose times still hold it
    # (raw_times: true, and every profile recorded before tracegraph took
    # it out) has none: tracing_cost is nil and raw_times? true.
    #
    # How sure that is: uncertainty, ns in all, or nil (a file from before
    # it was kept), and event_spread, ns per event by kind. An event's cost
    # is sure to its calibration's spread from round to round, plus how far
    # the hook's own time in this recording lay from the calibration's (it
    # is corrected for, but says the machine was not the same: what the VM
    # spends on an event may have moved as much). uncertainty is that over
    # every event recorded; a method's time is sure to about 2 x its calls
    # x its kind's event_spread.
    TracingCost = Struct.new(:removed, :event_costs, :uncertainty, :event_spread, keyword_init: true) do
      # From the recording's tracing result (removed, hook_means), its
      # method rows and its calibration (Tracegraph::Calibration::Result).
      def self.recorded(tracing, method_rows, calibration)
        means = tracing && tracing[:hook_means]
        spread = calibration.spreads.to_h do |kind, ns|
          drift = calibration.hooks.fetch(kind).sum do |direction, base|
            mean = means&.dig(kind, direction)
            mean ? (mean - base).abs / 2.0 : 0
          end
          [kind, (ns + drift).round(1)]
        end
        events = Hash.new(0)
        method_rows.each do |name, _file, _line, c_method, calls|
          next if name.start_with?("(") # the collector's pseudo-methods: no events of the hook

          events[c_method ? :c : name.start_with?("block ") ? :block : :ruby] += 2 * calls
        end
        new(removed: tracing&.dig(:removed) || 0, event_costs: calibration.costs,
            uncertainty: spread.sum { |kind, ns| events[kind] * ns }.round, event_spread: spread)
      end
    end

    # Builds a profile from the extension's plain-data result.
    # calibration: what the recording took out per event
    # (Tracegraph::Calibration::Result), or nil (raw times).
    # yjit: whether YJIT was on while recording; recorded_by: which hook
    # path recorded it (Tracegraph::FrameProbe.verdict).
    def self.from_native(raw, program: nil, calibration: nil, yjit: false, recorded_by: nil)
      clock, threads, methods, edges, complete, tree, gc, wall_time, allocations, tracing =
        raw.values_at(:clock, :threads, :methods, :edges, :complete, :call_tree, :gc, :wall_time, :allocations, :tracing)
      tracing_cost = calibration && TracingCost.recorded(tracing, methods, calibration)
      methods = methods.map do |name, file, line, c_method, calls, total, self_time, allocs, self_allocs, by_type|
        name = Profile.clean_name(name)
        file &&= Profile.clean_name(file)
        if (template = Naming.template_name(name, file))
          # Rails compiles a template into a method defined on line 0 of
          # its file, which has no line 0: its code starts on line 1.
          name = template
          line = 1 if line == 0
        end
        MethodStats.from_fields(name, file, line, calls, total, self_time, c_method, allocs, self_allocs,
                                by_type && AllocationTypes.sorted(by_type))
      end
      edges = edges.map do |caller, callee, calls, total, self_time, allocs, self_allocs|
        EdgeStats.from_fields(methods[caller], methods[callee], calls, total, self_time, allocs, self_allocs)
      end
      threads = threads.each_with_index.map do |(thread, total), i|
        ThreadStats.new(id: i + 1, name: thread_name(thread, i + 1), total_time: total)
      end
      call_tree = tree && call_tree_from(tree, methods, threads)
      gc_runs, *reserved = gc || [0]
      # The GC pseudo-methods are made when first pushed; one that got no
      # call (out of memory) goes. (The call tree keeps the recorded indexes:
      # CallTree#native_methods.)
      recorded = methods
      unused = reserved.filter_map { |i| methods[i] if i >= 0 && methods[i].calls.zero? }
      methods -= unused unless unused.empty?
      new(clock: clock, threads: threads, methods: methods, edges: edges, program: program, complete: complete,
          call_tree: call_tree, gc_runs: gc_runs, wall_time: wall_time, allocations: allocations,
          tracing_cost: tracing_cost, yjit: yjit, recorded_by: recorded_by, recorded_methods: recorded)
    end

    # The methods by the recording's own indexes, those Tracegraph._stack_methods
    # gives while recording (#methods may leave some out); nil for a profile
    # loaded from a file or derived from another.
    attr_reader :recorded_methods

    # [folded_calls, NativeCallTree]
    def self.call_tree_from(raw, methods, threads)
      folded_calls, native = raw
      CallTree.new(folded_calls: folded_calls, native: native, methods: methods, threads: threads)
    end

    def self.thread_name(thread, id)
      return "main" if thread == Thread.main

      thread.name ? clean_name(thread.name.dup) : "thread #{id}"
    end

    NUL = "\0" # a constant: stop checks every name and path with it

    # Names and paths are for people and for files: valid UTF-8, no NULs.
    # Those the extension builds are labelled UTF-8 already, and nearly
    # always clean, so they are checked without a copy.
    def self.clean_name(name)
      return name if name.encoding == Encoding::UTF_8 && name.valid_encoding? && !name.include?(NUL)

      name = name.dup.force_encoding(Encoding::UTF_8)
      name = name.scrub("\uFFFD") unless name.valid_encoding?
      name.tr("\0", "\u2400")
    end

    # allocations: whether the methods and edges carry allocation counts.
    # gc: a GCStats to keep as it is, for a profile whose GC nodes are no
    # longer three (grouped: model/group_by.rb); gc_runs is then unused.
    # tracing_cost: a TracingCost, or nil for raw times. yjit: whether YJIT
    # was on while recording.
    # What a derived profile derives from, said as it is made:
    # viewed_from: a ViewOrigin (model/view.rb), the recording's thread
    # count and the waiting a view left out, for a view, a median or a
    # loaded view; grouped_from: a GroupOrigin (model/group_by.rb), the
    # grouping and the methods its boxes stand for, for a grouped profile;
    # recorded_methods: the methods by the recording's own indexes, for a
    # recording (Profile.from_native).
    def initialize(clock:, threads:, methods:, edges:, program: nil, complete: true, call_tree: nil, gc_runs: 0,
                   wall_time: nil, allocations: false, gc: nil, tracing_cost: nil, title: nil, yjit: false,
                   recorded_by: nil, viewed_from: nil, grouped_from: nil, recorded_methods: nil)
      @clock = clock.to_sym
      @title = title
      @recorded_by = recorded_by
      @threads = threads.freeze
      @methods = methods.freeze
      @edges = edges.freeze
      @program = program
      @complete = complete
      @call_tree = call_tree
      @gc_runs = gc_runs
      @kept_gc = @gc = gc
      @wall_time = wall_time
      @allocations = allocations ? true : false
      @tracing_cost = tracing_cost
      @yjit = yjit ? true : false
      @by_name = methods.group_by(&:name)
      @recorded_methods = recorded_methods
      view_origin!(viewed_from) if viewed_from
      group_origin!(grouped_from) if grouped_from
    end

    # Garbage collection while recording (a GCStats), from the GC nodes and
    # the count of collections. All zero when GC did not run (or was
    # disabled), and for profiles recorded before tracegraph showed GC.
    # A grouped profile keeps its recording's (see initialize).
    def gc
      @gc ||= begin
        step, marking, sweeping = GC_NODES.map { |name| self[name] }
        GCStats.new(runs: @gc_runs, entries: step ? step.calls : 0, total_time: step ? step.total_time : 0,
                    mark_time: marking ? marking.total_time : 0, sweep_time: sweeping ? sweeping.total_time : 0)
      end
    end

    # False if the profiler ran out of memory and had to drop events.
    def complete? = @complete

    # Time inside profiled methods, summed over threads (nanoseconds).
    def total_time = threads.sum(&:total_time)
    def total_seconds = total_time / NANOS_PER_SECOND
    def wall_seconds = wall_time && wall_time / NANOS_PER_SECOND
    def total_calls = methods.sum(&:calls)

    # Whether allocations were recorded (allocations: true): then every
    # method and edge has its counts, else they are nil.
    def allocations? = @allocations

    # Objects allocated inside profiled methods, the sum of their self
    # allocations (as total_time is of self times); nil if not recorded.
    def total_allocations = allocations? ? methods.sum(&:self_allocations) : nil

    # The method with this name, e.g. profile["Object#main"]. If two
    # anonymous owners print the same, the first is returned.
    def [](name)
      @by_name[name]&.first
    end

    # The edge from caller to callee (names or MethodStats), or nil.
    def edge(caller, callee)
      caller = caller.to_s
      callee = callee.to_s
      edges.find { |e| e.caller.name == caller && e.callee.name == callee }
    end

    # Position of a MethodStats in #methods, for formats that refer by index.
    def index_of(method)
      @index_of ||= methods.each_with_index.with_object({}.compare_by_identity) { |(m, i), h| h[m] = i }
      @index_of.fetch(method)
    end

    def inspect
      "#<Tracegraph::Profile clock=#{clock} methods=#{methods.size} edges=#{edges.size} total=#{total_time}ns>"
    end
  end
end

require "tracegraph/model/display"
require "tracegraph/model/allocation_types"
require "tracegraph/model/call_tree"
require "tracegraph/model/merge"
require "tracegraph/model/run_stats"
require "tracegraph/model/waiting"
require "tracegraph/model/view"
require "tracegraph/model/focus"
require "tracegraph/model/reached_only"
require "tracegraph/model/hub_split"
require "tracegraph/model/chain_fold"
require "tracegraph/model/group_by"
require "tracegraph/model/sql_queries"

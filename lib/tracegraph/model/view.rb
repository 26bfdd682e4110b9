# Profile#view: the same profile seen for some of its threads, or without
# its waiting time. Method and edge statistics are kept for all threads
# together, so a view rebuilds them from the call tree, which keeps each
# thread's paths apart (ext/tracegraph/core/tg_calltree.c filters it and
# tg_tree_stats.c sums it, in C). The numbers stay exact: counts, self
# times, and totals that count recursion once, and the same for
# allocations in a profile recorded with allocations: true, whose call
# tree keeps them per path too. A profile saved before the call tree kept
# them has no such view: asking for one raises, rather than give a picture
# whose allocations are silently gone.
module Tracegraph
  class Profile
    # What a view was made from (Profile.new's viewed_from:): how many
    # threads the recording had, the waiting time (ns) left out, and where
    # that waiting was, for Profile#waiting_where: how many threads lost
    # time to it (hidden_waiting_threads; nil where not counted, as in a
    # loaded file) and the waiting methods' names, most time first
    # (hidden_waiting_names; nil for none known).
    ViewOrigin = Struct.new(:recorded_threads, :hidden_waiting, :hidden_waiting_threads, :hidden_waiting_names,
                            keyword_init: true)

    # How many threads the recording had: more than threads.size in a view
    # of some of them.
    def recorded_threads = @recorded_threads || threads.size

    # Waiting time (nanoseconds) a view with idle: :hide left out; 0 otherwise.
    def hidden_waiting = @hidden_waiting || 0

    # This profile's ViewOrigin, which a profile derived from it keeps:
    # what a view of it left out, and where (hidden_waiting: another
    # amount, for a view of this view).
    def view_origin(hidden_waiting: self.hidden_waiting)
      ViewOrigin.new(recorded_threads: recorded_threads, hidden_waiting: hidden_waiting,
                     hidden_waiting_threads: @hidden_waiting_threads, hidden_waiting_names: @hidden_waiting_names)
    end

    # The profile for the threads chosen (see VIEW_OPTIONS), with waiting
    # methods left out if idle: :hide: their boxes go, and so does their
    # time from every caller's total and from the percentages. Returns self
    # when nothing is left out. Needs the call tree (call_tree: true, or
    # tracegraph --call-tree, which --thread and --idle hide turn on)
    # unless the profile has only the threads chosen. Raises
    # Tracegraph::Error for a profile with allocations whose call tree has
    # none (see above).
    def view(threads: :all, idle: :show)
      chosen = choose_threads(threads)
      hide = Profile.idle_choice(idle) == :hide
      return self if chosen.size == self.threads.size && !hide
      return self if hide && methods.none?(&:waiting?) && chosen.size == self.threads.size

      what = hide ? "hide waiting time (idle: :hide)" : "show some threads only (threads: #{threads.inspect})"
      unless call_tree
        raise Error, "cannot #{what}: this profile has no call tree, which keeps each thread's paths apart; " \
                     "record it with call_tree: true (tracegraph --call-tree)"
      end
      if allocations? && !call_tree.allocations?
        raise Error, "cannot #{what} in this profile with allocations: its call tree, which views are made " \
                     "from, has no allocation counts (it was saved by a tracegraph from before they were kept " \
                     "per path); record it again with allocations: true (tracegraph --allocations)"
      end
      view_from_tree(chosen, hide)
    end

    # The threads' names for a legend: all of them, or the first three and
    # how many more.
    def thread_names_summary
      names = threads.map(&:name)
      names = names.first(3) + ["#{names.size - 3} more"] if names.size > 4
      names.join(", ")
    end

    # Splits the view options off an output's keywords: [view, the rest].
    def viewed(options)
      view_options = options.slice(*VIEW_OPTIONS)
      [view_options.empty? ? self : view(**view_options), options.except(*VIEW_OPTIONS)]
    end

    def self.idle_choice(idle)
      idle = idle.to_sym if idle.is_a?(String)
      return idle if IDLE_CHOICES.include?(idle)

      raise ArgumentError, "idle must be :show or :hide, not #{idle.inspect[0, 40]}"
    end

    private

    # The ThreadStats a threads: option names, in the profile's order.
    def choose_threads(choice)
      return threads if choice.nil? || choice == :all || choice == "all"

      wanted = Array(choice)
      raise ArgumentError, "threads: needs at least one thread" if wanted.empty?

      wanted.flat_map { |w| threads_matching(w) }.uniq.sort_by { |t| threads.index(t) }
    end

    def threads_matching(wanted)
      found = case wanted
              when ThreadStats then threads.select { |t| t.equal?(wanted) || t.id == wanted.id }
              when Integer then threads.select { |t| t.id == wanted }
              when /\A\d+\z/ then threads.select { |t| t.id == wanted.to_i || t.name == wanted }
              when String then threads.select { |t| File.fnmatch?(wanted, t.name, File::FNM_EXTGLOB) }
              when Regexp then threads.select { |t| wanted.match?(t.name) }
              else raise ArgumentError, "threads: takes :all, thread names, ids or Regexps, not #{wanted.class}"
              end
      return found unless found.empty?

      known = threads.map { |t| "#{t.id} #{t.name.inspect}" }
      raise Error, "no thread matches #{wanted.inspect[0, 80]} (this profile has #{known.first(12).join(', ')}" \
                   "#{known.size > 12 ? ", and #{known.size - 12} more" : ''})"
    end

    def view_from_tree(chosen, hide)
      native = call_tree.native(methods, threads)
      recorded = call_tree.native_methods
      # The tree's thread indexes are the recording's (a view of a view
      # keeps them), so threads are matched by id.
      tree_threads = call_tree.native_threads
      chosen_ids = chosen.map(&:id)
      thread_flags = tree_threads.map { |t| chosen_ids.include?(t.id) }
      thread_flags << (chosen.size == threads.size) # nodes of a file from before threads were kept apart
      hidden = hide ? recorded.map(&:waiting?) : nil
      # The numbers come from the whole tree (tg_tree_stats.c); the tree
      # kept (tg_calltree_filter) is the view's own, for its stack outputs.
      stats = native._stats(method_count: recorded.size, threads: thread_flags, hidden: hidden, focus: nil)
      thread_times = stats[:threads]
      hidden_time = stats[:hidden_time]
      kept = native._view(threads: thread_flags, hidden: hidden, method_count: recorded.size)[:tree]

      new_methods, new_edges = stats_from_rows(recorded, stats[:methods], stats[:edges])
      new_threads = chosen.map do |t|
        ThreadStats.new(id: t.id, name: t.name, total_time: thread_times[tree_threads.index { |r| r.id == t.id }])
      end
      # The kept tree's method indexes are the recording's; its nodes name
      # the view's MethodStats.
      tree_methods = recorded.each_with_index.map { |m, i| new_methods[i] || m }
      tree = CallTree.new(folded_calls: call_tree.folded_calls, native: kept, methods: tree_methods,
                          threads: call_tree.native_threads)
      origin = view_origin(hidden_waiting: hidden_waiting + hidden_time)
      if hide && hidden_time.positive?
        origin.hidden_waiting_threads = hidden_waiting_threads(chosen, new_threads)
        origin.hidden_waiting_names = waiting_names
      end
      derived(methods: new_methods.values, edges: new_edges, threads: new_threads, call_tree: tree, viewed_from: origin)
    end

    # How many of the threads chosen lost time to hiding the waiting.
    def hidden_waiting_threads(chosen, viewed)
      chosen.zip(viewed).count { |before, after| before.total_time > after.total_time }
    end

    # {recorded index => MethodStats} of the methods called, and their
    # EdgeStats, from NativeCallTree#_stats's rows. Rows end in
    # [allocations, self allocations] when the tree has them.
    def stats_from_rows(recorded, method_rows, edge_rows)
      new_methods = {}
      method_rows.each_with_index do |(calls, total, self_time, allocations, self_allocations), i|
        next if calls.zero?

        m = recorded[i]
        new_methods[i] = MethodStats.new(name: m.name, file: m.file, line: m.line, c_method: m.c_method,
                                         calls: calls, total_time: total, self_time: self_time,
                                         allocations: allocations, self_allocations: self_allocations)
      end
      new_edges = edge_rows.map do |caller, callee, calls, total, self_time, allocations, self_allocations|
        EdgeStats.new(caller: new_methods.fetch(caller), callee: new_methods.fetch(callee), calls: calls,
                      total_time: total, self_time: self_time,
                      allocations: allocations, self_allocations: self_allocations)
      end
      [new_methods, new_edges]
    end

    # (Profile.new's viewed_from:.)
    def view_origin!(origin)
      @recorded_threads = origin.recorded_threads
      @hidden_waiting = origin.hidden_waiting
      @hidden_waiting_threads = origin.hidden_waiting_threads
      @hidden_waiting_names = origin.hidden_waiting_names&.dup&.freeze
    end

    # This profile with other methods and edges (a view, or the graph's
    # copy with hubs split or chains folded): its clock, program, title, path, GC runs,
    # wall time, YJIT's mark, and what a view of it left out stay; so do its GC stats
    # when they were kept whole (gc_stats:, a grouping's: see Profile#initialize).
    # grouped_from: what a grouping's boxes stand for (model/group_by.rb).
    # viewed_from: what the new profile is a view of (a view's own
    # ViewOrigin; by default this profile's, kept as it is).
    # title: and recorded_methods: for a copy that changes only the title
    # (Profile#titled).
    def derived(methods:, edges:, threads: self.threads, call_tree: nil, viewed_from: view_origin,
                gc_stats: @kept_gc, grouped_from: nil, title: self.title, recorded_methods: nil)
      Profile.new(clock: clock, threads: threads, methods: methods, edges: edges, program: program,
                  complete: complete?, call_tree: call_tree, gc_runs: gc.runs, wall_time: wall_time,
                  allocations: allocations?, gc: gc_stats, tracing_cost: tracing_cost, title: title, yjit: yjit?,
                  recorded_by: recorded_by, viewed_from: viewed_from, grouped_from: grouped_from,
                  recorded_methods: recorded_methods)
    end
  end
end

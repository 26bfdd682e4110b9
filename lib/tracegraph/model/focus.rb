# Profile#focus_paths: the profile of only the call paths that pass
# through a method matching a focus, as pprof's -focus keeps only the
# samples with a matching frame. It needs the call tree, which keeps whole
# paths (tg_tree_stats.c sums them in C):
#  - a match, and everything under it on its paths, count whole;
#  - a caller on a path that reaches a match counts its calls there, no
#    self time, and as its total only the matches' time beneath it, so a
#    hub such as Array#each that also runs unrelated blocks keeps only the
#    part of its time spent on the way to a match;
#  - every other method is left out.
# The totals (and so the percentages) are those of the paths kept.
# Without a call tree a focus can only walk the method graph (tg_graph.c):
# the matches' callers' chains and what the matches call, by method.
module Tracegraph
  class Profile
    # [the focused profile, how many of this profile's methods it left
    # out], or nil when that cannot be done exactly: no call tree, no
    # method matching `pattern` (a Regexp), or allocations the tree does
    # not keep per path.
    def focus_paths(pattern)
      return nil unless call_tree
      return nil if allocations? && !call_tree.allocations?
      return nil if methods.none? { |m| pattern.match?(m.name) }

      native = call_tree.native(methods, threads)
      recorded = call_tree.native_methods
      tree_threads = call_tree.native_threads
      # Every thread of the tree is this profile's (a view's tree holds the
      # chosen threads' paths only), and one more for files from before
      # threads were kept apart.
      thread_flags = Array.new(tree_threads.size + 1, true)
      focus = recorded.map { |m| pattern.match?(m.name) }
      stats = native._stats(method_count: recorded.size, threads: thread_flags, hidden: nil, focus: focus)
      thread_times = stats[:threads]
      new_methods, new_edges = stats_from_rows(recorded, stats[:methods], stats[:edges])
      new_threads = threads.map do |t|
        index = tree_threads.index { |r| r.id == t.id }
        ThreadStats.new(id: t.id, name: t.name, total_time: index ? thread_times[index] : 0)
      end
      focused = derived(methods: new_methods.values, edges: new_edges, threads: new_threads)
      [focused, methods.size - new_methods.size]
    end
  end
end

# Folded stacks, the input of flame graph tools: one line per call path,
#   Object#main;Integer#times;Math.sqrt 1403516
# with the path's self time in integer nanoseconds as its weight, so the
# weights add up to the profile's total time. flamegraph.pl, speedscope and
# `gprof2dot -f collapse` read it. Needs a profile recorded with
# call_tree: true, because edges alone cannot rebuild whole stacks.
# Threads are kept apart: when the stacks come from more than one thread,
# each line starts with a frame naming its thread ("thread: main").
module Tracegraph
  class Profile
    # The deepest stack a folded line shows.
    FOLDED_MAX_DEPTH = 1000

    def to_folded
      unless call_tree
        raise Error, "this profile has no call tree: record it with Tracegraph.start(call_tree: true) " \
                     "(or tracegraph --call-tree) to write folded stacks"
      end

      # Each node's path is its parent's plus one frame, built once (nodes
      # come after their parents), so the work is linear in the output.
      # Paths deeper than FOLDED_MAX_DEPTH frames end at that depth: the
      # deeper frames' self time is added to the line of their ancestor
      # there, so deep recursion cannot make the file quadratic.
      paths = {}.compare_by_identity
      depths = {}.compare_by_identity
      weights = Hash.new(0)
      threaded = call_tree_threads.size > 1
      call_tree.nodes.each do |node|
        parent = node.parent
        if parent && depths.fetch(parent) >= FOLDED_MAX_DEPTH
          paths[node] = paths.fetch(parent)
          depths[node] = FOLDED_MAX_DEPTH
        else
          frame = Profile.folded_frame(node.method.name)
          frame = "#{Profile.folded_frame(Profile.thread_label(node.thread))};#{frame}" if threaded && !parent
          paths[node] = parent ? "#{paths.fetch(parent)};#{frame}" : frame
          depths[node] = parent ? depths.fetch(parent) + 1 : 1
        end
        weights[paths[node]] += node.self_time
      end
      weights.reject { |_, w| w.zero? }.sort.map { |path, w| "#{path} #{w}\n" }.join
    end

    def write_folded(path)
      Tracegraph.write_output(path, to_folded)
    end

    # ';' separates frames and a line ends the record: keep both out of names.
    def self.folded_frame(name)
      name.tr(";", ":").gsub(/[\r\n]/, " ")
    end
  end
end

# Walks the call tree depth first, yielding every node with its whole stack,
# for the outputs that write one sample per call path (pprof, speedscope).
# One shared stack array is pushed and popped as the walk goes, so the work
# is linear in the number of nodes plus the frames written.
module Tracegraph
  class Profile
    # The deepest stack a sample shows: a deeper path keeps its bottom
    # STACK_MAX_DEPTH - 1 frames and its leaf, so each method's self time
    # and calls stay exact while deep recursion cannot make the output
    # quadratic in the depth.
    STACK_MAX_DEPTH = 1000

    # Yields (node, frames) for each call-tree node, parents before
    # children; frames are the MethodStats from the stack's bottom to the
    # node. The array is reused: copy it to keep it. With thread (a
    # ThreadStats, or nil for a tree saved without threads), only that
    # thread's paths.
    def each_call_path(thread = :all)
      nodes = call_tree.nodes
      first_child, next_sibling, first_root = @call_tree_links ||= call_tree_links(nodes)
      frames = []
      path = []
      i = first_root
      while i
        if path.empty? && thread != :all && !nodes[i].thread.equal?(thread)
          i = next_sibling[i]
          next
        end
        path.push(i)
        frames.push(nodes[i].method)
        yield nodes[i], frames.size > STACK_MAX_DEPTH ? frames[0, STACK_MAX_DEPTH - 1] << frames.last : frames
        next if (i = first_child[i])

        until i || path.empty?
          i = next_sibling[path.pop]
          frames.pop
        end
      end
    end

    private

    # [first_child, next_sibling, first_root] as node indexes, children in
    # creation order; bottom frames are siblings of each other.
    def call_tree_links(nodes)
      index = {}.compare_by_identity
      nodes.each_with_index { |n, i| index[n] = i }
      first_child = Array.new(nodes.size)
      next_sibling = Array.new(nodes.size)
      first_root = nil
      (nodes.size - 1).downto(0) do |i|
        parent = nodes[i].parent
        if parent
          p = index.fetch(parent)
          next_sibling[i] = first_child[p]
          first_child[p] = i
        else
          next_sibling[i] = first_root
          first_root = i
        end
      end
      [first_child, next_sibling, first_root]
    end
  end
end

# The calling-context tree (call_tree: true): one node per distinct call
# path, per thread. A recorded profile keeps it in C (NativeCallTree, 32
# bytes a node, 48 with allocation counts), and so does one read from
# JSON (formats/json.rb packs it as it reads), and the stack outputs (folded
# stacks, pprof, speedscope, Firefox Profiler) stream from it in C
# (ext/tracegraph/core/tg_stacks.c), so a million-path tree makes no Ruby
# object per node. `nodes` builds CallTreeNodes only when asked for.
module Tracegraph
  # nodes are in creation order, so a parent always comes before its
  # children. folded_calls counts calls past max_call_tree_nodes that were
  # folded into their nearest kept ancestor (their objects too, if counted).
  class CallTree
    attr_reader :folded_calls

    # Either nodes (CallTreeNodes, as a tree is built in Ruby; allocations:
    # whether they carry allocation counts), or native with the profile's
    # methods and threads (as a run is recorded or a file read: the native
    # tree knows).
    def initialize(folded_calls:, nodes: nil, native: nil, methods: nil, threads: nil, allocations: false)
      raise ArgumentError, "a call tree needs nodes or a native tree" unless nodes || native

      @folded_calls = folded_calls
      @nodes = nodes
      @native = native
      @methods = methods
      @threads = threads
      @allocations = native ? native.allocations? : allocations
    end

    def size = @native ? @native.size : @nodes.size

    # Whether each node has allocations and self_allocations: a tree
    # recorded with allocations: true (by a tracegraph that kept them in
    # the tree; a file from before has none).
    def allocations? = @allocations

    def nodes
      @nodes ||= build_nodes(@native._rows).freeze
    end

    # The tree as the C writers take it, packed from nodes for a tree
    # built in Ruby, its method indexes into methods (the profile's).
    # threads are the profile's, and a node without a thread (a file
    # written before threads were kept apart) gets one more index.
    def native(methods, threads)
      @native ||= begin
        @methods = methods
        @threads = threads
        # By identity from the start: two methods (Structs) with the same
        # name and numbers are equal by value, and to_h would merge them.
        method_index = methods.each_with_index.with_object({}.compare_by_identity) { |(m, i), h| h[m] = i }
        thread_index = threads.each_with_index.with_object({}.compare_by_identity) { |(t, i), h| h[t] = i }
        parents = []
        node_index = {}.compare_by_identity
        nodes.each_with_index do |n, i|
          node_index[n] = i
          parents << (n.parent ? node_index.fetch(n.parent) : ROOT - thread_index.fetch(n.thread, threads.size))
        end
        counted = allocations?
        NativeCallTree._pack(parents: parents.pack("L*"), methods: nodes.map { |n| method_index.fetch(n.method) }.pack("L*"),
                             calls: nodes.map(&:calls).pack("Q*"), totals: nodes.map(&:total_time).pack("Q*"),
                             selfs: nodes.map(&:self_time).pack("Q*"),
                             allocations: counted ? nodes.map(&:allocations).pack("Q*") : nil,
                             self_allocations: counted ? nodes.map(&:self_allocations).pack("Q*") : nil)
      end
    end

    # The methods the native tree's method indexes refer to: as recorded,
    # which may hold methods the profile left out (the garbage collector's
    # pseudo-methods when nothing called them), so never the profile's own
    # list by position.
    def native_methods = @methods

    # The threads the native tree's thread indexes refer to: the recording's
    # (a view of some threads keeps them all, so never the view's list).
    def native_threads = @threads

    # A bottom frame's parent in a native tree is ROOT - its thread's index.
    ROOT = 0xFFFF_FFFE

    private

    # [[parent index or -1, method index, calls, total, self, thread index
    #   for a bottom frame(, allocations, self allocations)], ...] -> CallTreeNodes
    # (a bottom frame of a file without threads has the index after them: nil)
    def build_nodes(rows)
      nodes = []
      rows.each do |parent, method, calls, total, self_time, thread, allocations, self_allocations|
        parent = parent.negative? ? nil : nodes.fetch(parent)
        nodes << CallTreeNode.new(parent: parent, method: @methods.fetch(method), calls: calls, total_time: total,
                                  self_time: self_time, thread: parent ? parent.thread : @threads[thread],
                                  allocations: allocations, self_allocations: self_allocations)
      end
      nodes
    end
  end

  class Profile
    # The deepest stack a stack output shows. Folded lines stop there (the
    # deeper frames' self time goes to the line of their ancestor at that
    # depth); a pprof or speedscope sample keeps its bottom
    # STACK_MAX_DEPTH - 1 frames and its leaf, so flat numbers stay exact.
    # Either way deep recursion cannot make the output quadratic. (The
    # Firefox Profiler's stack table has one entry per path, so it has
    # every frame of every path.)
    STACK_MAX_DEPTH = 1000

    # Raises unless the profile has the call tree a stack output needs.
    def require_call_tree!(what)
      return if call_tree

      raise Error, "this profile has no call tree: record it with Tracegraph.start(call_tree: true) " \
                   "(or tracegraph --call-tree) to write #{what}"
    end
  end
end

# The numbers of a grouped profile (model/group_by.rb says what they
# mean): each group's calls, self and total time (and allocations), and
# the arrows between groups. From the call tree they are exact
# (GroupSums.from_tree); from the method edges alone the totals and the
# arrows are estimates (GroupSums.from_edges).
module Tracegraph
  class Profile
    class GroupSums
      # groups: {name => MethodStats}; arrows: {[from, to] => EdgeStats};
      # members: {name => [MethodStats]}: a group's methods, a C method as
      # the piece of it the group holds; origin: {piece => the C method};
      # exact: whether the totals and arrows are exact (from the tree).
      attr_reader :groups, :arrows, :members, :origin, :exact

      # From the call tree, or nil when the tree cannot say (a node whose
      # method the profile has not, or calls folded past the tree's size).
      def self.from_tree(profile, own)
        tree = profile.call_tree
        return nil if tree.folded_calls.to_i.positive?

        by_name = profile.methods.to_h { |m| [m.name, m] }
        nodes = tree.nodes
        node_method = nodes.map { |n| own.key?(n.method) ? n.method : by_name[n.method.name] }
        return nil if node_method.any?(&:nil?)

        new(profile, exact: true).tap { |sums| sums.send(:walk, nodes, node_method, own) }
      end

      def self.from_edges(profile, own)
        methods, edges, group_of, origin = CSplit.new(profile.methods, profile.edges, own, Grouping::C_METHODS).split
        new(profile, exact: false).tap { |sums| sums.send(:sum_edges, methods, edges, group_of, origin) }
      end

      def initialize(profile, exact:)
        @profile = profile
        @exact = exact
        @allocations = profile.allocations?
        @groups = {}
        @arrows = {}
        @members = {}
        @origin = {}.compare_by_identity
      end

      private

      def group(name)
        @groups[name] ||= MethodStats.new(name: name, file: nil, line: nil, c_method: true, calls: 0, total_time: 0,
                                          self_time: 0, allocations: @allocations ? 0 : nil,
                                          self_allocations: @allocations ? 0 : nil, allocations_by_type: nil)
      end

      def arrow(from, to)
        @arrows[[from, to]] ||= EdgeStats.new(caller: group(from), callee: group(to), calls: 0, total_time: 0,
                                              self_time: 0, allocations: @allocations ? 0 : nil,
                                              self_allocations: @allocations ? 0 : nil)
      end

      # ---- from the call tree: exact ---------------------------------------

      # One walk of the tree's paths. A node's group is its method's, or,
      # for a C method, its parent's (so the nearest Ruby caller's; the top
      # group at the bottom of a stack). Per path it keeps how many nodes
      # of each group are open, and how many calls from each group into
      # each other one: a group's total is the time of its outermost
      # nodes, an arrow's the time of its outermost crossings, so each
      # moment is counted once, however the groups recurse into each other.
      def walk(nodes, node_method, own)
        members_from(@profile.methods.select { |m| own[m] }, own)
        parent = Array.new(nodes.size)
        children = Array.new(nodes.size) { [] }
        index = {}.compare_by_identity
        roots = []
        nodes.each_with_index do |n, i|
          index[n] = i
          next roots << i unless n.parent

          parent[i] = index.fetch(n.parent)
          children[parent[i]] << i
        end
        node_group = Array.new(nodes.size)
        open = Hash.new(0)
        open_arrows = Hash.new(0)
        c_pieces = {}
        stack = roots.reverse.map { |i| [i, true] }
        until stack.empty?
          i, entering = stack.pop
          from = parent[i] && node_group[parent[i]]
          unless entering
            to = node_group[i]
            open[to] -= 1
            open_arrows[[from, to]] -= 1 if from && from != to
            next
          end
          n = nodes[i]
          m = node_method[i]
          to = node_group[i] = own[m] || from || Grouping::C_METHODS
          add_c_piece(c_pieces, m, to, n) unless own[m]
          add_node(to, from, n, open, open_arrows)
          stack << [i, false]
          children[i].reverse_each { |c| stack << [c, true] }
        end
        @members.each { |name, ms| group(name).c_method = ms.all? { |m| @origin.key?(m) } }
      end

      def add_node(to, from, n, open, open_arrows)
        g = group(to)
        g.self_time += n.self_time
        g.self_allocations += n.self_allocations || 0 if @allocations
        if from != to
          g.calls += n.calls
          add_crossing(arrow(from, to), n, open_arrows[[from, to]].zero?) if from
          open_arrows[[from, to]] += 1 if from
        end
        if open[to].zero?
          g.total_time += n.total_time
          g.allocations += n.allocations || 0 if @allocations
        end
        open[to] += 1
      end

      def add_crossing(a, n, outermost)
        a.calls += n.calls
        a.self_time += n.self_time
        a.self_allocations += n.self_allocations || 0 if @allocations
        return unless outermost

        a.total_time += n.total_time
        a.allocations += n.allocations || 0 if @allocations
      end

      # The piece of C method m that group holds, summed over its nodes.
      def add_c_piece(pieces, m, group, n)
        piece = pieces[[m.object_id, group]] ||= begin
          p = MethodStats.new(name: m.name, file: m.file, line: m.line, c_method: m.c_method, calls: 0, total_time: 0,
                              self_time: 0, allocations: m.allocations && 0, self_allocations: m.self_allocations && 0)
          @origin[p] = m
          (@members[group] ||= []) << p
          p
        end
        piece.calls += n.calls
        piece.total_time += n.total_time
        piece.self_time += n.self_time
        piece.self_allocations += n.self_allocations || 0 if piece.self_allocations
        piece.allocations += n.allocations || 0 if piece.allocations
      end

      def members_from(methods, group_of)
        methods.each { |m| (@members[group_of[m]] ||= []) << m }
        @members.each_key { |name| group(name) }
      end

      # ---- from the method edges: estimated --------------------------------

      def sum_edges(methods, edges, group_of, origin)
        @origin = origin
        members_from(methods, group_of)
        @members.each do |name, ms|
          g = group(name)
          g.c_method = ms.all?(&:c_method)
          g.self_time = ms.sum(&:self_time)
          next unless @allocations

          g.self_allocations = ms.sum { |m| m.self_allocations || 0 }
          g.allocations_by_type = AllocationTypes.sum(ms.map(&:allocations_by_type)) if ms.all?(&:allocations_by_type)
        end
        add_calls_and_totals(methods, edges, group_of)
        bound_totals(methods, group_of)
        add_arrows(edges, group_of)
      end

      def add_calls_and_totals(methods, edges, group_of)
        # Calls and time coming in: from another group, or from no caller
        # (what a method's own numbers have beyond its callers' edges).
        incoming = Hash.new { |h, m| h[m] = [0, 0, 0] }.compare_by_identity
        edges.each do |e|
          sums = incoming[e.callee]
          sums[0] += e.calls
          sums[1] += e.total_time
          sums[2] += e.allocations || 0
        end
        reentry = Reentry.new(edges, group_of, incoming)
        edges.each do |e|
          next if group_of[e.caller] == group_of[e.callee]

          g = group(group_of[e.callee])
          g.calls += e.calls
          outside = 1.0 - reentry.inside_share(e.caller, group_of[e.callee])
          g.total_time += (e.total_time * outside).round
          g.allocations += ((e.allocations || 0) * outside).round if @allocations
        end
        methods.each do |m|
          calls, total, allocations = incoming[m]
          g = group(group_of[m])
          g.calls += [m.calls - calls, 0].max
          g.total_time += [m.total_time - total, 0].max
          g.allocations += [(m.allocations || 0) - allocations, 0].max if @allocations
        end
      end

      # The share of a call into a group from another group's method X
      # that is inside a call of the group already: a block the group's
      # method passes to an iterator (Set#merge -> Enumerable#each_entry ->
      # Range#each -> block in Set#merge) re-enters it, and that time is the
      # group's once. Without a call tree it is estimated from X's callers,
      # up to DEPTH calls up: the part of X's time its callers had from
      # inside the group is taken as inside. Exact when each method on the
      # way is called only from inside the group's calls or only from
      # outside them; on a recorded program with iterators, within 0.1% of
      # the call tree's exact totals.
      class Reentry
        DEPTH = 4

        # incoming: {MethodStats => [calls, total, allocations] of its callers' edges}
        def initialize(edges, group_of, incoming)
          @callers_of = edges.group_by { |e| e.callee.object_id }
          @group_of = group_of
          @incoming = incoming
          @memo = {}
        end

        def inside_share(x, group) = share(x, group, @memo[group] ||= {}.compare_by_identity, DEPTH)

        private

        def share(x, group, memo, depth)
          return 1.0 if @group_of[x] == group
          return memo[x] if memo.key?(x)
          return 0.0 if depth.zero? || x.total_time.zero?

          memo[x] = 0.0 # a cycle of callers counts as outside
          callers = @callers_of[x.object_id] || []
          inside = callers.sum { |e| e.total_time * share(e.caller, group, memo, depth - 1) }
          memo[x] = [inside.fdiv([x.total_time, @incoming[x][1]].max), 1.0].min
        end
      end

      # Recursion makes a method's callers' edges hold more time than the
      # method (a call inside a call of it is in both), and then its calls
      # from no caller look like none: a group's total is at least its self
      # time and each of its methods' totals, and at most the whole.
      def bound_totals(methods, group_of)
        methods.group_by { |m| group_of[m] }.each do |name, ms|
          g = group(name)
          g.total_time = g.total_time.clamp([g.self_time, ms.map(&:total_time).max].max,
                                            [@profile.total_time, g.self_time].max)
          next unless @allocations

          g.allocations = [g.allocations, g.self_allocations, ms.map { |m| m.allocations || 0 }.max].max
        end
      end

      # The method edges between different groups, summed per pair of
      # groups, then bounded: an edge nested in another edge between the
      # same groups (A -> B -> A -> B) is in both sums, which the edges
      # cannot tell apart, so an arrow is kept at most its callee's total,
      # its caller's and the whole (estimated: the call tree makes it exact).
      def add_arrows(edges, group_of)
        edges.each do |e|
          from = group_of[e.caller]
          to = group_of[e.callee]
          next if from == to

          a = arrow(from, to)
          a.calls += e.calls
          a.total_time += e.total_time
          a.self_time += e.self_time
          next unless @allocations

          a.allocations += e.allocations || 0
          a.self_allocations += e.self_allocations || 0
        end
        @arrows.each_value do |a|
          a.total_time = [a.total_time, a.callee.total_time, a.caller.total_time, @profile.total_time].min
          a.self_time = [a.self_time, a.callee.self_time].min
          a.allocations = [a.allocations, a.callee.allocations, a.caller.allocations].min if @allocations
        end
      end
    end
    private_constant :GroupSums
  end
end

require "tracegraph/model/group_c_split"

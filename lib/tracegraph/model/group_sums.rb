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
      # The tree's paths are summed in C, in the walk that rebuilds views
      # (tg_tree_stats.c, with a grouping), so no Ruby object is made per
      # node: own gives each method's group, a C method (nil) takes its
      # caller's, and the bottom of a stack is "(C) methods".
      def self.from_tree(profile, own)
        tree = profile.call_tree
        return nil if tree.folded_calls.to_i.positive?

        native = tree.native(profile.methods, profile.threads)
        by_name = profile.methods.to_h { |m| [m.name, m] }
        methods = tree.native_methods.map { |m| own.key?(m) ? m : by_name[m.name] }
        names = own.values.compact.uniq
        top = names.index(Grouping::C_METHODS) || (names << Grouping::C_METHODS).size - 1
        index = names.each_with_index.to_h
        group_of = methods.map { |m| m && own[m] && index.fetch(own[m]) }
        sums = native._group_stats(group_of: group_of, group_count: names.size, top_group: top,
                                   thread_count: tree.native_threads.size + 1)
        # A method the profile has not is a piece of its caller's group: any
        # node of one means the tree cannot say.
        return nil if sums[:pieces].any? { |method, *| methods[method].nil? }

        new(profile, tree_rows: [names, methods, own, *sums.values_at(:groups, :arrows, :pieces)])
      end

      def self.from_edges(profile, own)
        new(profile, edge_split: CSplit.new(profile.methods, profile.edges, own, Grouping::C_METHODS).split)
      end

      # The sums of profile, made from one of: tree_rows, [names, methods,
      # own, group rows, arrow rows, piece rows] (from_tree: exact), or
      # edge_split, CSplit#split's [methods, edges, group_of, origin]
      # (from_edges: estimated).
      def initialize(profile, tree_rows: nil, edge_split: nil)
        raise ArgumentError, "GroupSums needs tree_rows: or edge_split:, one of them" unless tree_rows.nil? ^ edge_split.nil?

        @profile = profile
        @exact = !tree_rows.nil?
        @allocations = profile.allocations?
        @groups = {}
        @arrows = {}
        @members = {}
        @origin = {}.compare_by_identity
        tree_rows ? from_rows(*tree_rows) : sum_edges(*edge_split)
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

      # From NativeCallTree#_group_stats's rows: per group (by index in
      # names), per arrow, per piece (a C method's part in a group: its
      # calls and self time there, and as its total the time of its nodes
      # there with no call of the same method above them, so a C method's
      # pieces add up to its calls, self and total time).
      def from_rows(names, methods, own, group_rows, arrow_rows, piece_rows)
        members_from(@profile.methods.select { |m| own[m] }, own)
        piece_rows.each do |method, g, calls, total, self_time, allocations, self_allocations|
          m = methods[method]
          piece = MethodStats.new(name: m.name, file: m.file, line: m.line, c_method: m.c_method, calls: calls,
                                  total_time: total, self_time: self_time,
                                  allocations: m.allocations && (allocations || 0),
                                  self_allocations: m.self_allocations && (self_allocations || 0))
          @origin[piece] = m
          (@members[names[g]] ||= []) << piece
          group(names[g])
        end
        group_rows.each_with_index do |row, i|
          set(@groups[names[i]], *row) if @groups.key?(names[i])
        end
        arrow_rows.each { |from, to, *row| set(arrow(names[from], names[to]), *row) }
        @members.each { |name, ms| group(name).c_method = ms.all? { |m| @origin.key?(m) } }
      end

      def set(stats, calls, total, self_time, allocations = nil, self_allocations = nil)
        stats.calls = calls
        stats.total_time = total
        stats.self_time = self_time
        return unless @allocations

        stats.allocations = allocations || 0
        stats.self_allocations = self_allocations || 0
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

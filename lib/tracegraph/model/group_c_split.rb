# Grouping without a call tree: a C method's numbers go to the groups of
# the Ruby methods that called it (model/group_by.rb). CSplit turns the
# method-level profile into one where each C method is one piece per
# group it was called from, and every other method is itself, so that a
# group is again a function of the (piece of a) method.
#
# A C method's calls, times and allocations are shared out in proportion
# to its callers' edges, which hold them exactly per caller: the edge from
# a Ruby method goes wholly to that method's group; the edge from another
# C method is shared as that caller's total time is (the C caller's own
# shares, computed first; a cycle of C callers is left out of the
# weights). What a method has beyond its callers' edges (calls from no
# caller: the bottom of a stack) goes to the top group, "(C) methods".
# Each method's numbers are apportioned in whole units (largest
# remainders), so a group's self time is still an exact sum and the
# groups' add up to the profile's.
module Tracegraph
  class Profile
    class CSplit
      QUANTITIES = %i[calls total_time self_time allocations self_allocations].freeze

      # own: {MethodStats => its group, or nil for a C method}; top: the
      # group of what no Ruby method called.
      def initialize(methods, edges, own, top)
        @methods = methods
        @edges = edges
        @own = own
        @top = top
        loops, others = edges.partition { |e| e.caller.equal?(e.callee) }
        @callers = others.group_by { |e| e.callee.object_id }
        @loops = loops.to_h { |e| [e.callee.object_id, e] }
        @shares = {}.compare_by_identity
        @weights = {}.compare_by_identity
        @pieces = {}.compare_by_identity
      end

      # [methods, edges, {method or piece => group}, {piece => the method it is part of}]
      def split
        group_of = {}.compare_by_identity
        origin = {}.compare_by_identity
        methods = @methods.flat_map do |m|
          next [m.tap { group_of[m] = @own[m] }] if @own[m]

          pieces_of(m).each { |g, piece| group_of[piece] = g; origin[piece] = m }.values
        end
        edges = @edges.flat_map { |e| split_edge(e) }
        # Pieces an edge needed that the weights had none of (a cycle of C callers).
        @pieces.each do |m, by_group|
          by_group.each do |g, piece|
            next if group_of.key?(piece)

            methods << piece
            group_of[piece] = g
            origin[piece] = m
          end
        end
        [methods, edges, group_of, origin]
      end

      # Largest remainders: whole numbers, in proportion to weights, that
      # sum to total ({key => 0} for a nil or zero total).
      def self.apportion(total, weights)
        sum = weights.values.sum
        return weights.transform_values { total && 0 } if total.nil? || total.zero? || sum <= 0

        raw = weights.transform_values { |w| total * w / sum }
        out = raw.transform_values(&:floor)
        (total - out.values.sum).times.zip(raw.sort_by { |k, r| [-(r - r.floor), k.to_s] }) { |_, (k, _)| out[k] += 1 }
        out
      end

      private

      # {group => fraction} of a method's total time: 1.0 of its own group
      # for a Ruby method.
      def shares(m)
        return {@own[m] => 1.0} if @own[m]
        return @shares[m] if @shares.key?(m) # {} while being computed: a cycle

        @shares[m] = {}
        w = weights(m)
        by = [:total_time, :calls].map { |q| w[q] }.find { |h| h.values.sum.positive? } || {@top => 1.0}
        sum = by.values.sum
        @shares[m] = by.transform_values { |v| v / sum }
      end

      # {quantity => {group => weight}} for a C method, from its callers'
      # edges. A C method that calls itself shares those calls as it shares
      # the rest: its edge to itself is left out of the weights, and is not
      # taken for calls from no caller either.
      def weights(m)
        @weights[m] ||= QUANTITIES.to_h do |q|
          w = Hash.new(0.0)
          into = (@loops[m.object_id] && @loops[m.object_id][q]) || 0
          (@callers[m.object_id] || []).each do |e|
            v = e[q] || 0
            into += v
            shares(e.caller).each { |g, f| w[g] += v * f }
          end
          w[@top] += m[q] - into if m[q] && m[q] > into
          [q, w]
        end
      end

      # {group => piece} for a C method.
      def pieces_of(m)
        w = weights(m)
        fallback = shares(m)
        numbers = QUANTITIES.to_h do |q|
          [q, CSplit.apportion(m[q], w[q].values.sum.positive? ? w[q] : fallback)]
        end
        # A group whose share rounds to nothing gets no piece.
        groups = numbers.values.flat_map { |n| n.reject { |_, v| v.nil? || v.zero? }.keys }.uniq
        groups = [@top] if groups.empty?
        groups.to_h { |g| [g, piece(m, g, numbers.to_h { |q, n| [q, m[q] && (n[g] || 0)] })] }
      end

      def piece(m, group, numbers = nil)
        by_group = @pieces[m] ||= {}
        by_group[group] ||= MethodStats.new(
          name: m.name, file: m.file, line: m.line, c_method: m.c_method,
          calls: numbers ? numbers[:calls] : 0, total_time: numbers ? numbers[:total_time] : 0,
          self_time: numbers ? numbers[:self_time] : 0,
          allocations: m.allocations && (numbers ? numbers[:allocations] : 0),
          self_allocations: m.self_allocations && (numbers ? numbers[:self_allocations] : 0),
          allocations_by_type: nil
        )
      end

      # One edge per group of its caller: a C caller's edges are shared as
      # its total time is; a C callee's part is the piece of that group.
      def split_edge(e)
        from = shares(e.caller)
        from = {@top => 1.0} if from.empty?
        parts = QUANTITIES.to_h { |q| [q, CSplit.apportion(e[q], from)] }
        # A part that rounds to no call and no time is left out: a C method
        # called from hundreds of groups would otherwise split every edge
        # of its callees hundreds of ways.
        from.each_key.filter_map do |g|
          next if parts[:calls][g].zero? && parts[:total_time][g].zero? && parts[:self_time][g].zero? &&
                  !parts[:allocations][g]&.positive?

          caller = @own[e.caller] ? e.caller : piece(e.caller, g)
          callee = @own[e.callee] ? e.callee : piece(e.callee, g)
          EdgeStats.new(caller: caller, callee: callee, calls: parts[:calls][g], total_time: parts[:total_time][g],
                        self_time: parts[:self_time][g], allocations: e.allocations && parts[:allocations][g],
                        self_allocations: e.self_allocations && parts[:self_allocations][g])
        end
      end
    end
    private_constant :CSplit
  end
end

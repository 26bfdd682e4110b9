# Pass-through chains: a real program's graph often starts with a spine of
# frames that only pass the call on (rubocop: CLI#run, Environment#run,
# Command.run, ... each 0.00% self), boxes that take room from the ones
# that matter. The graph folds each chain of two or more such frames into
# one bold arrow, "via 3 frames · ×1 · 2.3 s", whose tooltip names them.
#
# A frame passes through when it has one caller, which made all of its
# calls, one callee, and negligible self time, and is not a block. The arrow from the chain's
# caller to its end carries the last hop's numbers (calls, total and self
# time of the end when called through the chain), which are exact. A chain
# is not folded where its caller also calls its end directly: the two
# arrows would have to be summed.
module Tracegraph
  class Profile
    FOLD_MIN_FRAMES = 2
    # "Negligible": at most this share of the profile's total time.
    FOLD_MAX_SELF_SHARE = 0.001

    # [profile with chains folded, {folded edge => "B\nC"}, legend notes];
    # self, {} and [] when nothing folds.
    def fold_chains
      ins = edges.group_by { |e| e.callee.object_id }
      outs = edges.group_by { |e| e.caller.object_id }
      limit = total_time * FOLD_MAX_SELF_SHARE
      through = methods.select { |m| pass_through?(m, ins[m.object_id], outs[m.object_id], limit) }
                       .to_h { |m| [m.object_id, outs[m.object_id].first] }
      return [self, {}, []] if through.empty?

      folded = {}.compare_by_identity # edge => the frames its chain stands for
      gone = {}.compare_by_identity   # edges and methods folded away
      direct = edges.to_h { |e| [[e.caller.object_id, e.callee.object_id], true] }
      edges.each do |start|
        next if through.key?(start.caller.object_id) || !through.key?(start.callee.object_id)

        chain = [start.callee]
        hop = through[start.callee.object_id]
        seen = {start.callee.object_id => true}
        while through.key?(hop.callee.object_id) && !seen[hop.callee.object_id]
          seen[hop.callee.object_id] = true
          chain << hop.callee
          hop = through[hop.callee.object_id]
        end
        next if chain.size < FOLD_MIN_FRAMES || seen[hop.callee.object_id] ||
                direct[[start.caller.object_id, hop.callee.object_id]]

        arrow = EdgeStats.new(caller: start.caller, callee: hop.callee, calls: hop.calls,
                              total_time: hop.total_time, self_time: hop.self_time,
                              allocations: hop.allocations, self_allocations: hop.self_allocations)
        folded[arrow] = chain.map(&:name).join("\n")
        gone[start] = true
        chain.each { |m| gone[m] = true; gone[through[m.object_id]] = true }
      end
      return [self, {}, []] if folded.empty?

      kept_edges = edges.reject { |e| gone[e] } + folded.keys
      profile = derived(methods: methods.reject { |m| gone[m] }, edges: kept_edges)
      frames = folded.values.sum { |names| names.count("\n") + 1 }
      note = "Folded #{frames} pass-through frames into #{folded.size} bold arrow#{'s' unless folded.size == 1} " \
             "(their tooltips name them)"
      [profile, folded, [note]]
    end

    private

    def pass_through?(method, ins, outs, limit)
      ins&.size == 1 && outs&.size == 1 && ins.first.calls == method.calls && method.self_time <= limit &&
        !ins.first.caller.equal?(method) && !outs.first.callee.equal?(method) && !GC_NODES.include?(method.name) &&
        !BLOCK_NAME.match?(method.name) # a block is the program's own code: always a box
    end
  end
end

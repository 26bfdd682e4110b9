# Hubs: an iterator (Array#each, Integer#times, or any method that yields)
# that many methods call, each with a block of its own, is one box that every
# caller's arrow goes in to and every block's arrow comes out of. Nobody
# can tell which caller's block did the work, and the iterator's self time
# (the cost of iterating, every caller's) looks like one hot spot.
#
# The graph draws such a method as one box per caller, "Array#each / from
# Foo#bar", when the profile says exactly what is whose:
#  - its callers' edges account for all of its calls and all of its self
#    time (edge self time is the callee's self time in those calls), so
#    each part's calls, self and total times (and allocations, which
#    edges split the same way) are its caller's edge's; edges keep no
#    allocations by type, so a part has them only where they follow (see
#    part_allocations_by_type);
#  - everything it calls is a block that one of those callers defines
#    ("block in Foo#bar" is Foo#bar's; "block (2 levels) in Foo#bar" is
#    "block in Foo#bar"'s), and that caller is the only one of its name.
# Anything else (a call through &:sym, the garbage collector starting in
# it, a caller that is not a method) leaves the method whole: the parts
# would be guesses. The numbers of every part are recorded ones.
require "tracegraph/model/naming"

module Tracegraph
  class Profile
    # A block that shares its line with another of its level ends in its
    # column or order (Naming::BLOCK_PLACE): its own, not its owner's, so
    # left out of the owner's name.
    BLOCK_NAME = /\Ablock (?:\((\d+) levels\) )?in (.+?)(?:#{Naming::BLOCK_PLACE.source})?\z/m

    # [the profile with its hubs split per caller, what each box is a part
    # of ({MethodStats => "from Foo#bar"}), legend notes]; self and no
    # notes when there is nothing to split.
    def split_hubs
      ins = edges.group_by { |e| e.callee.object_id }
      outs = edges.group_by { |e| e.caller.object_id }
      plans = methods.filter_map { |m| hub_plan(m, ins.fetch(m.object_id, []), outs.fetch(m.object_id, [])) }
      return [self, {}, []] if plans.empty?

      split_profile(plans)
    end

    private

    # [method, {in-edge => its out-edges}] if the method can be split.
    def hub_plan(method, ins, outs)
      return nil unless ins.size >= 2 && outs.any?
      return nil unless ins.sum(&:calls) == method.calls && ins.sum(&:self_time) == method.self_time
      return nil if ins.any? { |e| e.caller.equal?(method) }

      by_caller_name = ins.group_by { |e| e.caller.name }
      parts = ins.to_h { |e| [e, []] }
      outs.each do |out|
        owner = block_owner_name(out.callee.name) or return nil
        candidates = by_caller_name[owner]
        return nil unless candidates&.size == 1

        parts[candidates.first] << out
      end
      [method, parts]
    end

    # The name of the frame that runs the iterator a block is given to:
    # the method the block is in, or the enclosing block.
    def block_owner_name(name)
      match = BLOCK_NAME.match(name) or return nil
      levels = (match[1] || 1).to_i
      return match[2] if levels == 1

      levels == 2 ? "block in #{match[2]}" : "block (#{levels - 1} levels) in #{match[2]}"
    end

    def split_profile(plans)
      part_of = {}.compare_by_identity  # edge in => its part (a MethodStats)
      context = {}.compare_by_identity
      replaced = {}.compare_by_identity # hub => its parts
      plans.each do |method, parts|
        replaced[method] = parts.keys.map do |edge_in|
          part = MethodStats.new(name: method.name, file: method.file, line: method.line, c_method: method.c_method,
                                 calls: edge_in.calls, total_time: edge_in.total_time, self_time: edge_in.self_time,
                                 allocations: edge_in.allocations, self_allocations: edge_in.self_allocations,
                                 allocations_by_type: part_allocations_by_type(method, edge_in.self_allocations))
          part_of[edge_in] = part
          parts[edge_in].each { |out| part_of[out] = part }
          context[part] = "from #{edge_in.caller.name}"
          part
        end
      end
      new_methods = methods.flat_map { |m| replaced.fetch(m, [m]) }
      new_edges = edges.map do |e|
        part = part_of[e]
        next e unless part

        e.callee.equal?(part) || replaced.key?(e.callee) ? edge_with(e, callee: part) : edge_with(e, caller: part)
      end
      [derived(methods: new_methods, edges: new_edges), context, ["Split per caller: #{split_summary(plans)}"]]
    end

    # A part's self allocations by type, where the hub's say what they are:
    # none if it allocated none, all of one type if the hub's are; else nil.
    def part_allocations_by_type(hub, self_allocations)
      types = hub.allocations_by_type
      return nil unless types && self_allocations
      return {}.freeze if self_allocations.zero?

      types.size == 1 ? {types.keys.first => self_allocations}.freeze : nil
    end

    # "Array#each (4), Integer#times (3) and 12 more", the busiest first.
    def split_summary(plans)
      named = plans.sort_by { |m, _| [-m.total_time, m.name] }.map { |m, parts| "#{m.name} (#{parts.size})" }
      return named.join(", ") if named.size <= 4

      "#{named.first(3).join(', ')} and #{named.size - 3} more"
    end

    def edge_with(edge, caller: edge.caller, callee: edge.callee)
      EdgeStats.new(caller: caller, callee: callee, calls: edge.calls, total_time: edge.total_time,
                    self_time: edge.self_time, allocations: edge.allocations, self_allocations: edge.self_allocations)
    end
  end
end

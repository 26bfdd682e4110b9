# Profile.merge: several profiles summed into one, matched by name. The
# Rack middleware's save_every uses it to write one profile for many
# requests; it works as well on profiles loaded from JSON.
module Tracegraph
  class Profile
    # Sums profiles of the same clock: methods by name, edges by caller and
    # callee names, threads by name (their ids renumbered). Call counts and
    # times add up exactly, so self times still add up to the total. A
    # method's file, line and kind come from the first profile that has it.
    # The result is complete only if every profile was; call trees are not
    # merged (the result has none); GC runs add up. Allocation counts add
    # up too, if every profile has them; otherwise the sum has none (a sum
    # missing some runs' objects would be wrong), and so do the methods'
    # allocations by type, if every profile has those. Recorded under YJIT
    # if any was. Raises ArgumentError for
    # an empty list, something that is not a Profile, or mixed clocks.
    def self.merge(profiles)
      profiles, clock = combinable!(profiles, "Profile.merge", "merge")
      allocations = profiles.all?(&:allocations?)
      methods = merge_methods(profiles, allocations)
      new(clock: clock, threads: merge_threads(profiles), methods: methods.values,
          edges: merge_edges(profiles, methods, allocations), program: profiles.first.program,
          complete: profiles.all?(&:complete?), gc_runs: profiles.sum { |p| p.gc.runs },
          wall_time: profiles.all?(&:wall_time) ? profiles.sum(&:wall_time) : nil, allocations: allocations,
          tracing_cost: merged_tracing_cost(profiles) { |removed| removed.sum }, yjit: profiles.any?(&:yjit?),
          recorded_by: profiles.map(&:recorded_by).uniq.one? ? profiles.first.recorded_by : nil)
    end

    # The profiles' tracing costs combined (the removed times by `combine`),
    # or nil if any holds raw times: then the combination does too, in part.
    def self.merged_tracing_cost(profiles)
      return nil if profiles.any?(&:raw_times?)

      costs = profiles.map(&:tracing_cost)
      uncertainties = costs.map(&:uncertainty)
      TracingCost.new(removed: yield(costs.map(&:removed)), event_costs: costs.first.event_costs,
                      uncertainty: uncertainties.all? ? yield(uncertainties) : nil,
                      event_spread: costs.first.event_spread)
    end

    # profiles as an Array, and their one clock; raises ArgumentError for
    # an empty list, something that is not a Profile, or mixed clocks.
    # `method` names the caller in messages; `verb` what it does.
    def self.combinable!(profiles, method, verb)
      profiles = profiles.to_a
      raise ArgumentError, "#{method} needs at least one profile" if profiles.empty?

      profiles.each do |p|
        raise ArgumentError, "#{method} takes Tracegraph::Profile objects, not #{p.class}" unless p.is_a?(Profile)
      end
      clocks = profiles.map(&:clock).uniq
      raise ArgumentError, "cannot #{verb} profiles of different clocks (#{clocks.join(', ')})" if clocks.size > 1
      if profiles.map(&:raw_times?).uniq.size > 1
        raise ArgumentError, "cannot #{verb} profiles with raw times and profiles with tracing's cost taken out " \
                             "(docs/accuracy.md)"
      end

      [profiles, clocks.first]
    end

    def self.merge_methods(profiles, allocations)
      zero = allocations ? 0 : nil
      types = allocations && profiles.all?(&:allocations_by_type)
      profiles.flat_map(&:methods).each_with_object({}) do |m, by_name|
        sum = by_name[m.name] ||= MethodStats.new(name: m.name, file: m.file, line: m.line, c_method: m.c_method,
                                                  calls: 0, total_time: 0, self_time: 0,
                                                  allocations: zero, self_allocations: zero,
                                                  allocations_by_type: types ? {} : nil)
        add_stats(sum, m, allocations)
        sum.allocations_by_type = AllocationTypes.sum([sum.allocations_by_type, m.allocations_by_type]) if types
      end
    end

    def self.merge_edges(profiles, methods, allocations)
      zero = allocations ? 0 : nil
      profiles.flat_map(&:edges).each_with_object({}) do |e, by_names|
        sum = by_names[[e.caller.name, e.callee.name]] ||=
          EdgeStats.new(caller: methods.fetch(e.caller.name), callee: methods.fetch(e.callee.name),
                        calls: 0, total_time: 0, self_time: 0, allocations: zero, self_allocations: zero)
        add_stats(sum, e, allocations)
      end.values
    end

    # Adds a method's or an edge's numbers to sum's.
    def self.add_stats(sum, stats, allocations)
      sum.calls += stats.calls
      sum.total_time += stats.total_time
      sum.self_time += stats.self_time
      return unless allocations

      sum.allocations += stats.allocations
      sum.self_allocations += stats.self_allocations
    end

    def self.merge_threads(profiles)
      totals = profiles.flat_map(&:threads).each_with_object(Hash.new(0)) { |t, h| h[t.name] += t.total_time }
      totals.each_with_index.map { |(name, total), i| ThreadStats.new(id: i + 1, name: name, total_time: total) }
    end
    private_class_method :combinable!, :merge_methods, :merge_edges, :add_stats, :merge_threads
  end
end

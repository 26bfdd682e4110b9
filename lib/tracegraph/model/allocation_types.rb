# Allocations by type (allocations: true): the objects each method
# allocated itself, counted by the kind of object Ruby made. The hook reads
# each new object's builtin type (ext/tracegraph/alloc_events.c) into one
# of a few buckets, named for users:
#   String, Array, Hash,
#   Object            instances of classes written in Ruby, exceptions
#   Proc              procs and lambdas (a block made an object)
#   Struct            Struct and Data instances
#   Numeric           heap Floats, Bignums, Rationals, Complexes
#   Regexp/MatchData  regexps and their matches
#   Class/Module      classes, modules, singleton classes, included modules
#   C data            other objects of C types: Time, Enumerator, Method, ...
#   VM internal       the VM's own (T_IMEMO): inline caches, captured environments
#   Other             IO, dynamic Symbols, anything else
# A method's counts (MethodStats#allocations_by_type) add up to its self
# allocations exactly, and the profile's (Profile#allocations_by_type) to
# total_allocations. Counts by type are kept for methods only, not edges.
module Tracegraph
  module AllocationTypes
    module_function

    # counts (name => count) without the zeros, biggest first (ties by
    # name), frozen.
    def sorted(counts)
      counts.reject { |_, n| n.zero? }.sort_by { |name, n| [-n, name] }.to_h.freeze
    end

    # The sum of several such hashes, sorted; nil if any is nil.
    def sum(list)
      return nil if list.any?(&:nil?)

      sorted(list.each_with_object(Hash.new(0)) { |counts, total| counts.each { |name, n| total[name] += n } })
    end

    # "String 1,000 · Array 500 · 37 in 2 more types" (the biggest `top`),
    # or nil for none.
    def summary(counts, top: 4)
      return nil if counts.nil? || counts.empty?

      shown = counts.first(top).map { |name, n| "#{name} #{Tracegraph.group_digits(n)}" }
      rest = counts.drop(top)
      unless rest.empty?
        shown << "#{Tracegraph.group_digits(rest.sum { |_, n| n })} in #{rest.size} more " \
                 "type#{'s' unless rest.size == 1}"
      end
      shown.join(" \u00B7 ")
    end
  end

  class Profile
    # The objects allocated inside profiled methods by type, {"String" =>
    # 1000, ...}, biggest first: the sum of the methods' own. nil without
    # allocations: true, and for a profile some of whose methods have no
    # counts by type (a file written before they were kept).
    def allocations_by_type
      return nil unless allocations?
      return @allocations_by_type if defined?(@allocations_by_type)

      @allocations_by_type = AllocationTypes.sum(methods.map(&:allocations_by_type))
    end
  end
end

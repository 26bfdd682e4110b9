# The call tree for the HTML report's flame graph (html/flame.js), packed
# small enough for a tree at its cap (a million paths) to fit the page:
# the nodes depth first, each thread's in turn, every node's children
# biggest total first, and per node five unsigned integers in BER
# (base-128, as Array#pack("w") writes them), base64 encoded:
#
#   pops     how many levels this node sits above the one before it ends:
#            the previous node's depth + 1 - this node's depth
#   method   index into the report's methods, or methods.size + i for
#            extra_methods[i] (a method the tree names that the profile
#            left out)
#   calls, self_time
#   residual total_time - self_time - the children's total_times,
#            zigzag encoded (0 ↦ 0, 1 ↦ 2, -1 ↦ 1): 0 in nearly every
#            node, so a total costs one byte and stays exact
#
# The page rebuilds every node's exact calls, total and self from these.

module Tracegraph
  module Formats
    module HtmlFlame
      module_function

      # The flame graph's data, or nil without a call tree.
      # Why a profile has no call tree, where the profile says (a median
      # of several runs), or what records one where it knows (the API's
      # profiles: call_tree: true, Profile#call_tree_hint), for the
      # report's notice; nil otherwise, and then the notice gives no
      # advice: a saved report cannot tell whether it came from the
      # command line, the API, Tracegraph::Rack or the Railtie, and advice
      # for one is wrong for the others.
      def missing_reason(profile)
        return nil if profile.call_tree

        return "it is the median of several runs, --runs" if profile.runs

        profile.call_tree_hint
      end

      def data(profile)
        tree = profile.call_tree
        return nil unless tree

        native = tree.native(profile.methods, profile.threads)
        rows = native._rows
        index, extra = method_indexes(profile, tree.native_methods)
        threads = tree.native_threads
        order, depths, counts = depth_first(rows, threads.size)
        numbers = pack(rows, order, depths, index)
        {
          "nodes" => rows.size, "folded_calls" => tree.folded_calls,
          # Each thread's nodes, in order; a thread a view left out has none.
          "threads" => (threads.each_with_index.map { |t, i| {"id" => t.id, "name" => t.name, "nodes" => counts[i]} } +
                        [{"id" => nil, "name" => "(threads not kept apart)", "nodes" => counts.last}])
                       .select { |t| t["nodes"].positive? },
          "extra_methods" => extra.map(&:name),
          "waiting" => profile.methods.each_index.select { |i| profile.methods[i].waiting? } +
                       extra.each_index.select { |i| extra[i].waiting? }.map { |i| profile.methods.size + i },
          "tree" => [numbers].pack("m0") # base64 without the base64 gem, not a default gem from Ruby 3.4
        }
      end

      # The report's index of each of the tree's methods, and the methods
      # the tree names that the profile does not have.
      def method_indexes(profile, tree_methods)
        by_identity = profile.methods.each_with_index.with_object({}.compare_by_identity) { |(m, i), h| h[m] = i }
        extra = []
        index = tree_methods.map do |m|
          by_identity.fetch(m) do
            extra << m
            profile.methods.size + extra.size - 1
          end
        end
        [index, extra]
      end

      # The nodes' indexes depth first (threads in order, each node's
      # children by total, biggest first, then as created), and each one's
      # depth, without recursion (any depth works); and how many nodes each
      # thread has (a bottom frame's row holds its thread index; in a file
      # from before threads were kept apart, nil: put after the threads).
      def depth_first(rows, thread_count)
        children = Array.new(rows.size) { nil }
        bottoms = Array.new(thread_count + 1) { [] }
        rows.each_with_index do |(parent, _m, _c, _total, _self, thread), i|
          if parent.negative?
            bottoms[thread || thread_count] << i
          else
            (children[parent] ||= []) << i
          end
        end
        # (Most nodes have one child or none: no sort.)
        by_total = ->(list) { list.size < 2 ? list : list.sort_by { |i| [-rows[i][3], i] } }
        order = []
        depths = Array.new(rows.size, 0)
        stack = []
        counts = bottoms.map do |list|
          before = order.size
          by_total.(list).reverse_each { |i| stack << i }
          until stack.empty?
            i = stack.pop
            order << i
            parent = rows[i][0]
            depths[i] = parent.negative? ? 0 : depths[parent] + 1
            kids = children[i]
            by_total.(kids).reverse_each { |k| stack << k } if kids
          end
          order.size - before
        end
        [order, depths, counts]
      end

      def pack(rows, order, depths, index)
        child_totals = Array.new(rows.size, 0)
        rows.each { |parent, _m, _c, total| child_totals[parent] += total unless parent.negative? }
        numbers = []
        previous = -1
        order.each do |i|
          _parent, method, calls, total, self_time = rows[i]
          depth = depths[i]
          residual = total - self_time - child_totals[i]
          numbers.push(previous + 1 - depth, index[method], calls, self_time,
                       residual.negative? ? -2 * residual - 1 : 2 * residual)
          previous = depth
        end
        numbers.pack("w*")
      end
    end
  end
end

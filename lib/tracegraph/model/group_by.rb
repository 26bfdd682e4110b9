# Profile#group_by: the profile seen at a coarser grain, one box per
# class, source file or gem, for programs whose time is spread over
# thousands of methods (rubocop's over 6,000: no 80 methods hold most of
# it, but a few dozen classes or a handful of gems do).
#
# The numbers are sums of the methods' own, so they stay exact:
#   - a group's calls are the calls into it from outside it, plus its
#     methods' calls from no caller (the roots of the stacks);
#   - its self time (and self allocations) is the sum of its methods';
#     a call inside the group is no arrow, its time stays the group's self;
#   - its total time counts each moment once, however deep the group
#     recurses into itself. With a call tree (call_tree: true) it is the
#     time of the paths that enter the group, summed over the outermost
#     entries: exact. Without one it is the time of the calls that enter
#     the group from outside (and of its root calls), less what of them
#     is inside a call of the group already, estimated (see Reentry); a
#     method that recurses can hide a root call's time (its callers'
#     edges then hold more than it), so the total is kept at least the
#     group's self time and each of its methods' totals, and at most the
#     profile's total.
#   - an arrow between two groups sums the method edges between them.
#
# What a group is (GROUPINGS):
#   :method  no grouping (the profile itself)
#   :class   the method's owner: "Foo#bar", "Foo.bar" and "block in
#            Foo#bar" are Foo's; "<main>", "<top (required)>" and class
#            bodies are "(top level)"
#   :file    the file it is defined in, as labels show it (relative to the
#            current directory or the gem, "(ruby) json/common.rb"); a C
#            method has no file and goes to "(C) Owner"
#   :gem     the gem its file is in ("parser 3.1"), "(ruby) json" for
#            Ruby's own library, "app" for the rest; C methods, whose
#            gem cannot be told from the profile, go to "(C) methods"
# The garbage collector's steps are "(garbage collection)" in every grouping;
# the grouped profile's gc (GCStats) is the methods' own, marking and
# sweeping included.
module Tracegraph
  class Profile
    GROUPINGS = %i[method class file gem].freeze
    # What more than one of each grouping's groups are called in messages.
    GROUPING_PLURALS = {method: "methods", class: "classes", file: "files", gem: "gems"}.freeze
    # How many of a group's methods its tooltip names, heaviest (self) first.
    GROUP_TOOLTIP_METHODS = 8

    # The profile with one MethodStats per group (see above); self for
    # :method. Each group's MethodStats has c_method set when all of its
    # methods are C methods. The grouped profile has no call tree.
    def group_by(grouping)
      grouping = Profile.grouping(grouping)
      return self if grouping == :method

      key = Grouping::BY.fetch(grouping)
      group_of = methods.each_with_object({}.compare_by_identity) { |m, h| h[m] = Grouping.public_send(key, m) }
      members = methods.group_by { |m| group_of[m] }
      groups = members.to_h { |name, ms| [name, group_stats(name, ms)] }
      add_group_calls_and_totals(groups, group_of)
      # The GC group holds the marking and sweeping nodes too, so the legend's
      # GC line (runs, steps, marking, sweeping) is kept from the methods'.
      grouped = derived(methods: groups.values, edges: group_edges(groups, group_of), gc_stats: gc)
      grouped.send(:grouped_from, grouping, members, methods.size)
      grouped.runs = group_runs(members) if runs
      grouped
    end

    # :method, :class, :file or :gem, from a Symbol or String (the CLI's --group-by).
    def self.grouping(value)
      choice = value.to_sym if value.is_a?(Symbol) || value.is_a?(String)
      return choice if GROUPINGS.include?(choice)

      raise ArgumentError, "group_by must be one of #{GROUPINGS.map(&:inspect).join(', ')}, not #{value.inspect}"
    end

    # The grouping this profile was made with (:method for a recorded one).
    def grouping = @grouping || :method

    # How many methods the boxes stand for (methods.size unless grouped).
    def grouped_methods = @grouped_methods || methods.size

    # For a grouped profile: the name of the group a method (a MethodStats
    # of the profile grouped, or a name: the first method of that name) is
    # in, "Foo" for "Foo#bar" by class; nil if it is none of them.
    def group_of(method)
      return nil unless @members

      @group_of ||= @members.each_with_object({}.compare_by_identity) { |(group, ms), h| ms.each { |m| h[m] = group } }
      @group_of_name ||= @members.each_with_object({}) { |(group, ms), h| ms.each { |m| h[m.name] ||= group } }
      method.is_a?(MethodStats) ? @group_of[method] : @group_of_name[method.to_s]
    end

    # For a grouped profile: {group MethodStats => a tooltip naming its
    # heaviest methods}, else {}.
    def group_tooltips
      return {} unless @members

      @group_tooltips ||= methods.each_with_object({}.compare_by_identity) do |g, h|
        ms = @members.fetch(g.name).sort_by { |m| [-m.self_time, m.name] }
        lines = ms.first(GROUP_TOOLTIP_METHODS).map do |m|
          "#{m.name}: self #{Tracegraph.human_time(m.self_time)}, #{Tracegraph.group_digits(m.calls)} call#{m.calls == 1 ? '' : 's'}"
        end
        lines << "and #{Tracegraph.group_digits(ms.size - GROUP_TOOLTIP_METHODS)} more" if ms.size > GROUP_TOOLTIP_METHODS
        h[g] = "#{Tracegraph.group_digits(ms.size)} method#{ms.size == 1 ? "" : "s"}, heaviest first:\n#{lines.join("\n")}"
      end
    end

    private

    def grouped_from(grouping, members, method_count)
      @grouping = grouping
      @members = members
      @grouped_methods = method_count
    end

    # The per-run samples of a median profile (tracegraph --runs), per
    # group: self times summed run by run, which is exact. Calls into a
    # group are not kept per run, so a group's per-run calls are its
    # methods' calls summed: their spread is what the calls gate takes as
    # the noise. Methods in fewer than half the runs (left out of the
    # median profile) are left out of the sums.
    def group_runs(members)
      zero = Array.new(runs.count, 0)
      by_name = members.transform_values do |ms|
        [ms.map { |m| runs.self_times(m.name) }.inject(zero) { |a, b| a.zip(b).map(&:sum) },
         ms.map { |m| runs.calls(m.name) }.inject(zero) { |a, b| a.zip(b).map(&:sum) }]
      end
      RunSamples.new(count: runs.count, total_times: runs.total_times, by_name: by_name)
    end

    # A group's MethodStats with the sums that need no edges: self time and
    # allocations. calls and total_time are filled in by add_group_calls_and_totals.
    def group_stats(name, ms)
      types = allocations? && ms.all?(&:allocations_by_type)
      MethodStats.new(name: name, file: nil, line: nil, c_method: ms.all?(&:c_method),
                      calls: 0, total_time: 0, self_time: ms.sum(&:self_time),
                      allocations: allocations? ? 0 : nil,
                      self_allocations: allocations? ? ms.sum(&:self_allocations) : nil,
                      allocations_by_type: types ? AllocationTypes.sum(ms.map(&:allocations_by_type)) : nil)
    end

    def add_group_calls_and_totals(groups, group_of)
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

        g = groups[group_of[e.callee]]
        g.calls += e.calls
        outside = 1.0 - reentry.inside_share(e.caller, group_of[e.callee])
        g.total_time += (e.total_time * outside).round
        g.allocations += (e.allocations * outside).round if g.allocations
      end
      methods.each do |m|
        calls, total, allocations = incoming[m]
        g = groups[group_of[m]]
        g.calls += [m.calls - calls, 0].max
        g.total_time += [m.total_time - total, 0].max
        g.allocations += [m.allocations - allocations, 0].max if g.allocations
      end
      return totals_from_tree(groups, group_of) if call_tree

      bound_totals(groups, group_of)
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
    private_constant :Reentry

    # Recursion makes a method's callers' edges hold more time than the
    # method (a call inside a call of it is in both), and then its calls
    # from no caller look like none: a group's total is at least its self
    # time and each of its methods' totals, and at most the whole.
    def bound_totals(groups, group_of)
      methods.group_by { |m| group_of[m] }.each do |name, ms|
        g = groups[name]
        g.total_time = g.total_time.clamp([g.self_time, ms.map(&:total_time).max].max, [total_time, g.self_time].max)
        next unless g.allocations

        g.allocations = [g.allocations, g.self_allocations, ms.map(&:allocations).max].max
      end
    end

    # Exact totals from the call tree: the paths that enter a group from
    # outside it (its outermost entries), each counted once.
    def totals_from_tree(groups, group_of)
      by_name = methods.to_h { |m| [m.name, m] }
      nodes = call_tree.nodes
      node_group = nodes.map { |n| group_of[n.method] || group_of[by_name[n.method.name]] }
      return if node_group.any?(&:nil?)

      children = Array.new(nodes.size) { [] }
      index = {}.compare_by_identity
      roots = []
      nodes.each_with_index do |n, i|
        index[n] = i
        n.parent ? children[index.fetch(n.parent)] << i : roots << i
      end
      groups.each_value do |g|
        g.total_time = 0
        g.allocations = 0 if g.allocations
      end
      open = Hash.new(0) # group name => how many nodes of the path being walked are in it
      stack = roots.reverse.map { |i| [i, true] }
      until stack.empty?
        i, entering = stack.pop
        name = node_group[i]
        unless entering
          open[name] -= 1
          next
        end
        if open[name].zero?
          g = groups[name]
          g.total_time += nodes[i].total_time
          g.allocations += nodes[i].allocations || 0 if g.allocations
        end
        open[name] += 1
        stack << [i, false]
        children[i].reverse_each { |c| stack << [c, true] }
      end
    end

    # The method edges between different groups, summed per pair of groups.
    def group_edges(groups, group_of)
      sums = {}
      edges.each do |e|
        from = group_of[e.caller]
        to = group_of[e.callee]
        next if from == to

        sum = sums[[from, to]] ||= EdgeStats.new(caller: groups[from], callee: groups[to], calls: 0, total_time: 0,
                                                 self_time: 0, allocations: allocations? ? 0 : nil,
                                                 self_allocations: allocations? ? 0 : nil)
        sum.calls += e.calls
        sum.total_time += e.total_time
        sum.self_time += e.self_time
        next unless allocations?

        sum.allocations += e.allocations
        sum.self_allocations += e.self_allocations
      end
      sums.values
    end

    # What group a method is in, per grouping.
    module Grouping
      TOP_LEVEL = "(top level)"
      GC_GROUP = "(garbage collection)"
      C_METHODS = "(C) methods"
      APP = "app"
      # First directories of a relative path that are an application's
      # own, not a gem's lib/ (see gem).
      APP_DIRS = %w[app lib test spec config bin exe script].freeze
      # The function of each grouping.
      BY = {class: :klass, file: :file, gem: :gem}.freeze

      module_function

      # "Foo" for "Foo#bar", "Foo.bar", "block (2 levels) in Foo#bar".
      def klass(m)
        return GC_GROUP if GC_NODES.include?(m.name)

        name = m.name.sub(BLOCK_NAME) { Regexp.last_match(2) }
        owner = name[/\A(.+)[#.][^#.]+\z/m, 1]
        owner.nil? || owner.start_with?("<") ? TOP_LEVEL : owner
      end

      def file(m)
        return GC_GROUP if GC_NODES.include?(m.name)
        return "(C) #{klass(m)}" unless m.file

        Tracegraph.short_path(m.file)
      end

      # From the method's file (a full path, or one shortened as
      # Tracegraph.short_path does, as saved profiles may have them):
      #   .../gems/NAME-VERSION/...        "NAME MAJOR.MINOR" (Rubygems', Bundler's
      #                                    and Debian's rubygems-integration dirs)
      #   NAME-VERSION/... (shortened)     the same
      #   Ruby's rubylibdir / archdir      "(ruby) FIRST" (json/common.rb -> json)
      #   "(ruby) FIRST..." (shortened)    the same
      #   <internal:rubygems/...>          "(ruby) rubygems"; other <internal:...> "(ruby) core"
      #   vendor_ruby / site_ruby          "FIRST" (Debian installs gems there, without versions)
      #   the current directory, or any    "app"
      #   other absolute path
      #   relative FIRST/... (shortened)   "FIRST": short_path drops a gem's lib/, so
      #                                    rubocop/cli.rb is rubocop's; but app/, lib/, test/,
      #                                    spec/, config/, bin/, exe/, script/ and a file with no
      #                                    directory are "app"
      def gem(m)
        return GC_GROUP if GC_NODES.include?(m.name)
        return C_METHODS unless m.file

        gem_of_path(m.file)
      end

      def gem_of_path(path)
        if (inner = path[/\A<internal:(.+)>\z/m, 1])
          return inner.start_with?("rubygems/") ? "(ruby) rubygems" : "(ruby) core"
        end
        if (gem = path.match(%r{(?:\A|/)gems/(?<name>[^/]+?)-(?<version>\d[^/]*)/}m) ||
                  path.match(%r{\A(?<name>[^/(][^/]*?)-(?<version>\d[\w.]*)/}m))
          return "#{gem[:name]} #{gem[:version].split('.').first(2).join('.')}"
        end
        return ruby_library(path.delete_prefix("(ruby) ")) if path.start_with?("(ruby) ")

        if path.start_with?("/")
          dir = Tracegraph.ruby_library_dirs.find { |d| path.start_with?(d) }
          return APP unless dir

          rest = path.delete_prefix(dir)
          own = [RbConfig::CONFIG["rubylibdir"], RbConfig::CONFIG["rubyarchdir"]].compact.any? { |d| path.start_with?("#{d}/") }
          return own ? ruby_library(rest) : first_part(rest)
        end
        first = path[%r{\A([^/]+)/}, 1]
        first.nil? || APP_DIRS.include?(first) || first.start_with?(".") ? APP : first
      end

      def ruby_library(rest) = "(ruby) #{first_part(rest)}"

      # "json" for "json/common.rb" and for "json.rb".
      def first_part(rest) = rest.split("/").first.to_s.delete_suffix(".rb")
    end
    private_constant :Grouping
  end
end

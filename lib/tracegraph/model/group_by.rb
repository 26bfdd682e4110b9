# Profile#group_by: the profile seen at a coarser grain, one box per
# class, source file or gem, for programs whose time is spread over
# thousands of methods (rubocop's over 6,000: no 80 methods hold most of
# it, but a few dozen classes or a handful of gems do).
#
# A C method is no group of its own: its time is the time of the Ruby
# code that called it (Array#each called from jekyll's code is jekyll's),
# and a group's tooltip names the C methods it holds. C methods called by
# no Ruby method (the bottom of a stack: Kernel#load of the script, a
# method_added of the top level) are "(C) methods". Blocks are their
# method's: "block in Foo#bar" is Foo's.
#
# Each moment is counted once (model/group_sums.rb computes them):
#   - a group's self time (and self allocations) is the sum of its
#     methods' (with the part of each C method it holds), so the groups'
#     add up to the profile's; a call inside the group is no arrow;
#   - its calls are the calls into it from another group or from no caller;
#   - its total time is the time when any of its methods is on the stack,
#     however deep the group recurses into itself;
#   - an arrow A -> B is the time spent in B's methods called from A's,
#     its outermost calls only: an A -> B call inside another A -> B call
#     is not added again, so no arrow holds more than its callee's total,
#     its caller's, or the whole. Its calls are every call from A into B.
# With a call tree (call_tree: true, and not cut at max_call_tree_nodes)
# all of it is exact: one walk of the tree's paths, in C (tg_tree_stats.c,
# the walk that rebuilds views), gives each node its group (a C method's:
# its nearest Ruby ancestor's) and counts totals and arrows at the
# outermost nodes that enter them. Without one:
#   - a C method is shared between its callers' groups by its edges from
#     them, which hold its calls and times per caller exactly (from
#     another C method, shared as that one is; model/group_c_split.rb);
#   - a group's total is the time of the calls that enter it from
#     outside (and of its root calls), less what of them is inside a call
#     of the group already, estimated (see GroupSums::Reentry), and kept
#     between the group's self time (or its biggest method's total) and
#     the whole;
#   - an arrow sums the method edges between the two groups, which count
#     nested calls again, bounded by its callee's total, its caller's and
#     the whole: an estimate, and the graph's legend says so ("Arrows
#     estimated: record with --call-tree for exact ones").
#
# What a group is (GROUPINGS), for a method that is not a C method:
#   :method  no grouping (the profile itself)
#   :class   the method's owner: "Foo#bar", "Foo.bar" and "block in
#            Foo#bar" are Foo's; "<main>", "<top (required)>" and class
#            bodies are "(top level)"
#   :file    the file it is defined in, as labels show it (relative to the
#            current directory or the gem, "(ruby) json/common.rb")
#   :gem     the gem its file is in ("parser 3.1"), "(ruby) json" for
#            Ruby's own library, "app" for the rest
# The garbage collector's steps are "(garbage collection)" in every grouping;
# the grouped profile's gc (GCStats) is the methods' own, marking and
# sweeping included.
module Tracegraph
  class Profile
    # What a grouped profile was made from (Profile.new's grouped_from:):
    # its grouping (:class, :file, :gem), each group's pieces (members, by
    # group name) and the methods they came from (origin: piece => method),
    # how many methods there were, whether the arrows are estimated
    # (:cut_tree, :no_tree, or false: exact) and the method-level profile.
    GroupOrigin = Struct.new(:grouping, :members, :method_count, :origin, :estimated, :source, keyword_init: true)

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
      own = methods.each_with_object({}.compare_by_identity) do |m, h|
        h[m] = Grouping.c_method?(m) ? nil : Grouping.public_send(key, m)
      end
      sums = (call_tree && GroupSums.from_tree(self, own)) || GroupSums.from_edges(self, own)
      # The GC group holds the marking and sweeping nodes too, so the legend's
      # GC line (runs, steps, marking, sweeping) is kept from the methods'.
      estimated = (call_tree ? :cut_tree : :no_tree) unless sums.exact
      origin = GroupOrigin.new(grouping: grouping, members: sums.members, method_count: methods.size,
                               origin: sums.origin, estimated: estimated, source: self)
      grouped = derived(methods: sums.groups.values, edges: sums.arrows.values, gc_stats: gc, grouped_from: origin)
      grouped.runs = group_runs(sums.members, sums.origin) if runs
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

    # What this grouped profile's boxes stand for (a GroupOrigin, as
    # Profile.new's grouped_from: takes it), or nil for an ungrouped one.
    def group_origin
      return nil unless @grouping

      GroupOrigin.new(grouping: @grouping, members: @members, method_count: @grouped_methods, origin: @origin,
                      estimated: @arrows_estimated, source: @ungrouped)
    end

    # How many methods the boxes stand for (methods.size unless grouped).
    def grouped_methods = @grouped_methods || methods.size

    # The method-level profile a grouped one was made from (self unless
    # grouped): exact counts are compared per method (comparison/diff_gate.rb).
    def ungrouped = @ungrouped || self

    # For a grouped profile whose arrows are estimates (sums of method
    # edges, bounded), why: :no_tree (recorded without call_tree: true) or
    # :cut_tree (the tree reached max_call_tree_nodes and folded calls
    # into their ancestors); false when they are exact.
    def arrows_estimated? = @arrows_estimated || false

    # For a grouped profile: the name of the group a method (a MethodStats
    # of the profile grouped, or a name: the first method of that name) is
    # in, "Foo" for "Foo#bar" by class; nil if it is none of them. A C
    # method is in the groups that called it: this is the one that holds
    # the most of its self time.
    def group_of(method)
      return nil unless @members

      @group_of ||= begin
        best = {}.compare_by_identity
        @members.each do |group, ms|
          ms.each do |piece|
            m = @origin[piece] || piece
            best[m] = [piece.self_time, group] if !best[m] || piece.self_time > best[m][0]
          end
        end
        best.transform_values(&:last)
      end
      @group_of_name ||= @group_of.each_with_object({}) { |(m, group), h| h[m.name] ||= group }
      method.is_a?(MethodStats) ? @group_of[method] : @group_of_name[method.to_s]
    end

    # For a grouped profile: {group name => {method name => self time
    # there}} of the C methods each group holds (those its code called).
    def group_c_methods
      return {} unless @members

      @members.transform_values do |ms|
        ms.select { |m| @origin.key?(m) }.to_h { |m| [m.name, m.self_time] }
      end
    end

    # For a grouped profile: {method name => [self time, calls, whether it
    # is a C method]} of a group's methods (of a C method, the part of it
    # the group holds); {} for no such group.
    def group_members(group)
      return {} unless @members

      (@members[group.to_s] || []).each_with_object({}) do |m, h|
        sums = h[m.name] ||= [0, 0, @origin.key?(m)]
        sums[0] += m.self_time
        sums[1] += m.calls
      end
    end

    # For a grouped profile: {group MethodStats => a tooltip naming its
    # heaviest methods}, else {}.
    def group_tooltips
      return {} unless @members

      @group_tooltips ||= methods.each_with_object({}.compare_by_identity) do |g, h|
        ms = @members.fetch(g.name).sort_by { |m| [-m.self_time, m.name] }
        lines = ms.first(GROUP_TOOLTIP_METHODS).map do |m|
          c = @origin.key?(m) ? " (C)" : ""
          "#{m.name}#{c}: self #{Tracegraph.human_time(m.self_time)}, #{Tracegraph.group_digits(m.calls)} call#{m.calls == 1 ? '' : 's'}"
        end
        lines << "and #{Tracegraph.group_digits(ms.size - GROUP_TOOLTIP_METHODS)} more" if ms.size > GROUP_TOOLTIP_METHODS
        c_ms = ms.select { |m| @origin.key?(m) }
        unless c_ms.empty? || g.name == Grouping::C_METHODS
          lines << "C methods its code called: #{Tracegraph.group_digits(c_ms.size)}, self " \
                   "#{Tracegraph.human_time(c_ms.sum(&:self_time))} (#{c_ms.first(3).map(&:name).join(', ')}" \
                   "#{c_ms.size > 3 ? ', ...' : ''})"
        end
        h[g] = "#{Tracegraph.group_digits(ms.size)} method#{ms.size == 1 ? "" : "s"}, heaviest first:\n#{lines.join("\n")}"
      end
    end

    private

    # (Profile.new's grouped_from:.)
    def group_origin!(from)
      @grouping = from.grouping
      @ungrouped = from.source
      @members = from.members
      @grouped_methods = from.method_count
      @origin = from.origin || {}.compare_by_identity
      @arrows_estimated = from.estimated || false
    end

    # The per-run samples of a median profile (tracegraph --runs), per
    # group: self times summed run by run, which is exact (a C method's
    # runs shared as its self time is). Calls into a
    # group are not kept per run, so a group's per-run calls are its
    # methods' calls summed: their spread is what the calls gate takes as
    # the noise. Methods in fewer than half the runs (left out of the
    # median profile) are left out of the sums.
    def group_runs(members, origin)
      zero = Array.new(runs.count, 0)
      part = lambda do |piece, q, samples|
        whole = origin[piece]
        return samples unless whole && whole[q].positive?

        samples.map { |v| (v * piece[q]).fdiv(whole[q]).round }
      end
      by_name = members.transform_values do |ms|
        [ms.map { |m| part.(m, :self_time, runs.self_times(m.name)) }.inject(zero) { |a, b| a.zip(b).map(&:sum) },
         ms.map { |m| part.(m, :calls, runs.calls(m.name)) }.inject(zero) { |a, b| a.zip(b).map(&:sum) }]
      end
      RunSamples.new(count: runs.count, total_times: runs.total_times, by_name: by_name)
    end

    # What group a method is in, per grouping.
    module Grouping
      TOP_LEVEL = "(top level)"
      GC_GROUP = "(garbage collection)"
      # C methods no Ruby method called (see above), in every grouping.
      C_METHODS = "(C) methods"
      APP = "app"
      # First directories of a relative path that are an application's
      # own, not a gem's lib/ (see gem).
      APP_DIRS = %w[app lib test spec config bin exe script].freeze
      # The function of each grouping.
      BY = {class: :klass, file: :file, gem: :gem}.freeze

      module_function

      # A C method (no file, or recorded as one): its numbers go to its
      # callers' groups. The garbage collector's nodes are their own group.
      def c_method?(m) = !GC_NODES.include?(m.name) && (m.c_method || m.file.nil?)

      # "Foo" for "Foo#bar", "Foo.bar", "block (2 levels) in Foo#bar".
      def klass(m)
        return GC_GROUP if GC_NODES.include?(m.name)

        name = m.name.sub(BLOCK_NAME) { Regexp.last_match(2) }
        owner = name[/\A(.+)[#.][^#.]+\z/m, 1]
        owner.nil? || owner.start_with?("<") ? TOP_LEVEL : owner
      end

      def file(m)
        return GC_GROUP if GC_NODES.include?(m.name)

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
require "tracegraph/model/group_sums"

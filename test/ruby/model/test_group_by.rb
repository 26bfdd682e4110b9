require_relative "../test_helper"
require_relative "../cli_helper"
require "tmpdir"

# Profile#group_by (model/group_by.rb): boxes per class, file or gem whose
# numbers are exact sums of the method-level profile's.
class TestGroupBy < TracegraphTest
  include CliHelper

  ALPHA = <<~RUBY
    class GroupAlpha
      def self.make = new
      def run(n) = (1..n).each { GroupBeta.new.work(self) } # Range#each: C on every Ruby
      def back = [1].sum
    end
  RUBY
  BETA = <<~RUBY
    class GroupBeta
      def work(alpha)
        alpha.back
        helper
      end

      def helper = [2].sum
    end
  RUBY

  # Two classes in two files that call each other: GroupAlpha#run's block
  # calls GroupBeta#work, which calls back into GroupAlpha#back.
  def recorded(call_tree:)
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "group_alpha.rb"), ALPHA)
      File.write(File.join(dir, "group_beta.rb"), BETA)
      load File.join(dir, "group_alpha.rb")
      load File.join(dir, "group_beta.rb")
      Tracegraph.profile(gc: false, call_tree: call_tree) { GroupAlpha.make.run(5) }
    end
  end

  def test_class_groups_are_sums_of_their_methods_and_totals_come_from_the_tree
    profile = recorded(call_tree: true)
    grouped = profile.group_by(:class)
    make, run, block, back = ["GroupAlpha.make", "GroupAlpha#run", "block in GroupAlpha#run", "GroupAlpha#back"]
                             .map { |n| method_named(profile, n) }
    work, helper = ["GroupBeta#work", "GroupBeta#helper"].map { |n| method_named(profile, n) }
    alpha = method_named(grouped, "GroupAlpha")
    beta = method_named(grouped, "GroupBeta")

    # Into GroupAlpha: make and run from no caller, back from
    # GroupBeta#work. Range#each is a C method GroupAlpha#run calls, so
    # it and the block it calls back are GroupAlpha's: no call into it.
    into_alpha = make.calls + run.calls + edge_named(profile, work.name, back.name).calls
    assert_equal 7, into_alpha
    assert_equal into_alpha, alpha.calls
    # The C methods' self time is their callers' group's: Array#sum's is
    # split between GroupAlpha#back's calls and GroupBeta#helper's.
    c_of_alpha = profile.methods.select(&:c_method?).sum(&:self_time) - edge_named(profile, helper.name, "Array#sum").self_time
    assert_equal [make, run, block, back].sum(&:self_time) + c_of_alpha, alpha.self_time
    # The outermost entries: make, then run (back runs inside run).
    assert_equal make.total_time + run.total_time, alpha.total_time

    assert_equal 5, beta.calls
    assert_equal work.self_time + helper.self_time + edge_named(profile, helper.name, "Array#sum").self_time, beta.self_time
    assert_equal work.total_time, beta.total_time
    assert_equal({"Array#sum" => edge_named(profile, helper.name, "Array#sum").self_time},
                 grouped.group_c_methods["GroupBeta"])

    assert_equal profile.total_time, grouped.methods.sum(&:self_time)
    assert_equal profile.total_time, grouped.total_time
    assert_equal profile.methods.size, grouped.grouped_methods
    assert_equal :class, grouped.grouping
    assert_nil grouped.call_tree
  end

  def test_edges_between_groups_sum_the_method_edges_and_calls_inside_a_group_are_no_edge
    profile = recorded(call_tree: true)
    grouped = profile.group_by(:class)
    to_beta = edge_named(grouped, "GroupAlpha", "GroupBeta")
    from_block = edge_named(profile, "block in GroupAlpha#run", "GroupBeta#work")
    assert_equal [5, from_block.total_time, from_block.self_time],
                 [to_beta.calls, to_beta.total_time, to_beta.self_time]
    back = edge_named(grouped, "GroupBeta", "GroupAlpha")
    assert_equal edge_named(profile, "GroupBeta#work", "GroupAlpha#back").total_time, back.total_time
    assert_nil grouped.edge("GroupAlpha", "GroupAlpha")
    # Range#each is a C method GroupAlpha calls: GroupAlpha's, no box of its own.
    assert_nil grouped["Range"]
    assert_equal %w[GroupAlpha GroupBeta], grouped.methods.map(&:name).sort
    refute grouped.arrows_estimated?
  end

  def test_without_a_call_tree_calls_back_into_a_group_are_inside_it
    profile = recorded(call_tree: false)
    alpha = method_named(profile.group_by(:class), "GroupAlpha")
    # Range#each and GroupBeta#work call back into GroupAlpha, but only
    # from inside GroupAlpha#run's call: that time is counted once.
    assert_equal method_named(profile, "GroupAlpha.make").total_time + method_named(profile, "GroupAlpha#run").total_time,
                 alpha.total_time
    beta = method_named(profile.group_by(:class), "GroupBeta")
    assert_equal method_named(profile, "GroupBeta#work").total_time, beta.total_time
  end

  # Without a call tree, what a shared iterator calls back is shared out
  # by its callers' time: an estimate, between the group's self time and
  # the whole run.
  def test_a_shared_iterators_calls_back_are_shared_by_its_callers_time
    m = ->(name, total, self_time, calls = 1) { stats(name, "/app/x.rb", calls, total, self_time) }
    a = m.("A#x", 100, 40)
    b = m.("B#y", 50, 10)
    each = m.("X#each", 100, 20, 2)
    block_a = m.("block in A#x", 50, 50)
    block_b = m.("block in B#y", 30, 30)
    e = ->(from, to, total, self_time) {
      Tracegraph::EdgeStats.new(caller: from, callee: to, calls: 1, total_time: total, self_time: self_time)
    }
    edges = [e.(a, each, 60, 12), e.(b, each, 40, 8), e.(each, block_a, 50, 50), e.(each, block_b, 30, 30)]
    profile = Tracegraph::Profile.new(clock: :wall, methods: [a, b, each, block_a, block_b], edges: edges,
                                      threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 150)])
    grouped = profile.group_by(:class)
    # A: its root call (100), and block in A#x's 50 from X#each, 60% of
    # whose time A called: 40% of 50 counted again (the call tree would
    # say 100: the block runs only in A's calls).
    assert_equal 120, grouped["A"].total_time
    assert_equal 90, grouped["A"].self_time
    assert_equal 2, grouped["A"].calls
    # B: 50, and 60% of block in B#y's 30 (B called 40 of X#each's 100).
    assert_equal 68, grouped["B"].total_time
    assert_equal 100, grouped["X"].total_time
  end

  NESTED = <<~RUBY
    class NestA
      def outer(n) = (1..n).each { NestB.new.mid(self) }
      def inner = NestB.new.leaf
    end
    class NestB
      def mid(a) = a.inner
      def leaf = [3].sum
    end
  RUBY

  # NestA#outer -> NestB#mid -> NestA#inner -> NestB#leaf: a call from A
  # into B inside another one. The arrow counts the outermost only.
  def test_an_arrow_counts_each_moment_once_when_groups_recurse_into_each_other
    profile = Dir.mktmpdir do |dir|
      File.write(File.join(dir, "nest.rb"), NESTED)
      load File.join(dir, "nest.rb")
      Tracegraph.profile(gc: false, call_tree: true) { NestA.new.outer(4) }
    end
    grouped = profile.group_by(:class)
    a_to_b = edge_named(grouped, "NestA", "NestB")
    outermost = edge_named(profile, "block in NestA#outer", "NestB#mid")
    nested = edge_named(profile, "NestA#inner", "NestB#leaf")
    assert_equal outermost.total_time, a_to_b.total_time
    assert_equal outermost.calls + nested.calls, a_to_b.calls
    assert_equal method_named(profile, "NestB#mid").total_time, grouped["NestB"].total_time
    assert_operator a_to_b.total_time, :<=, grouped["NestB"].total_time
    assert_operator edge_named(grouped, "NestB", "NestA").total_time, :<=, grouped["NestA"].total_time

    # Without the call tree the edges are summed and then bounded: never
    # above the callee's total, the caller's or the whole.
    estimated = Tracegraph::Profile.parse_json(profile.to_json).then { |p| p.call_tree ? strip_tree(p) : p }.group_by(:class)
    assert estimated.arrows_estimated?
    estimated.edges.each do |e|
      assert_operator e.total_time, :<=, [e.callee.total_time, e.caller.total_time, estimated.total_time].min, e.inspect
    end
  end

  # A call tree cut at max_call_tree_nodes folded calls into their
  # ancestors: it cannot say which group they were in, so the edges decide.
  def test_a_cut_call_tree_gives_estimated_arrows_and_says_why
    profile = Tracegraph.profile(gc: false, call_tree: true, max_call_tree_nodes: 3) { 5.times { [1].sum + 1.pred } }
    assert_operator profile.call_tree.folded_calls, :>, 0
    grouped = profile.group_by(:class)
    assert_equal :cut_tree, grouped.arrows_estimated?
    assert_includes profile.to_dot(group_by: :class), "Arrows give calls only: the call tree was cut"
    assert_equal :no_tree, strip_tree(profile).group_by(:class).arrows_estimated?
  end

  def strip_tree(profile)
    Tracegraph::Profile.new(clock: profile.clock, methods: profile.methods, edges: profile.edges, threads: profile.threads)
  end

  # Without a call tree a C method is shared between the groups that
  # called it by its edges from them: calls, times and self time exactly
  # per caller. What no Ruby method called stays in "(C) methods".
  def test_without_a_call_tree_a_c_method_is_split_between_its_callers_groups
    m = ->(name, file, total, self_time, calls = 1) { stats(name, file, calls, total, self_time, c_method: file.nil?) }
    p_run = m.("P#run", "/g/gems/p-1.0/lib/p.rb", 100, 30)
    q_run = m.("Q#run", "/g/gems/q-2.0/lib/q.rb", 60, 20)
    each = m.("Array#each", nil, 100, 40, 5)
    map = m.("Array#map", nil, 30, 30, 3)
    e = ->(from, to, calls, total, self_time) {
      Tracegraph::EdgeStats.new(caller: from, callee: to, calls: calls, total_time: total, self_time: self_time)
    }
    # Array#each: 3 calls from P (70 ns, 25 self), 1 from Q (20, 10), 1 from no caller (10, 5).
    # Array#map: 3 calls from Array#each, shared as Array#each's total is:
    # 70% P's, 20% Q's, 10% from no caller (30 ns of self: 21, 6 and 3).
    edges = [e.(p_run, each, 3, 70, 25), e.(q_run, each, 1, 20, 10), e.(each, map, 3, 30, 30)]
    profile = Tracegraph::Profile.new(clock: :wall, methods: [p_run, q_run, each, map], edges: edges,
                                      threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 170)])
    grouped = profile.group_by(:gem)
    assert_equal({"p 1.0" => 30 + 25 + 21, "q 2.0" => 20 + 10 + 6, "(C) methods" => 5 + 3},
                 grouped.methods.to_h { |g| [g.name, g.self_time] }.reject { |_, v| v.zero? })
    assert_equal profile.methods.sum(&:self_time), grouped.methods.sum(&:self_time)
    assert_equal({"Array#each" => 25, "Array#map" => 21}, grouped.group_c_methods["p 1.0"])
    assert_equal 1, grouped["(C) methods"].calls
    assert grouped["(C) methods"].c_method?
    refute grouped["p 1.0"].c_method?
    assert_equal "p 1.0", grouped.group_of(each)
  end

  def test_file_groups_hold_the_c_methods_their_code_calls
    profile = recorded(call_tree: true)
    grouped = profile.group_by(:file)
    names = grouped.methods.map(&:name)
    alpha_file = names.find { |n| n.end_with?("group_alpha.rb") } || flunk(names.inspect)
    beta_file = names.find { |n| n.end_with?("group_beta.rb") }
    assert_equal 2, names.size, names.inspect
    assert_equal method_named(profile.group_by(:class), "GroupAlpha").self_time, method_named(grouped, alpha_file).self_time
    assert_equal method_named(profile.group_by(:class), "GroupBeta").self_time, method_named(grouped, beta_file).self_time
  end

  def test_allocations_are_summed_like_time
    profile = Dir.mktmpdir do |dir|
      File.write(File.join(dir, "group_alpha.rb"), ALPHA)
      File.write(File.join(dir, "group_beta.rb"), BETA)
      load File.join(dir, "group_alpha.rb")
      load File.join(dir, "group_beta.rb")
      Tracegraph.profile(gc: false, call_tree: true, allocations: true) { GroupAlpha.make.run(5) }
    end
    grouped = profile.group_by(:class)
    beta = method_named(grouped, "GroupBeta")
    assert_equal %w[GroupBeta#work GroupBeta#helper].sum { |n| method_named(profile, n).self_allocations },
                 beta.self_allocations
    assert_equal method_named(profile, "GroupBeta#work").allocations, beta.allocations
    assert_equal profile.total_allocations, grouped.total_allocations
  end

  def stats(name, file, calls, total, self_time, c_method: false)
    Tracegraph::MethodStats.new(name: name, file: file, line: file && 1, calls: calls, total_time: total,
                                self_time: self_time, c_method: c_method)
  end

  def test_gem_groups_by_path
    libdir = RbConfig::CONFIG["rubylibdir"]
    files = {
      "Parser::Lexer#advance" => "/home/u/.gem/ruby/3.1.0/gems/parser-3.1.0.0/lib/parser/lexer.rb",
      "Rake::Task#invoke" => "/usr/share/rubygems-integration/all/gems/rake-13.0.6/lib/rake/task.rb",
      "JSON.parse" => "#{libdir}/json/common.rb",
      "Set#add" => "(ruby) set.rb",
      "Kernel#require" => "<internal:rubygems/core_ext/kernel_require.rb>",
      "Kernel#tap" => "<internal:kernel>",
      "RuboCop::CLI#run" => "rubocop/cli.rb",
      "Kramdown::Document#to_html" => "kramdown-2.4.0/lib/kramdown/document.rb",
      "App#main" => "lib/app.rb",
      "Object#main" => "/tmp/script.rb"
    }
    methods = files.map { |name, file| stats(name, file, 1, 10, 10) } + [stats("Hash#[]", nil, 1, 5, 5, c_method: true)]
    profile = Tracegraph::Profile.new(clock: :wall, threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 105)],
                                      methods: methods, edges: [])
    groups = profile.group_by(:gem).methods.to_h { |m| [m.name, m.self_time] }
    assert_equal({"parser 3.1" => 10, "rake 13.0" => 10, "(ruby) json" => 10, "(ruby) set" => 10,
                  "(ruby) rubygems" => 10, "(ruby) core" => 10, "rubocop" => 10, "kramdown 2.4" => 10,
                  "app" => 20, "(C) methods" => 5}, groups)
  end

  def test_class_names_of_blocks_singletons_and_top_level
    names = ["block (2 levels) in Foo::Bar#baz", "Foo::Bar.make", "<main>", "block in <class:Foo>", "Foo::Bar#==",
             "(garbage collection)"]
    profile = Tracegraph::Profile.new(clock: :wall, threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 6)],
                                      methods: names.map { |n| stats(n, "x.rb", 1, 1, 1) }, edges: [])
    assert_equal({"Foo::Bar" => 3, "(top level)" => 2, "(garbage collection)" => 1},
                 profile.group_by(:class).methods.to_h { |m| [m.name, m.self_time] })
    assert_same profile, profile.group_by(:method)
    assert_raises(ArgumentError) { profile.group_by(:line) }
  end

  def test_the_graph_names_groups_and_lists_their_heaviest_methods_in_the_tooltip
    profile = recorded(call_tree: true)
    dot = profile.to_dot(group_by: :class, node_fraction: 0, edge_fraction: 0)
    assert_match(/Grouped by class: \d+ methods in \d+ classes/, dot)
    assert_match(/label="GroupAlpha\\n/, dot)
    assert_match(/tooltip="GroupBeta\\n[^"]*3 methods, heaviest first:\\nGroupBeta#(work|helper): self/, dot)
    assert_match(/Array#sum \(C\): self [^"]*C methods its code called: 1, self [^"]*\(Array#sum\)"/, dot)
    refute_includes dot, "Arrows give calls only"
    # The legend counts the profile's calls, not the groups' (calls into them).
    assert_includes dot, " · #{Tracegraph.group_digits(profile.total_calls)} calls\\l"
    arrow_labels = ->(text) { text.scan(/^  N\d+ -> N\d+ \[label=" (.*?) ",/).flatten }
    assert(arrow_labels.(dot).all? { |l| l.match?(/\A×[\d,]+ \\n \S+ \S+\z/) }, arrow_labels.(dot).inspect)
    # Without a call tree the arrows' times can only be estimated: they
    # give their calls, which are exact, and the legend says why.
    estimated = recorded(call_tree: false).to_dot(group_by: :class, node_fraction: 0, edge_fraction: 0)
    assert_includes estimated, "Arrows give calls only: their times need --call-tree"
    refute_empty arrow_labels.(estimated)
    assert(arrow_labels.(estimated).all? { |l| l.match?(/\A×[\d,]+\z/) }, arrow_labels.(estimated).inspect)
    assert_raises(ArgumentError) { profile.to_dot(group_by: :lines) }
  end

  def test_the_diff_of_grouped_profiles_compares_groups
    base = recorded(call_tree: false).group_by(:class)
    head = recorded(call_tree: false).group_by(:class)
    row = base.diff(head).rows.find { |r| r.name == "GroupBeta" } || flunk("no GroupBeta row")
    assert_equal [base["GroupBeta"].self_time, head["GroupBeta"].self_time, 5, 5],
                 [row.base_self, row.head_self, row.base_calls, row.head_calls]
  end
end

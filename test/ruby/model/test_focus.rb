require_relative "../test_helper"
require "stringio"

# A focus keeps the paths through its matches (model/focus.rb with a call
# tree, tg_graph.c's walk by methods without one). The program: a small
# method and a big CSV-like parse, both run from blocks of the same hub
# (Array#each, and instance_exec under it), as in issue 36's Ledger::Book.
class TestFocus < TracegraphTest
  class Book
    def initialize = @rows = []
    def parse_rows(text) = text.each_line.map { |line| line.split(",") }
    def load(text) = @rows.concat(parse_rows(text))
    def monthly_totals = @rows.first(20).each_with_object(Hash.new(0)) { |row, sums| sums[row[0]] += row[1].to_i }

    def run(text)
      [-> { load(text) }, -> { monthly_totals }].each { |job| instance_exec(&job) }
    end
  end

  TEXT = (1..3000).map { |i| "m#{i % 12},#{i},x,y\n" }.join.freeze
  SMALL = "TestFocus::Book#monthly_totals"
  BIG = "TestFocus::Book#parse_rows"

  def record(call_tree:) = Tracegraph.profile(call_tree: call_tree) { Book.new.run(TEXT) }

  def box_names(dot) = dot.scan(/^  N\d+ \[label=".*?", tooltip="((?:[^"\\]|\\.)*)"/).flatten.map { |t| t.split("\\n").first }

  # The call tree's statistics and the stack writers take their inputs by
  # name (binding/native_call_tree.c): a key one side lacks or the other
  # does not know fails at once, naming it, instead of shifting a slot.
  def test_the_call_trees_c_methods_take_their_inputs_by_name
    profile = record(call_tree: true)
    tree = profile.call_tree
    native = tree.native(profile.methods, profile.threads)
    threads = Array.new(tree.native_threads.size + 1, true)
    stats = native._stats(method_count: tree.native_methods.size, threads: threads, hidden: nil, focus: nil)
    assert_equal %i[methods edges threads hidden_time], stats.keys
    error = assert_raises(ArgumentError) { native._stats(method_count: 1, threads: threads, hidden: nil, focus: nil, x: 1) }
    assert_equal "_stats: unknown option :x", error.message
    assert_raises(KeyError) { native._stats(method_count: 1, threads: threads, hidden: nil) }
    meta = {max_depth: 10, folded_calls: 0, clock: "wall", program: nil, exporter: "t", complete: true}
    rows = tree.native_methods.map { |m| [m.name, m.file, m.line] }
    names = tree.native_threads.map(&:name) + ["all threads"]
    out = StringIO.new
    native._write(:folded, out, rows, names, meta)
    assert_match(/monthly_totals/, out.string)
    error = assert_raises(KeyError) { native._write(:folded, out, rows, names, meta.except(:exporter)) }
    assert_match(/:exporter/, error.message)
    assert_raises(TypeError) { native._write(:folded, out, rows, names, meta.values) }
    error = assert_raises(ArgumentError) { native._write(:gif, out, rows, names, meta) }
    assert_equal "unknown stack format :gif", error.message
  end

  def test_with_a_call_tree_only_the_paths_through_the_match_count
    profile = record(call_tree: true)
    focused, left_out = profile.focus_paths(/monthly_totals/)
    names = focused.methods.map(&:name)
    assert_includes names, SMALL
    assert_includes names, "TestFocus::Book#run"                 # its callers on the way
    assert_includes names, "BasicObject#instance_exec"
    assert_includes names, "Enumerable#each_with_object"          # what it calls
    assert_includes names, "block in #{SMALL}"
    refute_includes names, BIG
    refute_includes names, "TestFocus::Book#load"
    refute_includes names, "String#split"
    assert_equal profile.methods.size - focused.methods.size, left_out

    # The hub keeps only the part of its time on the way to the match, and its one call.
    small = focused[SMALL]
    each = focused.edge("TestFocus::Book#run", "Array#each")
    assert_equal 1, each.calls
    assert_equal small.total_time, each.total_time
    assert_equal small.total_time, focused["BasicObject#instance_exec"].total_time
    assert_equal 0, focused["BasicObject#instance_exec"].self_time
    assert_equal profile[SMALL].total_time, small.total_time
    assert_equal profile[SMALL].self_time, small.self_time
    assert_equal small.total_time, focused.total_time
    assert_operator profile["BasicObject#instance_exec"].total_time, :>, 5 * small.total_time
  end

  def test_the_graph_with_a_call_tree_draws_no_unrelated_box
    profile = record(call_tree: true)
    dot = profile.to_dot(focus: /monthly_totals/, max_nodes: 30)
    boxes = box_names(dot)
    assert_includes boxes, SMALL
    assert_includes boxes, "TestFocus::Book#run"
    refute_includes boxes, BIG
    refute_includes boxes, "TestFocus::Book#load"
    refute_includes boxes, "String#split"
    left_out = profile.methods.size - profile.focus_paths(/monthly_totals/)[0].methods.size
    assert_includes dot, "\\lFocus: 2 matches, all shown; #{left_out} unrelated methods hidden\\l"
    assert_includes dot, "\\lFocus on the call paths through the matches\\l"
    assert_match(/\\lPaths through the focus: [^\\]+ of [^\\]+ \(\d+\.\d%\)\\l/, dot)
  end

  def test_without_a_call_tree_the_walk_does_not_go_through_the_hub
    profile = record(call_tree: false)
    assert_nil profile.focus_paths(/monthly_totals/)
    dot = profile.to_dot(focus: /monthly_totals/, max_nodes: 30, node_fraction: 0, edge_fraction: 0)
    boxes = box_names(dot)
    assert_includes boxes, SMALL
    assert_includes boxes, "TestFocus::Book#run"
    assert_includes boxes, "Enumerable#each_with_object"
    refute_includes boxes, BIG
    refute_includes boxes, "TestFocus::Book#load"
    refute_includes boxes, "String#split"
    assert_includes dot, "\\lFocus by methods, not paths: --call-tree for exact paths\\l"
  end

  def test_a_focus_matching_nothing_falls_back_to_the_walk
    profile = record(call_tree: true)
    assert_nil profile.focus_paths(/\ANothing::Here\z/)
    assert_match(/\\lFocus: no method matches; \d+ unrelated methods hidden\\l/, profile.to_dot(focus: /\ANothing::Here\z/))
  end

  # The diff graph (comparison/diff.rb) follows the same rule, both runs' paths.
  def test_the_diff_graph_keeps_the_same_paths
    base = record(call_tree: true)
    head = record(call_tree: true)
    dot = base.diff(head).to_dot(focus: /monthly_totals/, max_nodes: 30)
    boxes = box_names(dot)
    assert_includes boxes, SMALL
    assert_includes boxes, "TestFocus::Book#run"
    refute_includes boxes, BIG
    refute_includes boxes, "String#split"
    assert_includes dot, "\\lFocus on the call paths through the matches\\l"

    walked = record(call_tree: false).then { |p| p.diff(p) }.to_dot(focus: /monthly_totals/, max_nodes: 30)
    refute_includes box_names(walked), BIG
    assert_includes walked, "\\lFocus by methods, not paths: --call-tree for exact paths\\l"
  end
end

require_relative "../test_helper"
require "open3"
require "stringio"
require "tmpdir"

# A program whose one method can be made slower: the "after" run spins
# longer in DiffProgram#hot, everything else does the same work.
class DiffProgram
  def initialize(spin) = @spin = spin
  def main = 3.times { hot; steady }

  # A plain loop, no block: its time is hot's own (the runs leave C calls out, so
  # Integer#+ and #< stay unprofiled VM instructions).
  def hot
    i = 0
    i += 1 while i < @spin
    i
  end

  def steady = 20_000.times { |i| i + 1 }
end

class TestDiff < TracegraphTest
  MS = 1_000_000

  def profile(total, methods, edges = [], clock: :wall, program: "demo.rb")
    stats = methods.map do |name, calls, total_time, self_time, file|
      Tracegraph::MethodStats.new(name: name, file: file, line: file ? 1 : nil, calls: calls,
                                  total_time: total_time, self_time: self_time, c_method: file.nil?)
    end
    links = edges.map do |from, to, calls, total_time, self_time|
      Tracegraph::EdgeStats.new(caller: stats[from], callee: stats[to], calls: calls, total_time: total_time,
                                self_time: self_time)
    end
    Tracegraph::Profile.new(clock: clock, threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: total)],
                            methods: stats, edges: links, program: program)
  end

  # Base 120 ms -> head 150 ms: work grew, old vanished, fresh appeared, each held.
  def base
    profile(120 * MS, [["Object#main", 1, 120 * MS, 10 * MS, "/app/demo.rb"],
                       ["Object#work", 300, 100 * MS, 60 * MS, "/app/work.rb"],
                       ["Object#old", 20, 30 * MS, 30 * MS, "/app/old.rb"],
                       ["Array#each", 4, 20 * MS, 20 * MS, nil]],
            [[0, 1, 300, 100 * MS, 60 * MS], [1, 2, 20, 30 * MS, 30 * MS], [0, 3, 4, 20 * MS, 20 * MS]])
  end

  def head
    profile(150 * MS, [["Array#each", 4, 20 * MS, 20 * MS, nil],
                       ["Object#work", 450, 130 * MS, 90 * MS, "/app/work.rb"],
                       ["Object#main", 1, 150 * MS, 10 * MS, "/app/demo.rb"],
                       ["Object#fresh", 9, 30 * MS, 30 * MS, "/app/fresh.rb"]],
            [[2, 1, 450, 130 * MS, 90 * MS], [1, 3, 9, 30 * MS, 30 * MS], [2, 0, 4, 20 * MS, 20 * MS]])
  end

  def require_renderer
    return if Tracegraph.respond_to?(:_render_diff_dot)

    skip "extension built without _render_diff_dot (paste the diff binding into tracegraph.c, then rake compile)"
  end

  def assert_renders(dot)
    out, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
    assert status.success?, "dot failed: #{err}"
    assert_equal "", err, "dot warned"
    out
  end

  # "#rrggbb" fill of the box whose label starts with name.
  def fill_of(dot, name)
    line = dot.lines.find { |l| l.include?("[label=\"#{name}\\n") } || flunk("no box for #{name}")
    line[/fillcolor="#(\h{6})"/, 1].scan(/../).map(&:hex)
  end

  def test_diff_reads_from_base_to_head
    diff = base.diff(head)
    assert_instance_of Tracegraph::ProfileDiff, diff
    assert_equal 30 * MS, diff.total_change
    assert_in_delta 25.0, diff.total_change_percent, 1e-9
    assert_in_delta(-20.0, head.diff(base).total_change_percent, 1e-9)
    assert_nil profile(0, []).diff(head).total_change_percent
    assert_raises(ArgumentError) { base.diff("head.json") }
  end

  def test_rows_match_methods_by_name_biggest_change_first
    rows = base.diff(head).rows
    assert_equal ["Object#work", "Object#fresh", "Object#old", "Array#each", "Object#main"], rows.map(&:name)
    work = rows.first
    assert_equal [300, 450, 60 * MS, 90 * MS, 100 * MS, 130 * MS],
                 [work.base_calls, work.head_calls, work.base_self, work.head_self, work.base_total, work.head_total]
    assert_equal [30 * MS, 30 * MS, 150], [work.self_delta, work.total_delta, work.calls_delta]
    assert_in_delta 50.0, work.self_change_percent, 1e-9
    assert_equal :changed, work.status
    fresh = rows[1]
    assert fresh.new?
    assert_equal [0, 9, 0, 30 * MS], [fresh.base_calls, fresh.head_calls, fresh.base_self, fresh.head_self]
    assert_nil fresh.self_change_percent
    old = rows[2]
    assert old.gone?
    assert_equal [20, 0, 30 * MS, 0, "/app/old.rb"], [old.base_calls, old.head_calls, old.base_self, old.head_self, old.file]
    each = rows[3]
    assert_equal [0, true], [each.self_delta, each.c_method]
    assert_equal ["Object#work", "Object#fresh"], base.diff(head).regressions.map(&:name)
    assert_equal ["Object#old"], base.diff(head).improvements.map(&:name)
  end

  def test_normalize_scales_base_times_not_calls
    slower = profile(200 * MS, [["A#a", 2, 200 * MS, 80 * MS, "/a.rb"], ["B#b", 10, 120 * MS, 120 * MS, "/b.rb"]])
    faster = profile(100 * MS, [["A#a", 1, 100 * MS, 40 * MS, "/a.rb"], ["B#b", 5, 60 * MS, 60 * MS, "/b.rb"]])
    diff = faster.diff(slower)
    assert_equal [40 * MS, 60 * MS], diff.rows.map(&:self_delta).sort
    rows = diff.rows(normalize: true)
    assert_equal [0, 0], rows.map(&:self_delta)
    assert_equal [5, 1], rows.map(&:base_calls)
    assert_equal 2.0, diff.normalize_factor
    assert_in_delta 100.0, diff.total_change_percent, 1e-9   # the totals are never normalized
    assert_raises(ArgumentError) { diff.rows(normalize: "yes") }
  end

  def test_same_named_methods_are_summed
    b = profile(50 * MS, [["#<Class:0x1>#m", 2, 20 * MS, 20 * MS, "/a.rb"], ["#<Class:0x1>#m", 3, 30 * MS, 30 * MS, "/b.rb"]])
    h = profile(70 * MS, [["#<Class:0x1>#m", 10, 70 * MS, 70 * MS, "/a.rb"]])
    rows = b.diff(h).rows
    assert_equal 1, rows.size
    assert_equal [5, 50 * MS, 20 * MS], [rows[0].base_calls, rows[0].base_self, rows[0].self_delta]
  end

  def test_print_text_lists_regressions_then_improvements
    io = StringIO.new
    base.diff(head).print_text(io, limit: 1)
    text = io.string
    assert_includes text, "tracegraph diff (wall): total 120 ms -> 150 ms (+25.0%), calls 325 -> 464"
    assert_match(/^Regressions \(self time grew\): 2\n.*method\n +60\.0 ms +90\.0 ms +\+30\.0 ms +\+50\.0% +300 -> 450  Object#work\n\(1 more not shown\)$/,
                 text)
    assert_match(/^Improvements \(self time shrank\): 1\n.*\n +30\.0 ms +0 ns +-30\.0 ms +gone +20 -> 0  Object#old$/, text)
    refute_includes text, "Array#each"
    io = StringIO.new
    base.diff(head).print_text(io, normalize: true)
    assert_includes io.string, "base times normalized to head's total (x1.250)"
    assert_includes io.string, "Object#fresh"
    assert_raises(ArgumentError) { base.diff(head).print_text(io, limit: 0) }
  end

  # A method in both runs whose own time in base rounded to 0 ns has no
  # percentage to print (a 10x-faster copy of a real profile has such rows).
  def test_print_text_a_method_with_no_own_time_in_base
    zero = profile(120 * MS, [["Object#main", 1, 120 * MS, 0, "/app/demo.rb"]])
    some = profile(150 * MS, [["Object#main", 1, 150 * MS, 5 * MS, "/app/demo.rb"]])
    io = StringIO.new
    zero.diff(some).print_text(io)
    assert_match(/^ +0 ns +5\.00 ms +\+5\.00 ms +from 0 +1 -> 1  Object#main$/, io.string)
  end

  def test_print_text_when_nothing_changed
    io = StringIO.new
    base.diff(base).print_text(io)
    assert_includes io.string, "(+0.0%)"
    assert_includes io.string, "Regressions (self time grew): none"
    assert_includes io.string, "Improvements (self time shrank): none"
  end

  def test_to_dot_golden_labels_and_ghosts
    require_renderer
    dot = base.diff(head).to_dot(node_fraction: 0, edge_fraction: 0, max_nodes: 0)
    assert dot.start_with?("digraph tracegraph_diff {\n")
    assert_includes dot, "total 120 ms → 150 ms (+25.0%) · calls 325 → 464\\l"
    assert_includes dot, "Not normalized: base times as measured\\l"
    assert_includes dot, "label=\"Object#work\\n/app/work.rb:1\\nself 90.0 ms\\n(+30.0 ms, +50.0%)\\n" \
                         "total 130 ms\\n(+30.0 ms, +30.0%)\\ncalls 300 → 450\""
    # A number that held has no change beside it; a count that held reads as in the call graph.
    assert_includes dot, "label=\"Array#each\\nself 20.0 ms\\ntotal 20.0 ms\\n4 calls\""
    assert_includes dot, "label=\"Object#fresh\\n/app/fresh.rb:1\\nnew (only in head)\\n"
    assert_match(/label="Object#old\\n[^\n]*gone \(only in base\)\\nbase self 30.0 ms[^\n]*color="#2166ac"[^\n]*dashed/, dot)
    assert_match(/label=" gone \\n was ×20 \\n 30.0 ms "[^\n]*style=dashed/, dot)
    assert fill_of(dot, "Object#work").then { |r, _, b| r > b }, "work grew: red"
    assert_equal [0xf7, 0xf7, 0xf7], fill_of(dot, "Array#each")
    assert_renders dot
  end

  # The first line of each box's label, in drawing order.
  def box_names(dot) = dot.scan(/^  N\d+ \[label="(.*?)\\n/).flatten

  # A focus draws its matches, their callers and callees, and the paths to
  # the roots, in either run: fresh (only in head) with work and <main>;
  # old (only in base) with work, its caller there, and <main>.
  def test_to_dot_focus_and_ignore
    require_renderer
    diff = base.diff(head)
    dot = diff.to_dot(focus: /fresh/)
    assert_equal ["Object#main", "Object#work", "Object#fresh"], box_names(dot)
    assert_includes dot, "\\lFocus: 1 match, shown; 2 unrelated methods hidden\\l"
    assert_equal ["Object#main", "Object#work", "Object#old"], box_names(diff.to_dot(focus: "Object#old"))
    assert_equal ["Object#main", "Object#work", "Object#fresh", "Object#old"], box_names(diff.to_dot(focus: /work/))

    ignored = diff.to_dot(ignore: /work/)
    assert_equal ["Object#main", "Object#fresh", "Object#old", "Array#each"], box_names(ignored)
    assert_includes ignored, "\\lIgnored 1 method\\l"
    assert_match(/^  N1 -> N2 \[label=" via 1 frame "/, ignored)
    assert_renders dot
    assert_renders ignored
  end

  def test_to_dot_options
    require_renderer
    diff = base.diff(head)
    assert_includes diff.to_dot(normalize: true), "Normalized: base times scaled ×1.250 to head's total\\l"
    assert_includes diff.to_dot(max_nodes: 2), "Showing 2 of 5 methods"
    assert_raises(ArgumentError) { diff.to_dot(focus: "(") }
    assert_raises(ArgumentError) { diff.to_dot(ignore: 1) }
    assert_raises(ArgumentError) { diff.to_dot(unknown: 1) }
    assert_raises(ArgumentError) { diff.to_dot(normalize: 1) }
    assert_raises(ArgumentError) { diff.to_dot(max_nodes: -1) }
    assert_raises(ArgumentError) { diff.to_dot(node_fraction: 2) }
    assert_equal diff.to_dot, Tracegraph::Profile.parse_json(base.to_json).diff(Tracegraph::Profile.parse_json(head.to_json)).to_dot
  end

  def test_write_dot
    require_renderer
    Dir.mktmpdir do |dir|
      path = File.join(dir, "diff.dot")
      assert_equal path, base.diff(head).write_dot(path, normalize: true)
      assert_includes File.read(path), "tracegraph_diff"
      assert_raises(Tracegraph::Error) { base.diff(head).write_dot(File.join(dir, "missing", "x.dot")) }
    end
  end

  def test_a_method_made_slower_is_the_reddest_and_biggest_change
    require_renderer
    warm = DiffProgram.new(10)
    Tracegraph.profile { warm.main }
    before = DiffProgram.new(20_000)
    after = DiffProgram.new(2_000_000)
    base_run = Tracegraph.profile(clock: :cpu, c_calls: false) { before.main }
    head_run = Tracegraph.profile(clock: :cpu, c_calls: false) { after.main }
    diff = base_run.diff(head_run)

    top = diff.rows.first
    assert_equal "DiffProgram#hot", top.name
    assert_equal [3, 3], [top.base_calls, top.head_calls]
    steady = diff.rows.find { |r| r.name == "DiffProgram#steady" }
    assert_operator top.self_delta, :>, 10 * steady.self_delta.abs
    assert_operator diff.total_change_percent, :>, 100

    dot = diff.to_dot
    r, g, b = fill_of(dot, "DiffProgram#hot")
    assert_operator r, :>, b + 60, "DiffProgram#hot should be clearly red"
    assert_operator r, :>, g
    reds = dot.scan(/fillcolor="#(\h{6})"/).flatten.map { |c| c.scan(/../).map(&:hex) }.map { |x, _, z| x - z }
    assert_equal reds.max, r - b, "the slowed-down work is the reddest box"
    assert_renders dot
  end
end

require_relative "../test_helper"
require_relative "../consumers_helper"
require "open3"
require "json"

# The HTML report's focus view (formats/html/focus_graph.js) draws its
# graphs in the page, by the rules the C writer draws the others with: the
# heat scale of a box's fill and border and of an arrow (tg_dot.c,
# tg_dot_style.c) and tg_graph.c's rows of a box's many children
# (stagger_children). Here the page's own script, run by node
# (test/consumers/graph_rules.js), is given the numbers of the C writer's
# graph of one profile, and must give its colours and rows to the letter:
# a change to either side's rules that the other does not follow fails.
class TestGraphRulesJs < Minitest::Test
  include ConsumersHelper

  RUNNER = File.join(ConsumersHelper::CONSUMERS, "graph_rules.js")
  FOCUS_GRAPH = File.expand_path("../../../lib/tracegraph/formats/html/focus_graph.js", __dir__)

  # Wide#wide calls 36 methods, each a loop of its own length: more than
  # a row of 4 children, with shares from tiny to most of the run.
  class Wide
    class_eval(36.times.map { |i| "def step#{i} = #{(i + 1) * 40}.times { |k| k * k }\n" }.join +
               "def wide = (#{36.times.map { |i| "step#{i}" }.join('; ')})\n")
    def outer = 3.times { wide }
  end

  def profile = @profile ||= Tracegraph.profile(gc: false) { Wide.new.outer }

  # The C writer's graph with every method and call: its boxes as
  # [name, fill, border] and its arrows as [caller, callee, colour, minlen].
  def c_graph
    dot = profile.to_dot(node_fraction: 0, edge_fraction: 0, max_nodes: 0, split_hubs: false, fold_chains: false)
    names = {}
    boxes = dot.scan(/^  (N\d+) \[label=.*?tooltip="((?:[^"\\]|\\.)*?)(?:\\n|").*?fillcolor="(#\h{6})", color="(#\h{6})"/)
               .map { |id, name, fill, border| names[id] = name; [name, fill, border] }
    arrows = dot.scan(/^  (N\d+) -> (N\d+) \[(.*)\];$/).map do |from, to, attrs|
      [names.fetch(from), names.fetch(to), attrs[/ color="(#\h{6})"/, 1], attrs[/minlen=(\d+)/, 1]&.to_i]
    end
    [boxes, arrows]
  end

  def run_js(input)
    require_node!
    out, err, status = capture_node(RUNNER, FOCUS_GRAPH, stdin_data: JSON.generate(input))
    assert status.success?, "graph_rules.js: #{err}"
    JSON.parse(out)
  end

  def test_the_page_colours_boxes_and_arrows_as_the_c_writer_does
    boxes, arrows = c_graph
    assert_equal profile.methods.size, boxes.size, "every method drawn"
    whole = profile.total_time.to_f
    box_fractions = boxes.map { |name, *| profile[name].total_time / whole }
    edges = arrows.map { |from, to, *| profile.edge(from, to) }
    js = run_js(fractions: box_fractions + edges.map { |e| e.total_time / whole }, boxes: [], edges: [])
    assert_equal boxes.map { |_, fill, _| fill }, js["fills"].first(boxes.size), "each box's fill"
    assert_equal boxes.map { |_, _, border| border }, js["borders"].first(boxes.size), "each box's border"
    assert_equal arrows.map { |a| a[2] }, js["borders"].drop(boxes.size), "each arrow's colour"
    assert_operator boxes.map { |b| b[1] }.uniq.size, :>=, 8, "shades from pale to deep: #{boxes.map { |b| b[1] }.uniq}"
  end

  def test_the_page_puts_many_children_in_rows_as_tg_graph_does
    boxes, arrows = c_graph
    index = boxes.each_with_index.to_h { |(name, *), i| [name, i] }
    edges = arrows.map { |from, to, *| [index.fetch(from), index.fetch(to), profile.edge(from, to).total_time] }
    js = run_js(fractions: [], boxes: boxes.each_index.to_a, edges: edges)
    c_rows = arrows.each_with_index.filter_map { |a, i| [i, a[3]] if a[3] && a[3] > 1 }
    assert_operator c_rows.size, :>=, 30, "Wide#wide's 36 callees after the first row of 4: #{c_rows.size}"
    assert_operator c_rows.map(&:last).max, :>=, 9, "36 children and more in rows of 4"
    assert_equal c_rows, js["minlen"], "each arrow's minlen, as stagger_children gives it"
  end
end

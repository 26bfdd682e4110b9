require_relative "../test_helper"
require "open3"
require "tmpdir"

class DotProgram
  # Range#each, not Integer#times: it is a C method on every Ruby we
  # support (Integer#times is written in Ruby since 3.3, and calls
  # Integer#< and Integer#succ), so the expected numbers hold on all.
  def main
    (1..3).each do
      find_many_square_roots
      find_many_squares
    end
  end

  def find_many_square_roots = (0...5000).each { |i| Math.sqrt(i) }
  def find_many_squares = (0...5000).each { |i| i**2 }
end

# One method calling seven others: more children than a row holds.
class FanOutProgram
  def main = [one, two, three, four, five, six, seven]
  def one = 1
  def two = 2
  def three = 3
  def four = 4
  def five = 5
  def six = 6
  def seven = 7
end

class TestDot < TracegraphTest
  # Without GC nodes: the tests count the demo's methods and boxes
  # exactly, and the collector runs in some processes and not others. On
  # the thread's CPU clock: the program takes a few milliseconds, and on a
  # busy machine one preemption in the wall clock's time of a method (4 ms)
  # made another the biggest box, or pushed Integer#** under the 0.5% floor.
  def demo_profile
    program = DotProgram.new
    @demo_profile ||= Tracegraph.profile(gc: false, clock: :cpu) { program.main }
  end

  # Renders with the real Graphviz and fails on any warning.
  def assert_renders(dot)
    out, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
    assert status.success?, "dot failed: #{err}"
    assert_equal "", err, "dot warned"
    assert_includes out, "<svg"
    out
  end

  def node_labels(dot) = dot.scan(/^\s*N\d+ \[label="([^"\\]*(?:\\.[^"\\]*)*)"/).flatten
  # Each box's full name: the first line of its tooltip (a label wraps a long one).
  def node_names(dot) = dot.scan(/^\s*N\d+ \[label=".*?", tooltip="([^"\\]*(?:\\.[^"\\]*)*)"/).flatten
                           .map { |t| t.split('\n').first }

  # Ruby hands the C writers their options by name: a key one side has
  # and the other has not fails at once, naming it, instead of shifting
  # every slot after it (binding/dot_text.c).
  def test_the_writers_options_are_named_and_checked
    meta = {title: nil, clock: "wall", total_time: 0, gc: nil}
    assert_raises(TypeError) { Tracegraph._render_dot([nil, "wall", 0, nil], [], [], {}) }
    error = assert_raises(ArgumentError) { Tracegraph._render_dot(meta.merge(program: "x"), [], [], {}) }
    assert_equal "the DOT writer's meta: unknown option :program", error.message
    error = assert_raises(KeyError) { Tracegraph._render_dot(meta.merge(gc: {runs: 1}), [], [], {}) }
    assert_match(/key not found: :entries/, error.message)
    error = assert_raises(ArgumentError) { Tracegraph._render_dot(meta, [], [], {bogus: 1}) }
    assert_equal "_render_dot: unknown option :bogus", error.message
    error = assert_raises(KeyError) { Tracegraph._render_dot(meta, [], [], {node_fraction: 0.1}) }
    assert_match(/key not found: :edge_fraction/, error.message)
    error = assert_raises(ArgumentError) { Tracegraph._render_diff_dot(meta, [], [], meta, [], [], {normalise: true}) }
    assert_equal "_render_diff_dot: unknown option :normalise", error.message
  end

  def test_demo_graph_renders_and_shows_every_method_with_its_numbers
    dot = demo_profile.to_dot
    svg = assert_renders(dot)
    # Range#each, called by three methods with their own blocks, is one
    # box per caller (test_hub_split.rb).
    assert_equal ["DotProgram#main", "Range#each", "Range#each", "Range#each", "DotProgram#find_many_square_roots",
                  "DotProgram#find_many_squares", "Math.sqrt", "Integer#**", "block in DotProgram#main",
                  "block in DotProgram#find_many_square_roots", "block in DotProgram#find_many_squares"].sort,
                 node_names(dot).sort
    assert_match(/label="Math.sqrt\\nself [\d.]+ .s \([\d.]+%\)\\ntotal [\d.]+ .s \([\d.]+%\)\\n15,000 calls"/, dot)
    assert_match(/×15,000 \\n /, dot)
    assert_includes dot, "Showing 11 boxes for 9 methods"
    assert_includes demo_profile.to_dot(split_hubs: false), "Showing 9 of 9 methods"
    assert_includes svg, "Range#each"
  end

  # A box's many children go in rows of 4, the heaviest nearest
  # (TG_GRAPH_ROW_CHILDREN), so a fan-out makes the graph taller, not
  # wider: main's 7 callees are on the rank below it (4) and the next (3).
  def test_many_children_are_staggered_in_rows
    program = FanOutProgram.new
    profile = Tracegraph.profile(gc: false) { program.main }
    dot = profile.to_dot(node_fraction: 0, edge_fraction: 0)
    main = dot[/^  (N\d+) \[label="FanOutProgram#main/, 1]
    arrows = dot.scan(/^  #{main} -> N\d+ \[.*\]/)
    assert_equal 7, arrows.size
    assert_equal [nil] * 4 + ["2"] * 3, arrows.map { |a| a[/minlen=(\d+)/, 1] }
    assert_equal 3, dot.scan(/minlen=/).size, "no other arrow is staggered"
    assert_renders(dot)
  end

  # In a profile of medians (--runs) each number is a median of its own:
  # here the medians of work's and tidy's self times (100 ns each, from
  # runs where they traded places) and main's (1) add up to 201 ns, and the
  # median total is 211. The legend's share is of the 201 its boxes can
  # hold: all drawn, 100%, not 95.3%.
  def test_a_median_profiles_boxes_hold_a_share_of_its_self_times
    run = lambda do |work, tidy|
      main = Tracegraph::MethodStats.new(name: "Object#main", file: "/app/main.rb", line: 1, calls: 1,
                                         total_time: work + tidy + 1, self_time: 1, c_method: false)
      callees = {"Worker#work" => work, "Worker#tidy" => tidy}.map do |name, ns|
        Tracegraph::MethodStats.new(name: name, file: "/app/worker.rb", line: 5, calls: 1, total_time: ns,
                                    self_time: ns, c_method: false)
      end
      edges = callees.map do |m|
        Tracegraph::EdgeStats.new(caller: main, callee: m, calls: 1, total_time: m.total_time, self_time: m.self_time)
      end
      Tracegraph::Profile.new(clock: :cpu, methods: [main, *callees], edges: edges,
                              threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: main.total_time)])
    end
    median = Tracegraph::Profile.median([run.(100, 100), run.(200, 10), run.(10, 200)])
    assert_equal [211, 201], [median.total_time, median.methods.sum(&:self_time)]
    dot = median.to_dot
    assert_includes dot, "Showing 3 of 3 methods\\lThe boxes hold 100.0% of self time\\l"
    assert_includes run.(100, 100).to_dot, "The boxes hold 100.0% of self time"
  end

  def test_the_biggest_self_time_is_the_biggest_box
    skip_time_bound_on_public_path
    dot = demo_profile.to_dot(split_hubs: false) # one box per method
    # The name from the tooltip, whole: the label wraps long names
    # ("block in\nDotProgram#\nfind_many_square_roots").
    sizes = dot.scan(/^\s*N\d+ \[label="[^\n]*?tooltip="([^\\"]+)[^\n]*fontsize=([\d.]+)/).to_h { |n, s| [n, s.to_f] }
    biggest = demo_profile.methods.max_by(&:self_time).name
    # The block and Math.sqrt can have self times close enough to draw at
    # one font size (a tenth of a point): the biggest self time's box is
    # then one of the biggest, which max_by alone would not say.
    assert_equal sizes.values.max, sizes.fetch(biggest), "#{biggest}'s box, of #{sizes}"
  end

  def test_output_is_deterministic
    again = Tracegraph::Profile.parse_json(demo_profile.to_json)
    assert_equal demo_profile.to_dot, again.to_dot
  end

  def test_pruning_options
    dot = demo_profile.to_dot(max_nodes: 2)
    assert_equal 2, node_names(dot).size
    assert_match(/Showing 2 boxes for 9 methods/, dot)
    assert_renders dot
    all = demo_profile.to_dot(node_fraction: 0, edge_fraction: 0, max_nodes: 0)
    assert_equal 11, node_names(all).size
  end

  def test_ignore_keeps_paths_through_hidden_methods_as_dotted_edges
    dot = demo_profile.to_dot(ignore: /Range#each/)
    refute_includes node_names(dot), "Range#each"
    assert_match(/style=dotted/, dot)
    assert_renders dot
  end

  def test_focus_keeps_matching_methods_and_their_callers_and_callees
    dot = demo_profile.to_dot(focus: "sqrt")
    names = node_names(dot)
    assert_includes names, "Math.sqrt"
    assert_includes names, "DotProgram#main"
    assert_renders dot
  end

  def test_bad_options_raise_naming_the_problem
    e = assert_raises(ArgumentError) { demo_profile.to_dot(max_node: 3) }
    assert_match(/unknown option :max_node \(allowed: :node_fraction, :edge_fraction, :max_nodes, :focus, :ignore, :split_hubs, :fold_chains, :size_by, :group_by\)/, e.message)
    e = assert_raises(ArgumentError) { demo_profile.to_dot(node_fraction: 2) }
    assert_match(/node_fraction must be a number from 0 to 1/, e.message)
    e = assert_raises(ArgumentError) { demo_profile.to_dot(focus: "(") }
    assert_match(/focus: invalid regular expression/, e.message)
  end

  def test_write_dot_and_bad_paths
    Dir.mktmpdir do |dir|
      path = File.join(dir, "g.dot")
      assert_equal path, demo_profile.write_dot(path)
      assert_renders File.read(path)
      e = assert_raises(Tracegraph::Error) { demo_profile.write_dot(dir) }
      assert_match(/is a directory/, e.message)
      e = assert_raises(Tracegraph::Error) { demo_profile.write_dot("/proc/no/such/dir/g.dot") }
      assert_match(/does not exist/, e.message)
    end
  end

  def test_hostile_names_render_without_warnings
    klass = Class.new do
      define_method(:"a\"b\\c") { 1 }
      define_method(:"<=>") { |_| 0 }
      define_method(:"{x|y}<z>") { 2 }
      define_method(:"ünï名前") { 3 }
      define_method(:"line\nbreak") { 4 }
      define_method(("x" * 5000).to_sym) { 5 }
    end
    o = klass.new
    profile = Tracegraph.profile(c_calls: false) do
      klass.instance_methods(false).each { |m| m == :<=> ? o.send(m, o) : o.send(m) }
    end
    # Six methods, each one box though its body runs as a block, and the
    # block that calls them (and Array#each, where it is Ruby).
    assert_equal 7 + (ruby_array_each? ? 1 : 0), program_methods(profile).size, program_methods(profile).map(&:name).inspect
    assert_equal 1, profile.methods.count { |m| m.name.start_with?("block (2 levels) in TestDot#") }
    dot = profile.to_dot(node_fraction: 0, edge_fraction: 0)
    assert_renders dot
    assert_includes dot, 'a\\"b\\\\c'
    assert dot.valid_encoding?
  end

  def test_empty_profile_renders_a_legend
    assert_renders Tracegraph.profile { nil }.to_dot
  end

  def test_print_flat
    out = StringIO.new
    demo_profile.print_flat(out, limit: 3)
    lines = out.string.lines.grep_v(/\AYJIT was on: /) # under YJIT, a line says so
    # 30,017 calls of methods and 30,003 of blocks.
    assert_match(/\Acpu time, total .* in 9 methods, 60,0\d\d calls/, lines[0])
    assert_match(/\Atracing's cost taken out: [\d.]+ \S+ of [\d.]+ \S+, ± [\d.]+ \S+$/, lines[1])
    assert_match(/calls\s+self\s+total\s+self%\s+method/, lines[2])
    assert_match(/\A\s+(7|15,000)\s.*(Range#each|block in|Math.sqrt|Integer#\*\*)/, lines[3])
    assert_equal "(6 more methods not shown)\n", lines.last
  end
end

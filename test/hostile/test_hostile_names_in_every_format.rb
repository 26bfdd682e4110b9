require_relative "../ruby/test_helper"
require "open3"
require "tmpdir"

# Method names that try to break out of every format they are written in:
# quotes, backslashes, newlines, ESC, NUL, HTML, DOT syntax, braces and
# folded-stack separators. Each format is read back by its real consumer,
# and every name must arrive as one name, and do nothing.
class TestHostileNamesInEveryFormat < TracegraphTest
  HOSTILE = ["quote\"inside", "back\\slash", "new\nline", "esc\e[2Jape", "nul\0byte", "<script>alert(1)</script>",
             "\"];\ndigraph x {", "{braces}", "semi;colon", "tab\there", "cr\rreturn"].freeze

  def setup
    klass = Class.new { HOSTILE.each { |name| define_method(name.to_sym) { name } } }
    Object.const_set(:EveryFormatHostile, klass) unless defined?(::EveryFormatHostile)
    object = ::EveryFormatHostile.new
    @profile = Tracegraph.profile(call_tree: true) { HOSTILE.each { |name| object.send(name.to_sym) } }
    @names = @profile.methods.map(&:name).grep(/\AEveryFormatHostile#/)
    assert_equal HOSTILE.size, @names.size
  end

  def test_dot_renders_with_no_warning_and_the_svg_shows_no_live_markup
    skip "Graphviz's dot is not installed" unless system("dot", "-V", err: File::NULL)
    dot = @profile.to_dot(node_fraction: 0, edge_fraction: 0, max_nodes: 0)
    svg, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
    assert status.success?, err
    assert_equal "", err, "dot warned"
    refute_includes svg, "<script>"
    assert_includes svg, "&lt;script&gt;"
    # One graph, one box per method plus the legend: no name broke out.
    assert_equal 1, dot.scan(/^digraph /).size
    assert_equal @profile.methods.size + 1, svg.scan(/class="node"/).size
  end

  def test_json_round_trips_every_name
    again = Tracegraph::Profile.parse_json(@profile.to_json)
    assert_equal @profile.methods.map(&:name), again.methods.map(&:name)
  end

  def test_folded_keeps_one_frame_per_method_and_one_line_per_path
    lines = @profile.to_folded.lines
    assert(lines.all? { |l| l.match?(/\A[^\n]+ \d+\n\z/) })
    hostile_lines = lines.grep(/EveryFormatHostile#/)
    assert_equal HOSTILE.size, hostile_lines.size
    # Array#each, the block given to it, the method.
    assert(hostile_lines.all? { |l| l.split(";").size == 3 }, "a name must not split a frame: Array#each;block;name")
  end

  def test_callgrind_annotate_reads_every_function
    skip "callgrind_annotate not installed" unless system("command -v callgrind_annotate > /dev/null 2>&1")
    Dir.mktmpdir do |dir|
      path = @profile.write_callgrind(File.join(dir, "callgrind.out.hostile"))
      out, err, status = Open3.capture3("callgrind_annotate", "--threshold=100", "--auto=no", path, chdir: dir)
      assert status.success?, err
      assert_equal HOSTILE.size, out.scan(/EveryFormatHostile#/).size, out
    end
  end

  def test_text_outputs_are_inert
    io = StringIO.new
    @profile.print_flat(io, limit: 100)
    refute_match(/[\e\0\r]/, io.string)
    assert_equal HOSTILE.size, io.string.scan(/EveryFormatHostile#/).size
  end
end

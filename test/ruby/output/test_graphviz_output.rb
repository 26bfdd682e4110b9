require_relative "../test_helper"
require_relative "../cli_helper"

# Rendering with Graphviz within limits: a warning before a graph dot
# will be slow on, a timeout after which dot is stopped and the .dot kept.
class TestDotRender < Minitest::Test
  include CliHelper

  # 600 methods, each called once from the top: 600 boxes, 600 arrows.
  WIDE = <<~RUBY.freeze
    600.times { |i| Object.define_method(:"m\#{i}") { i } }
    def top = (0...600).each { |i| send(:"m\#{i}") }
    top
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-dot-render")
    write_script("wide.rb", WIDE)
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def path(name) = File.join(@dir, name)

  def test_a_graph_dot_will_be_slow_on_is_announced_with_how_to_shrink_it
    _, err, status = tracegraph("--max-nodes", "0", "--node-fraction", "0", "--edge-fraction", "0",
                                "-o", "wide.svg", "wide.rb")
    assert status.success?, err
    assert_match(/tracegraph: .*wide\.dot has 6\d\d boxes and 6\d\d arrows: Graphviz may take minutes to lay it out/, err)
    assert_match(/--max-nodes 80 \(the default\), --node-fraction 0\.01, or --focus REGEX/, err)
    assert File.size?(path("wide.svg"))

    _, err, status = tracegraph("-o", "small.svg", "wide.rb")
    assert status.success?, err
    refute_match(/may take minutes/, err, "the default 80 boxes are quick")
  end

  def test_a_render_past_the_timeout_is_stopped_and_the_dot_kept
    _, err, status = tracegraph("--max-nodes", "0", "--node-fraction", "0", "--edge-fraction", "0",
                                "-o", "slow.svg", "-o", "slow.json", "wide.rb",
                                env: {"TRACEGRAPH_DOT_TIMEOUT" => "0.01"})
    assert_equal 1, status.exitstatus, err
    assert_match(/Graphviz did not finish .*slow\.svg within 0\.01 s \(6\d\d boxes, 6\d\d arrows\) and was stopped; the call graph is in .*slow\.dot/, err)
    refute File.exist?(path("slow.svg"))
    assert File.size?(path("slow.dot"))
    assert_equal 1, Tracegraph::Profile.load_json(path("slow.json"))["Object#top"].calls, "the other outputs are written"
  end

  def test_a_bad_timeout_is_named
    _, err, status = tracegraph("-o", "x.svg", "wide.rb", env: {"TRACEGRAPH_DOT_TIMEOUT" => "soon"})
    assert_equal 1, status.exitstatus
    assert_match(/TRACEGRAPH_DOT_TIMEOUT must be a number of seconds, not "soon"/, err)
    assert File.size?(path("x.dot")), "the graph is kept"
  end
end

require_relative "../ruby/test_helper"
require_relative "../ruby/cli_helper"

# Every numeric option is range-checked before anything runs: the API
# raises ArgumentError, the commands print one line and exit 2.
class TestNumericOptions < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-numeric")
    @script = write_script("app.rb", "def work = 1\nwork\nputs :ran\n")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def profile = @profile ||= Tracegraph.profile { [1, 2].sum }

  def test_the_api_raises_argument_error_for_out_of_range_numbers
    [2**64, 99_999_999_999_999_999_999_999, -1, 1.5].each do |n|
      error = assert_raises(ArgumentError) { profile.to_dot(max_nodes: n) }
      assert_match(/max_nodes must be an integer from 0/, error.message)
    end
    [Float::NAN, Float::INFINITY, -0.1, 2].each do |f|
      assert_raises(ArgumentError) { profile.to_dot(node_fraction: f) }
      assert_raises(ArgumentError) { profile.to_dot(edge_fraction: f) }
    end
    assert_raises(ArgumentError) { Tracegraph.start(call_tree: true, max_call_tree_nodes: 2**64) }
    refute Tracegraph.running?
    assert_includes profile.to_dot(max_nodes: 2**32 - 1), "digraph"
  end

  def test_the_cli_refuses_a_huge_max_nodes_before_running_the_script
    out, err, status = tracegraph("--max-nodes", "99999999999999999999999", "-o", "x.dot", @script)
    assert_equal 2, status.exitstatus, err
    refute_includes out, "ran", "the script must not run"
    assert_equal 1, err.lines.size, err
    assert_match(/max_nodes must be an integer from 0/, err)
    refute File.exist?(File.join(@dir, "x.dot"))
  end

  # A profiler must not turn a green build red: the program runs, unprofiled.
  def test_autorun_refuses_a_huge_max_nodes_and_runs_the_program_unprofiled
    env = {"TRACEGRAPH_MAX_NODES" => "99999999999999999999999", "TRACEGRAPH_OUTPUT" => File.join(@dir, "a.dot")}
    out, err, status = ruby("-rtracegraph/autorun", @script, env: env)
    assert_equal 0, status.exitstatus, err
    assert_equal "ran\n", out
    assert_equal 1, err.lines.size, err
    assert_match(/TRACEGRAPH_\* setting: max_nodes must be an integer from 0.*; running without profiling/, err)
    refute File.exist?(File.join(@dir, "a.dot"))
  end
end

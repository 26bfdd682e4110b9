require_relative "test_helper"
require_relative "cli_helper"
require "json"
require "zlib"

# The call tree's cap from the command line, and every stack output saying
# what it folded.
class TestCallTreeCap < Minitest::Test
  include CliHelper

  # Range#each: C on every Ruby (Integer#times is Ruby code from 3.3, so
  # --no-c-calls would still record it there).
  PROGRAM = <<~RUBY
    def leaf(i) = i
    def branch(i) = (1..3).each { |j| leaf(j) }
    def root = (1..4).each { |i| branch(i) }
    root
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-cap")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_the_flag_caps_the_tree_and_every_output_says_what_was_folded
    script = write_script("app.rb", PROGRAM)
    # --no-blocks: the paths are the methods' alone, root and root>branch.
    _, err, status = tracegraph("--no-c-calls", "--no-blocks", "--max-call-tree-nodes", "2", "-o", "x.folded", "-o", "x.pb.gz",
                                "-o", "x.speedscope.json", "-o", "x.firefox.json", "-o", "x.json", script)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "x.json"))
    # root and root>branch fill the tree; the 12 calls of leaf are folded.
    assert_equal [%w[Object#root], %w[Object#root Object#branch]], profile.call_tree.nodes.map { |n| n.stack.map(&:name) }
    assert_equal 12, profile.call_tree.folded_calls
    assert_equal 12, profile["Object#leaf"].calls, "method statistics stay exact"
    assert_includes err, "tracegraph: the call tree reached its cap (2 paths kept): 12 calls on new paths were " \
                         "folded into their nearest kept ancestor (raise the cap with --max-call-tree-nodes)\n"
    assert_equal 1, err.scan("reached its cap").size, "said once, not per output"
    name = JSON.parse(File.read(File.join(@dir, "x.speedscope.json")))["name"]
    assert_equal "#{script} (12 calls past the call tree's cap folded)", name
    assert_includes Zlib.gunzip(File.binread(File.join(@dir, "x.pb.gz"))), "12 calls past the call tree's cap were folded"
    product = JSON.parse(File.read(File.join(@dir, "x.firefox.json")))["meta"]["product"]
    assert_equal "#{script} (tracegraph, wall clock; 12 calls past the call tree's cap folded)", product
    lines = File.read(File.join(@dir, "x.folded")).lines
    assert_equal ["Object#root;Object#branch", "Object#root"], lines.map { |l| l[/\A\S+/] }
    assert_equal profile.total_time, lines.sum { |l| Integer(l[/\d+$/]) }
  end

  def test_no_note_without_folding_or_without_a_stack_output
    script = write_script("app.rb", PROGRAM)
    _, err, status = tracegraph("--no-c-calls", "-o", "x.folded", script)
    assert status.success?, err
    refute_includes err, "reached its cap"
    _, err, status = tracegraph("--no-c-calls", "--call-tree", "--max-call-tree-nodes", "1", "-o", "x.dot", script)
    assert status.success?, err
    refute_includes err, "reached its cap"
  end

  def test_bad_caps_are_refused_before_the_script_runs
    script = write_script("app.rb", "puts :ran\n")
    { "0" => /invalid argument: --max-call-tree-nodes 0 \(from 1 to 2147483647\)/,
      "2147483648" => /invalid argument: --max-call-tree-nodes 2147483648 \(from 1 to 2147483647\)/,
      "many" => /invalid argument: --max-call-tree-nodes many/ }.each do |value, message|
      out, err, status = tracegraph("--max-call-tree-nodes", value, "-o", "x.folded", script)
      assert_equal 2, status.exitstatus, err
      assert_empty out
      assert_match message, err
      assert_equal 1, err.lines.size
    end
  end

  def test_the_api_refuses_a_cap_past_the_core_limit
    error = assert_raises(ArgumentError) { Tracegraph.start(call_tree: true, max_call_tree_nodes: 2**31) }
    assert_equal "max_call_tree_nodes must be an integer from 1 to 2147483647, not 2147483648", error.message
  end

  # A cap on a tree that nothing records would be ignored: refused, in the
  # API's terms and the command's, saying how to record one. --runs passes
  # the cap only to runs that record a tree (--thread, --idle hide).
  def test_a_cap_without_a_call_tree_is_refused
    error = assert_raises(ArgumentError) { Tracegraph.start(max_call_tree_nodes: 10) }
    assert_equal "max_call_tree_nodes caps the call tree, which is not recorded: add call_tree: true", error.message
    refute Tracegraph.running?
    script = write_script("app.rb", PROGRAM)
    _, err, status = tracegraph("--max-call-tree-nodes", "5", "-o", "x.json", script)
    assert_equal 2, status.exitstatus
    assert_match(/--max-call-tree-nodes caps the call tree, and nothing here records one: add --call-tree, or an output drawn from it/, err)
    refute File.exist?(File.join(@dir, "x.json"))
    _, err, status = tracegraph("--runs", "2", "--max-call-tree-nodes", "5", "-o", "x.json", script)
    assert_equal 2, status.exitstatus
    assert_match(/with --runs, a run records one only for --thread or --idle hide/, err)
    _, err, status = tracegraph("--runs", "2", "--thread", "main", "--max-call-tree-nodes", "5", "-o", "x.json", script)
    assert status.success?, err
    _, err, status = tracegraph("--call-tree", "--max-call-tree-nodes", "5", "-o", "x.json", script)
    assert status.success?, err
  end
end

require_relative "../test_helper"
require_relative "../cli_helper"
require "open3"

# Chains of frames that only pass the call on, folded into one arrow with
# exact numbers (chain_fold.rb).
class TestChainFold < TracegraphTest
  include CliHelper
  class Spine
    def run = cli
    def cli = environment
    def environment = command
    def command = work
    # Does its own work: not a frame that only passes the call on. Some
    # milliseconds of it: a method's first call costs the profiler about a
    # microsecond it cannot take out, in its caller, and the callers must
    # stay under 0.1% of the run to count as passing the call on.
    def work
      i = 0
      i += 1 while i < 3_000_000
      (1..30).each { |j| j.to_s }
    end
    def direct = work
    def both
      cli
      command # the chain's end, also called directly: not folded
    end
  end

  def test_a_spine_of_pass_through_frames_is_one_arrow
    profile = Tracegraph.profile(gc: false) { Spine.new.run }
    graph, via, notes = profile.fold_chains
    names = %w[cli environment command].map { |m| "TestChainFold::Spine##{m}" }
    names.each { |name| assert_nil graph[name], "#{name} is folded" }
    arrow = graph.edges.find { |e| e.caller.name == "TestChainFold::Spine#run" }
    assert_equal "TestChainFold::Spine#work", arrow.callee.name
    assert_equal names.join("\n"), via[arrow]
    last_hop = edge_named(profile, "TestChainFold::Spine#command", "TestChainFold::Spine#work")
    assert_equal [last_hop.calls, last_hop.total_time, last_hop.self_time],
                 [arrow.calls, arrow.total_time, arrow.self_time]
    assert_equal ["Folded 3 pass-through frames into 1 bold arrow (their tooltips name them)"], notes

    dot = profile.to_dot(node_fraction: 0, edge_fraction: 0)
    assert_match(/label=" via 3 frames · ×1 \\n [\d.]+ .?s "/, dot)
    assert_includes dot, "through (folded, each with one caller and one callee):\\n  TestChainFold::Spine#cli\\n  " \
                         "TestChainFold::Spine#environment\\n  TestChainFold::Spine#command"
    _, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
    assert status.success?, err
    assert_empty err
    refute_includes profile.to_dot(node_fraction: 0, edge_fraction: 0, fold_chains: false), "via 3 frames"
  end

  def test_what_is_not_a_chain_stays
    # One pass-through frame alone is a box, not an arrow.
    profile = Tracegraph.profile(gc: false) { Spine.new.direct }
    assert_same profile, profile.fold_chains.first
    # command has two callers; cli -> environment is a chain of one.
    profile = Tracegraph.profile(gc: false) { Spine.new.both }
    graph, = profile.fold_chains
    assert graph["TestChainFold::Spine#command"]
  end

  def test_the_command_can_draw_every_frame
    Dir.mktmpdir do |dir|
      # d works for some milliseconds: a first call of each method costs the
      # profiler about a microsecond it cannot take out, and b and c pass
      # the call on only while that is a small share of the run.
      code = "def a = b\ndef b = c\ndef c = d\ndef d = (i = 0; i += 1 while i < 3_000_000)\na\n"
      _, err, status = tracegraph("-o", "folded.dot", "-e", code, chdir: dir)
      assert status.success?, err
      assert_includes File.read(File.join(dir, "folded.dot")), "via 2 frames"
      _, err, status = tracegraph("--no-fold-chains", "-o", "all.dot", "-e", code, chdir: dir)
      assert status.success?, err
      all = File.read(File.join(dir, "all.dot"))
      refute_includes all, "via 2 frames"
      assert_includes all, "label=\"Object#b\\n"
    end
  end
end

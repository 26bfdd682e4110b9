require_relative "../ruby/test_helper"
require_relative "../ruby/cli_helper"

# Folded stacks of a 100,000-deep recursion: each path is built once from
# its parent's, and lines stop at Profile::FOLDED_MAX_DEPTH frames, so the
# file stays small instead of growing with the square of the depth.
class TestDeepFolded < Minitest::Test
  include CliHelper

  SCRIPT = <<~'RUBY'
    require "tracegraph"
    require "json"
    def down(n) = n.zero? ? 0 : down(n - 1)
    profile = Tracegraph.profile(call_tree: true, c_calls: false) { Thread.new { down(100_000) }.join }
    folded = profile.to_folded
    lines = folded.lines
    # A collection that runs during the recursion adds its own lines (the
    # node and its phases), at whatever depth it ran.
    gc_lines = lines.count { |l| l.include?("(garbage collection") }
    puts JSON.generate("lines" => lines.size - gc_lines, "bytes" => folded.bytesize,
                       # (a "thread: NAME" first frame, there when two threads have
                       # stacks, names the thread: it is not one of the stack's)
                       "deepest" => lines.map { |l| l.sub(/\Athread: [^;]*;/, "").count(";") + 1 }.max,
                       "weights" => lines.sum { |l| Integer(l[/\d+$/]) }, "total" => profile.total_time,
                       "calls" => profile["Object#down"].calls, "limit" => Tracegraph::Profile::FOLDED_MAX_DEPTH)
  RUBY

  def test_a_100_000_deep_recursion_folds_into_bounded_lines
    env = {"RUBY_THREAD_VM_STACK_SIZE" => (256 * 1024 * 1024).to_s}
    out, err, status = ruby("-e", SCRIPT, chdir: ROOT, env: env)
    assert status.success?, err
    r = JSON.parse(out.lines.last)
    assert_equal 100_001, r["calls"]
    assert_equal r["limit"], r["deepest"], "lines stop at the depth limit"
    # down and Integer#zero? at each depth up to the limit: linear in it
    # (garbage collection's lines aside).
    assert_operator r["lines"], :<=, 2 * r["limit"]
    assert_operator r["bytes"], :<, 20 * 1024 * 1024
    assert_equal r["total"], r["weights"], "the cut frames' time is kept, on the line where they are cut"
  end
end

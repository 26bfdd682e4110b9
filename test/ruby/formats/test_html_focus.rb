require_relative "../test_helper"
require_relative "../cli_helper"
require_relative "../browser_helper"
require "tmpdir"

# The HTML report's focus view (formats/html/focus_graph.js) follows the
# rule --focus follows. With a call tree it draws only the call paths
# through the focus, counted in the page (html/call_tree.js) as
# Profile#focus_paths counts them in C (tg_tree_stats.c); without one it
# walks the method graph as tg_graph.c does, never on through a hub the
# focus does not reach. Wide graphs are laid out in rows. Checked in
# Chromium against the profile's own numbers and the command's DOT.
class TestHtmlFocus < TracegraphTest
  include CliHelper
  include BrowserHelper

  # Object#small_leaf is small, and reached through a hub it shares with
  # Object#big_leaf: Array#each, whose blocks call each. Integer#times is
  # the top's loop and small_leaf's own. A second thread calls small too.
  HUB = <<~RUBY
    def small_leaf = 10.times { |i| i * 2 }
    def small = [1, 2, 3].each { small_leaf }
    def big_leaf = (i = 0; i += 1 while i < 30_000; i)
    def big = [1, 2, 3].each { big_leaf }
    def run = (small; big)
    other = Thread.new { Thread.current.name = "other"; 2.times { small } }
    20.times { run }
    other.join
  RUBY

  # Object#wide calls 36 methods, each a loop of its own.
  WIDE = (36.times.map { |i| "def step#{i} = #{(i + 1) * 40}.times { |k| k * k }\n" }.join +
          "def wide = (#{36.times.map { |i| "step#{i}" }.join('; ')})\n" \
          "def outer = 3.times { wide }\nouter\n").freeze

  # Object#leaf has 36 callers, each called from the top of the script:
  # drawn without callers of their own.
  CALLERS = ("def leaf(n) = n.times { |k| k * k }\n" +
             36.times.map { |i| "def caller#{i} = leaf(#{(i + 1) * 40})\n" }.join +
             36.times.map { |i| "caller#{i}\n" }.join).freeze

  def setup
    @dir = Dir.mktmpdir("tracegraph-html-focus")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  # Records code into name.html and name.json (with the call tree when
  # call_tree) and returns the profile.
  def record(code, name, call_tree: true)
    script = write_script("#{name}.rb", code)
    _, err, status = tracegraph(*(call_tree ? ["--call-tree"] : []), "-o", "#{name}.json", script)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "#{name}.json"))
    assert_equal call_tree, !profile.call_tree.nil?
    profile.write_html(File.join(@dir, "#{name}.html"))
    profile
  end

  # A tooltip's exact numbers: a box's {"calls", "self", "total"} (ns), an
  # arrow's {"calls", "total"}.
  def box_numbers(tip)
    {"calls" => tip[/^calls: ([\d,]+)$/, 1], "self" => tip[/^self: .*, ([\d,]+) ns$/, 1],
     "total" => tip[/^total: .*, ([\d,]+) ns$/, 1]}.transform_values { |v| v&.delete(",")&.to_i }
  end

  def arrow_numbers(tip)
    {"calls" => tip[/^([\d,]+) calls?$/, 1], "total" => tip[/^total: .*, ([\d,]+) ns$/, 1]}
      .transform_values { |v| v&.delete(",")&.to_i }
  end

  # A method by name and line: two blocks may share a name.
  def key(m) = "#{m.name}:#{m.line}"

  # What the page draws: {key => numbers} for boxes and {[caller key,
  # callee key] => numbers} for arrows (an arrow's id is its edge's place
  # in the profile).
  def drawn_boxes(profile, state) = state["boxTips"].to_h { |i, tip| [key(profile.methods[i]), box_numbers(tip)] }

  def drawn_arrows(profile, state)
    state["edgeTips"].to_h { |i, tip| [[key(profile.edges[i].caller), key(profile.edges[i].callee)], arrow_numbers(tip)] }
  end

  # The focused profile's numbers, as the page shows them.
  def expected_boxes(focused)
    focused.methods.to_h { |m| [key(m), {"calls" => m.calls, "self" => m.self_time, "total" => m.total_time}] }
  end

  def expected_arrows(focused)
    focused.edges.to_h { |e| [[key(e.caller), key(e.callee)], {"calls" => e.calls, "total" => e.total_time}] }
  end

  # The boxes' numbers by name alone, for names only one method has.
  def by_name(profile, state) = drawn_boxes(profile, state).transform_keys { |k| k.sub(/:\d*\z/, "") }

  def test_a_focus_draws_only_the_paths_through_it_counted_as_focus_paths_counts
    profile = record(HUB, "hub")
    main = profile.threads.find { |t| t.name == "main" }
    path = File.join(@dir, "hub.html")
    pattern = /\AObject#small_leaf\z/
    # The page opens with waiting (main's Thread#join) hidden: idle=show shows it.
    [[profile, "idle=show"], [profile.view(threads: [main.id], idle: :hide), "thread=#{main.id}"],
     [profile.view(idle: :hide), nil]]
      .each do |whole, params|
      focused, left_out = whole.focus_paths(pattern)
      state = check_in_chromium(path, "--focus", "Object#small_leaf", "--focus-only",
                                *(params ? ["--focus-params", params] : []))["focus"]["first"]
      refute state["fallback"], state["legend"]
      why = params || "every thread"
      assert_equal expected_boxes(focused), drawn_boxes(profile, state), "#{why}: the boxes, counted as tg_tree_stats.c counts"
      assert_equal expected_arrows(focused), drawn_arrows(profile, state), "#{why}: the arrows, counted as tg_tree_stats.c counts"
      # The hubs keep only their calls on the way to it.
      drawn = by_name(profile, state)
      main_only = params&.start_with?("thread=")
      calls = main_only ? 60 : 66 # main's 20 runs' 3 calls each, and the other thread's 2 times 3
      assert_equal calls, drawn["Object#small_leaf"]["calls"]
      assert_equal calls * 10, drawn["block in Object#small_leaf"]["calls"]
      refute_includes drawn.keys, "Object#big"
      refute_includes drawn.keys, "Object#big_leaf"
      refute_includes drawn.keys, "block in Object#big"
      assert_equal 0, drawn["Array#each"]["self"], "a caller above the focus has no self time"
      if main_only
        assert_equal [20, 61, 20], drawn.values_at("Array#each", "Integer#times", "Object#run").map { |n| n["calls"] },
                     "main's: Array#each 20 calls (small's, not big's 20), Integer#times the top's loop and small_leaf's 60"
      else
        assert_equal [22, 68], drawn.values_at("Array#each", "Integer#times").map { |n| n["calls"] },
                     "Array#each: small's 20 in main and 2 in the other thread, not big's 20; Integer#times: both loops and small_leaf's 66"
      end
      assert_equal 42, whole.methods.find { |m| m.name == "Array#each" }.calls, "(the whole profile's Array#each: big's too)" unless main_only
      assert_match(/counted from the call tree, as --focus counts: only the paths through it, .* #{left_out} methods left out \(the heaviest: Object#big, /,
                   state["legend"])
    end
  end

  # The names the command's DOT draws: its boxes, and the frames its
  # folded arrows pass through (their tooltips name them).
  def dot_names(dot)
    boxes = dot.scan(/^\s+N\d+ \[label=.*?tooltip="((?:[^"\\]|\\.)*?)\\n/).flatten
    folded = dot.scan(/through \(folded[^"]*?\):((?:\\n  (?:[^"\\]|\\.)*?)+)"/).flatten
                .flat_map { |list| list.split("\\n  ").reject(&:empty?) }
    (boxes + folded).map { |n| n.gsub(/\\(.)/, '\1') }.sort.uniq
  end

  # tracegraph render NAME.json --focus REGEXP: the DOT text, with no box
  # cut for its size (the page has none: only the budget of boxes).
  def command_dot(name, regexp)
    out, err, status = tracegraph("render", "#{name}.json", "--focus", regexp, "--node-fraction", "0", "-o", "-",
                                  "--format", "dot")
    assert status.success?, err
    out
  end

  # With a call tree and without, the page draws for a focus the methods
  # the command draws: Array#each, which small and big both call, leads
  # on to neither big's block nor big_leaf.
  def test_the_command_and_the_page_draw_the_same_methods_for_a_focus
    [true, false].each do |call_tree|
      name = call_tree ? "tree" : "methods"
      profile = record(HUB, name, call_tree: call_tree)
      dot = command_dot(name, "small_leaf")
      state = check_in_chromium(File.join(@dir, "#{name}.html"), "--focus-regexp", "small_leaf")["focus"]["first"]
      page = state["boxes"].map(&:last).sort.uniq
      assert_equal dot_names(dot), page, "with#{'out' unless call_tree} a call tree: the same methods as the command's DOT"
      assert_includes page, "Array#each"
      %w[Object#big Object#big_leaf block\ in\ Object#big].each { |m| refute_includes page, m }
      # With a call tree, the page and the command leave the waiting out (Thread#join).
      left_out = (call_tree ? profile.view(idle: :hide) : profile).methods.size - state["boxes"].size
      if call_tree
        assert_match(/Focus on the call paths through the matches/, dot)
        assert_match(/only the paths through them, .*; #{left_out} methods left out \(the heaviest: Object#big, /, state["legend"])
      else
        assert_match(/Focus by methods, not paths/, dot)
        assert_match(/by methods, not paths, .*never on through a hub that they do not reach; each box's numbers are the whole method's; #{left_out} methods left out \(the heaviest: Object#big, /,
                     state["legend"])
        whole = profile.methods.find { |m| m.name == "Array#each" }
        assert_equal whole.calls, box_numbers(state["boxTips"].find { |i, _| i == profile.index_of(whole) }.last)["calls"],
                     "without a call tree, a box's numbers are the whole method's"
      end
    end
    # Names only, and case-sensitive, as the command: the script's file
    # name, and small_leaf in capitals, match no method in either.
    focus = "tree\\.rb|Small_Leaf"
    _, err, status = tracegraph("render", "tree.json", "--focus", focus, "-o", "-", "--format", "dot")
    assert_equal 1, status.exitstatus, "the command fails a graph of nothing, naming the pattern"
    assert_includes err, "tracegraph render: --focus /tree\\.rb|Small_Leaf/ matches no method of the profile ("
    state = check_in_chromium(File.join(@dir, "tree.html"), "--focus-regexp", focus)["focus"]["first"]
    assert_equal [], state["boxes"]
    assert_match(%r{\ANo method matches the focus /tree\\.rb\|Small_Leaf/ \(a regexp on methods' names, case-sensitive}, state["legend"])
  end

  # A method with 36 callees, and one with 36 callers, at the default 40
  # boxes, in a laptop's 1366 px window: in rows of 4, the drawing no
  # wider than the view, opened at 0.8 px per point or more (the smallest
  # box text, 9 pt, at 7.2 px at least).
  def test_a_wide_focus_is_laid_out_in_rows_within_the_window
    [[WIDE, "wide", "Object#wide", "Object#step", 40], [CALLERS, "callers", "Object#leaf", "Object#caller", 39]]
      .each do |code, name, focus, many, boxes|
      record(code, name)
      state = check_in_chromium(File.join(@dir, "#{name}.html"), "--focus", focus, "--focus-only",
                                "--window", "1366x768")["focus"]["first"]
      layout = state["layout"]
      assert_equal boxes, state["boxes"].size, name
      assert_equal 1366, layout["windowWidth"]
      # (Where the width sets the scale, drawnWidth is width * (viewWidth /
      # width) in floating point: 1338.0000000000002 for 1338 once.)
      assert_operator layout["drawnWidth"], :<=, layout["viewWidth"] + 1e-6, "#{name}: the whole width in the view: #{layout}"
      assert_operator layout["scale"], :>=, 0.8, "#{name}: readable: #{layout}"
      assert_operator layout["smallestFont"] * layout["scale"], :>=, 7.2
      assert_operator state["boxes"].count { |_, n| n.start_with?(many) }, :>=, 30, name
      assert_operator layout["height"], :>, layout["width"], "#{name}: rows make it taller than wide: #{layout}"
    end
  end
end

require_relative "../test_helper"
require_relative "../cli_helper"

# --group-by on the command, `render` and `diff`: the same graph and rows
# as the API's Profile#group_by.
class TestGroupByCli < Minitest::Test
  include CliHelper

  PROGRAM = "class Shop\n  def hot = (1..2000).each { leaf }\n  def leaf = 1\nend\nShop.new.hot\n".freeze

  def setup
    @dir = Dir.mktmpdir("tracegraph-group-by-cli")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def path(name) = File.join(@dir, name)

  def test_the_command_and_render_draw_groups_as_the_api_does
    _, err, status = tracegraph("--group-by", "class", "-o", "run.json", "-o", "run.dot", "-e", PROGRAM)
    assert status.success?, err
    assert_includes File.read(path("run.dot")), "Grouped by class"
    saved = Tracegraph::Profile.load_json(path("run.json"))
    assert saved["Shop#hot"], "the JSON keeps the methods"
    _, err, status = tracegraph("render", path("run.json"), "--group-by", "class", "-o", "again.dot")
    assert status.success?, err
    assert_equal Dir.chdir(@dir) { saved.to_dot(group_by: :class) }, File.read(path("again.dot"))
    _, err, status = tracegraph("render", path("run.json"), "--group-by", "line", "-o", "bad.dot")
    refute status.success?
    assert_match(/group-by/, err)
  end

  # Every output that can show groups shows them (the graph, the .txt,
  # --flat); one that cannot is named as written by method, and --group-by
  # with none that can is refused, before anything runs.
  def test_group_by_is_never_silently_ignored
    _, err, status = tracegraph("--group-by", "class", "-o", "run.json", "-o", "run.txt", "-e", PROGRAM)
    assert status.success?, err
    assert_includes err, "tracegraph: --group-by class applies to the graph (and .html's graph view) and the text table; run.json is written " \
                         "by method, as recorded\n"
    saved = Tracegraph::Profile.load_json(path("run.json"))
    by_class = saved.group_by(:class)
    table = StringIO.new
    by_class.print_flat(table, limit: 100)
    assert_equal table.string, File.read(path("run.txt"))
    assert_match(/ in #{by_class.methods.size} classes, /, table.string)
    assert_match(/^ +1 +\S+ \S+ +\S+ \S+ +[\d.]+%  Shop$/, table.string)
    refute_includes table.string, "Shop#leaf"

    out, err, status = tracegraph("render", path("run.json"), "--group-by", "class", "--format", "txt", "-o", "-")
    assert status.success?, err
    assert_equal table.string, out
    out, err, status = tracegraph("render", path("run.json"), "--group-by", "class", "--flat")
    assert status.success?, err
    table = StringIO.new
    by_class.print_flat(table)
    assert_equal table.string, out

    _, err, status = tracegraph("render", path("run.json"), "--group-by", "gem", "-o", "again.json")
    assert_equal 2, status.exitstatus
    assert_equal "tracegraph render: --group-by gem shows groups in the graph (.dot, .svg, .pdf, .png, and .html's graph " \
                 "view) and the text table (.txt, --flat), and again.json cannot show them: add one of those (-o by-gem.svg, -o " \
                 "by-gem.txt)\n", err
    refute File.exist?(path("again.json"))
    _, err, status = tracegraph("--group-by", "file", "-o", "run.folded", "-e", "File.write('ran', 1)")
    assert_equal 2, status.exitstatus
    assert_match(/\Atracegraph: --group-by file shows groups in the graph .* and run\.folded cannot show them/, err)
    refute File.exist?(path("ran")), "refused before the program runs"
  end

  def test_diff_compares_groups
    _, err, status = tracegraph("-o", "a.json", "-e", PROGRAM)
    assert status.success?, err
    a = Tracegraph::Profile.load_json(path("a.json"))
    out, err, status = tracegraph("diff", "a.json", "a.json", "--group-by", "class", "--text", "--limit", "50")
    assert status.success?, err
    shop = a.group_by(:class)["Shop"]
    # hot only: Range#each is a C method Shop#hot calls, so it and the
    # block it calls back 2,000 times are Shop's.
    assert_equal 1, shop.calls
    refute_includes out, "Shop#hot"
    _, err, status = tracegraph("diff", "a.json", "a.json", "--group-by", "gem", "-o", "d.dot")
    assert status.success?, err
    assert_includes File.read(path("d.dot")), "app"
  end

  PING_PONG = <<~RUBY.freeze
    class PingA
      def ping(n) = [n].reverse_each { |k| PongB.new.pong(k) } # C under YJIT too, where #each and #map are Ruby
    end
    class PongB
      def pong(n) = n.zero? ? 0 : PingA.new.ping(n - 1)
    end
    PingA.new.ping(30)
  RUBY

  # Files with a call tree are grouped from it, exactly (in C: no Ruby
  # object per node), as the API groups them.
  def test_diff_groups_files_with_a_call_tree_from_the_tree
    _, err, status = tracegraph("--call-tree", "-o", "pp.json", "-e", PING_PONG)
    assert status.success?, err
    saved = Tracegraph::Profile.load_json(path("pp.json"))
    refute_nil saved.call_tree
    grouped = saved.group_by(:class)
    refute grouped.arrows_estimated?
    out, err, status = tracegraph("diff", "--group-by", "class", "--format", "html", "-o", "-", "pp.json", "pp.json")
    assert status.success?, err
    data = JSON.parse(out[%r{<script type="application/json" id="profile-data">(.*?)</script>}m, 1])
    rows = data["rows"].to_h { |name, _, _, _, _, calls, _, self_time, _, total,| [name, [calls, self_time, total]] }
    grouped.methods.each { |g| assert_equal [g.calls, g.self_time, g.total_time], rows.fetch(g.name), g.name }
    # 31 pings (30 from pong), 31 pongs, each crossing an arrow.
    assert_equal [31, 31], [grouped["PingA"].calls, grouped["PongB"].calls]
    names = data["rows"].map(&:first)
    arrows = data["base_edges"].to_h { |from, to, calls, total| [[names[from], names[to]], [calls, total]] }
    assert_equal [31, grouped["PongB"].total_time], arrows.fetch(%w[PingA PongB])
    assert_equal [30, grouped.edge("PongB", "PingA").total_time], arrows.fetch(%w[PongB PingA])
  end

  def test_render_says_which_grouping_holds_more_when_the_boxes_hold_little
    methods = 150.times.map do |i|
      Tracegraph::MethodStats.new(name: "Part#{i % 3}#m#{i}", file: "/app/part#{i % 3}.rb", line: i + 1, calls: 1,
                                  total_time: 20, self_time: 20, c_method: false)
    end
    Tracegraph::Profile.new(clock: :wall, threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 3000)],
                            methods: methods, edges: []).write_json(path("spread.json"))
    _, err, status = tracegraph("render", "spread.json", "-o", "spread.dot")
    assert status.success?, err
    assert_includes err, "tracegraph render: the graph's boxes hold 53.3% of self time, spread over 150 methods; " \
                         "--group-by class would hold 100%, its biggest box Part0 at 33.3%; also file 100%; " \
                         "not gem, where one box holds half or more (by gem app at 100%)\n"
    _, err, status = tracegraph("render", "spread.json", "-o", "spread.json.gz")
    assert status.success?, err
    refute_includes err, "--group-by", "no graph, no advice"
    _, err, status = tracegraph("-o", "small.dot", "-e", PROGRAM)
    assert status.success?, err
    refute_includes err, "--group-by", "a graph holding most of the time needs no advice"
  end
end

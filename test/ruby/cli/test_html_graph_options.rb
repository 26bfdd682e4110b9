require_relative "../test_helper"
require_relative "../cli_helper"
require_relative "../browser_helper"
require "tmpdir"
require "tracegraph/cli/graph_options"

# The graph flags (GraphOptions::FLAGS: --focus, --ignore, the fractions,
# --max-nodes, --[no-]split-hubs, --[no-]fold-chains, --size-by,
# --group-by) reach the HTML report: its graph view is drawn with them,
# box for box as the .dot the same command writes, the page opens on
# that graph and names the options, and a focus that matches nothing
# fails the .html as it fails a .svg. Checked in Chromium.
class TestHtmlGraphOptions < Minitest::Test
  include CliHelper
  include BrowserHelper

  PROGRAM = <<~RUBY.freeze
    class Shop
      def leaf = 1000.times { |i| i * i }
      def mid = 3.times { leaf }
      def other = 500.times { |i| i.to_s }
      def run = (mid; other)
    end
    shop = Shop.new
    5.times { shop.run }
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-html-graph-options")
    @script = write_script("shop.rb", PROGRAM)
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def path(name) = File.join(@dir, name)

  # The report's embedded data (Formats::Html.data).
  def report_data(name)
    JSON.parse(File.read(path(name))[%r{<script type="application/json" id="profile-data">(.*?)</script>}m, 1])
  end

  # The boxes' tooltips in a .dot (the legend's "Legend" too), in order.
  def dot_tooltips(name)
    File.read(path(name)).scan(/^  (?:\{ rank=source; )?(?:N\d+|legend) \[.*?tooltip="((?:[^"\\]|\\.)*)"/)
        .map { |(tip)| tip.gsub("\\n", "\n") }
  end

  def skip_without_dot
    skip "Graphviz's dot is not installed" unless system("dot", "-V", err: File::NULL)
  end

  # What the page opens on, in Chromium.
  def opened(name) = check_in_chromium(path(name), "--opened")["opened"]

  def test_the_command_draws_the_html_graph_with_its_graph_flags
    skip_without_dot
    flags = ["--focus", "Shop#mid", "--ignore", "leaf", "--node-fraction", "0.001", "--edge-fraction", "0.0005",
             "--max-nodes", "4", "--no-split-hubs", "--no-fold-chains", "--size-by", "time"]
    _, err, status = tracegraph(*flags, "-o", "run.html", "-o", "run.dot", "-o", "run.json", @script)
    assert status.success?, err
    data = report_data("run.html")
    assert_equal ["--focus Shop#mid", "--ignore leaf", "--node-fraction 0.001", "--edge-fraction 0.0005",
                  "--max-nodes 4", "--no-split-hubs", "--no-fold-chains"], data["drawn_with"],
                 "every option that is not the default is named (--size-by time is)"
    flags_known = Tracegraph::GraphOptions::FLAGS.values.flat_map { |(flag)| Array(flag) }
                                                 .flat_map { |f| f.split.first.then { |n| [n.sub("[no-]", ""), n.sub("[no-]", "no-")] } }
    data["drawn_with"].each { |said| assert_includes flags_known, said.split.first, "named as the command's flag" }
    tips = dot_tooltips("run.dot")
    assert_equal 5, tips.size, "the legend and --max-nodes 4's boxes: #{tips.inspect}"
    assert tips.none? { |tip| tip.start_with?("Shop#leaf") }, "--ignore leaf"

    page = opened("run.html")
    assert_equal "nav-graph", page["view"], "a report written with graph flags opens on their graph"
    assert_equal "Drawn with #{data['drawn_with'].join(' ')}, as the report was written; the table, the method pages " \
                 "and the focus and flame views keep every method.", page["drawnWith"]
    assert_nil page["noGraph"]
    assert_equal tips.sort, page["boxes"].map(&:first).sort, "the page's graph is the .dot's, box for box"
    assert_equal tips.size - 1, page["boxes"].count(&:last), "each box but the legend opens its method"

    # render draws the saved profile the same way.
    _, err, status = tracegraph("render", path("run.json"), *flags, "-o", "again.html")
    assert status.success?, err
    assert_equal data["drawn_with"], report_data("again.html")["drawn_with"]
    assert_equal data["svg"].scan(/xlink:title="([^"]*)"/).sort, report_data("again.html")["svg"].scan(/xlink:title="([^"]*)"/).sort
  end

  # Without graph flags the page opens on its summary, with the whole graph.
  def test_without_graph_flags_the_report_opens_on_its_summary
    skip_without_dot
    _, err, status = tracegraph("-o", "plain.html", @script)
    assert status.success?, err
    assert_equal [], report_data("plain.html")["drawn_with"]
    page = opened("plain.html")
    assert_equal "nav-summary", page["view"]
    assert_nil page["drawnWith"]
  end

  def test_group_by_draws_the_html_graph_by_group
    skip_without_dot
    _, err, status = tracegraph("--group-by", "class", "-o", "run.html", "-o", "run.dot", @script)
    assert status.success?, err
    refute_match(/written by method/, err, "the .html shows the groups: no note that it does not")
    assert_equal ["--group-by class"], report_data("run.html")["drawn_with"]
    assert_nil report_data("run.html")["advice"], "no grouping advice on a graph grouped already"
    tips = dot_tooltips("run.dot")
    assert tips.any? { |tip| tip.start_with?("Shop\n") }, tips.inspect
    page = opened("run.html")
    assert_equal "nav-graph", page["view"]
    assert_equal tips.sort, page["boxes"].map(&:first).sort
    assert_equal 0, page["boxes"].count(&:last), "a group's box opens no method's page"

    # Alone, --group-by with an .html is no longer refused.
    _, err, status = tracegraph("--group-by", "gem", "-o", "gems.html", @script)
    assert status.success?, err
    assert_equal ["--group-by gem"], report_data("gems.html")["drawn_with"]
  end

  # A focus that matches nothing fails the .html, naming the pattern, as
  # it fails a .svg; an option the graph cannot honour is refused.
  def test_what_the_html_graph_cannot_draw_is_refused
    _, err, status = tracegraph("-o", "run.json", @script)
    assert status.success?, err
    _, err, status = tracegraph("render", path("run.json"), "--focus", "NoSuchMethod", "-o", "none.html")
    refute status.success?
    assert_equal "tracegraph render: --focus /NoSuchMethod/ matches no method of the profile (#{Tracegraph::Profile.load_json(path('run.json')).methods.size} " \
                 "methods); the names are as the flat table prints them (Class#method, Class.method, block in ...)\n", err
    refute File.exist?(path("none.html"))
    _, err, status = tracegraph("render", path("run.json"), "--size-by", "allocations", "-o", "alloc.html")
    refute status.success?
    assert_match(/size_by: :allocations needs allocation counts.*tracegraph --allocations/, err)
    refute File.exist?(path("alloc.html"))
  end

  # The API takes write_dot's options as the command's flags give them,
  # and refuses what it would leave out.
  def test_the_api_takes_the_graph_options
    profile = Tracegraph.profile { Class.new { def leaf = 10.times { |i| i } }.new.leaf }
    html = profile.to_html(graph: false)
    assert_includes html, "\"drawn_with\":[]"
    error = assert_raises(ArgumentError) { profile.to_html(graph: false, focus: "leaf") }
    assert_equal "focus: the graph view draws with them, and graph: false leaves it out", error.message
    error = assert_raises(ArgumentError) { profile.to_html(max_node: 3) }
    assert_match(/max_node/, error.message)
  end
end

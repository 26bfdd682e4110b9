require_relative "../test_helper"
require_relative "../cli_helper"
require_relative "../browser_helper"
require "json"
require "open3"
require "tmpdir"

# The HTML diff report (comparison/diff_html.rb, formats/html/diff_report.js):
# one file, nothing fetched, names as data. The browser tests open it from
# file:// in Debian's chromium, driven by puppeteer-core
# (test/consumers/diff_report_check.js), and compare what a user sees with
# the two profiles' exact numbers. They skip where chromium or the npm
# package is absent; without Graphviz the graph's checks are left out.
class TestDiffHtml < TracegraphTest
  include CliHelper
  include BrowserHelper

  CONSUMERS = File.expand_path("../../consumers", __dir__)
  CHECKER = File.join(CONSUMERS, "diff_report_check.js")

  # heavy's loop grows from 200 to 3,000 turns, light is called once more,
  # gone and fresh come and go. Range#each and a while loop: the same
  # methods on every Ruby (Integer#times is Ruby code from 3.3).
  BASE = <<~RUBY
    def spin(n) = (1..n).each { |i| i * i }
    def light = spin(10)
    def heavy = (light; spin(200))
    def gone = 1
    def work = (light; heavy; gone)
    3.times { work }
  RUBY
  HEAD = <<~RUBY
    def spin(n) = (1..n).each { |i| i * i }
    def light = spin(10)
    def heavy = (light; spin(3_000))
    def fresh = 2
    def work = (light; heavy; light; fresh)
    3.times { work }
  RUBY

  # Names a page must show as text, never run; in both runs, the
  # <img onerror> one slower in head.
  HOSTILE = <<~'RUBY'
    class Evil
      define_method("<script>alert(1)</script>") { |n| (1..n).each { } }
      define_method("</script><script>window.__pwned=1;alert(3)</script>") { |n| send("<script>alert(1)</script>", n) }
      define_method("<img src=x onerror=\"window.__pwned=1;alert(2)\">") do |n|
        i = 0
        i += 1 while i < n
        send("</script><script>window.__pwned=1;alert(3)</script>", 3)
      end
      define_method("line\u2028sep & <b>bold</b>") { |n| send("<img src=x onerror=\"window.__pwned=1;alert(2)\">", n) }
    end
    e = Evil.new
    5.times { e.send("line\u2028sep & <b>bold</b>", LOOP) }
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-diff-html")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  # --no-gc: whether a collection ran in one process and not the other is
  # not what these tests are about.
  def record(name, code)
    _, err, status = tracegraph("--no-gc", "-o", "#{name}.json", write_script("#{name}.rb", code))
    assert status.success?, err
    File.join(@dir, "#{name}.json")
  end

  def load(path) = Tracegraph::Profile.load_json(path)

  def embedded(html)
    JSON.parse(html[%r{<script type="application/json" id="profile-data">(.*?)</script>}m, 1])
  end

  def dot? = system("command -v dot > /dev/null 2>&1")

  def test_one_file_with_its_own_script_the_policy_allows_by_hash
    diff = load(record("base", BASE)).diff(load(record("head", HEAD)))
    html = diff.to_html
    policy = html[/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/, 1]
    scripts = html.scan(%r{<script>(.*?)</script>}m).flatten
    assets = File.expand_path("../../../lib/tracegraph/formats/html", __dir__)
    assert_equal(%w[page_kit.js diff_report.js].map { |name| File.read(File.join(assets, name)) }, scripts,
                 "the helpers both pages share, then the diff report's own script")
    assert_equal "script-src #{scripts.map { |s| "'sha256-#{Digest::SHA256.base64digest(s)}'" }.join(' ')}", policy.split("; ")[1]
    assert_match(/\Adefault-src 'none';/, policy)
    assert_equal 3, html.scan("<script").size, "the data and the diff report's two scripts"
    refute_match(/<link|<img|<iframe|\bsrc=|@import|url\(/i, html.sub(/<script type="application\/json".*?<\/script>/m, ""))
    data = embedded(html)
    assert_equal(diff.rows.map { |r| [r.name, r.base_total, r.head_total] }, data["rows"].map { |r| r.values_at(0, 9, 10) })
    index = data["rows"].each_with_index.to_h { |r, i| [r[0], i] }
    light = diff.head.edge("Object#work", "Object#light")
    assert_includes data["head_edges"], [index["Object#work"], index["Object#light"], 6, light.total_time]
    assert_includes data["base_edges"], [index["Object#work"], index["Object#gone"], 3,
                                         diff.base.edge("Object#work", "Object#gone").total_time]
    assert_nil data["gate"]
    assert_match(/\A<\?xml.*<svg/m, data["svg"]) if dot?
  end

  def test_normalize_scales_the_tables_base_times_as_the_graphs
    diff = load(record("base", BASE)).diff(load(record("head", HEAD)))
    data = embedded(diff.to_html(graph: false, normalize: true))
    assert data["normalized"]
    assert_equal(diff.rows(normalize: true).map(&:base_self), data["rows"].map { |r| r[7] })
    work = data["rows"].index { |r| r[0] == "Object#work" }
    heavy = data["rows"].index { |r| r[0] == "Object#heavy" }
    edge = data["base_edges"].find { |e| e[0] == work && e[1] == heavy }
    assert_equal (diff.base.edge("Object#work", "Object#heavy").total_time * diff.normalize_factor).round, edge[3]
    assert_equal "the graph view was left out (graph: false)", data["graph_note"]
  end

  def test_bad_options_are_refused_by_name
    diff = load(record("base", BASE)).diff(load(record("head", HEAD)))
    error = assert_raises(ArgumentError) { diff.to_html(gate: "yes") }
    assert_equal "gate must be a Tracegraph::DiffGate or nil, not String", error.message
    error = assert_raises(ArgumentError) { diff.to_html(group_by: :module) }
    assert_equal "group_by must be one of method, class, file, gem, not :module", error.message
    assert_raises(ArgumentError) { diff.to_html(max_nodes: -1) }
    error = assert_raises(ArgumentError) { diff.to_html(size_by: :allocations) }
    assert_match(/allocations cannot be drawn: base and head have no allocation counts/, error.message)
  end

  # --- in a real browser ---

  def check_in_chromium(path, *args)
    need_chromium
    check_in_browser(path, *args, checker: CHECKER)
  end

  def group(n) = (n.negative? ? "-" : "") + n.abs.to_s.reverse.scan(/\d{1,3}/).join(",").reverse

  def signed_group(n) = n.positive? ? "+#{group(n)}" : group(n)

  # The change in percent as the page writes it: one decimal of the
  # Float's exact value, halves away from zero (JavaScript's toFixed),
  # "new" from nothing.
  def change(base, head)
    return head.zero? ? "" : "new" if base.zero?

    pct = 100.0 * (head - base) / base
    tenths = (pct.abs.to_r * 10).round(half: :up)
    "#{pct.negative? ? '-' : '+'}#{tenths / 10}.#{tenths % 10}%"
  end

  STATUS = {changed: "in both", new: "new in head", gone: "gone from base"}.freeze

  # The rows as the table orders them by one measure: the biggest change
  # either way first, then as ProfileDiff#rows orders them.
  def by_change(rows, measure)
    rows.each_with_index.sort_by { |r, i| [-r.public_send("#{measure}_delta").abs, i] }.map(&:first)
  end

  # A name's callers or callees on both sides, as the method's view lists
  # them: [name, calls in base, calls in head], biggest change in time first.
  def two_sided(diff, name, side)
    other = side == :caller ? :callee : :caller
    order = diff.rows.each_with_index.to_h { |r, i| [r.name, i] }
    links = Hash.new { |h, k| h[k] = {calls: [0, 0], total: [0, 0]} }
    [diff.base, diff.head].each_with_index do |profile, i|
      profile.edges.select { |e| e.public_send(other).name == name }.each do |e|
        link = links[e.public_send(side).name]
        link[:calls][i] += e.calls
        link[:total][i] += e.total_time
      end
    end
    links.sort_by { |n, l| [-(l[:total][1] - l[:total][0]).abs, -l[:calls][1], order[n]] }
         .map { |n, l| [n, group(l[:calls][0]), group(l[:calls][1])] }
  end

  # Runs that spread wider than the limit: the report's verdict is the
  # gate's "cannot tell", as the command's status 4 is.
  def test_a_gate_that_cannot_tell_says_so_in_chromium
    write_runs_profile("wide-base.json", [100, 90, 110, 95, 105])
    write_runs_profile("wide-head.json", [104, 94, 114, 99, 109])
    _, err, status = tracegraph("diff", "--fail-on-time", "3", "-o", "diff.html", "wide-base.json", "wide-head.json")
    assert_equal 4, status.exitstatus, err
    gate = check_in_chromium(File.join(@dir, "diff.html"))["gate"]
    assert_equal "Gate cannot tell: 1 of 2 checks could not tell, the noise between runs wider than the limit",
                 gate["verdict"]
    refute gate["failed"]
    assert_match(/\Acpu time of Object#work against the rest of the run .*: cannot tell: the noise between runs/, gate["lines"].first)
  end

  def test_the_diff_report_in_chromium
    base, head = record("base", BASE), record("head", HEAD)
    _, err, status = tracegraph("diff", "--fail-on-calls", "0", "--exempt", "Range#*", "-o", "diff.html", base, head)
    assert_equal 3, status.exitstatus, err
    diff = load(base).diff(load(head))
    gate = Tracegraph::DiffGate.new(diff, calls: {default: 0.0, methods: {}}, ignore: ["Range#*"])
    result = check_in_chromium(File.join(@dir, "diff.html"), "--search", "fresh", "--method", "Object#light",
                               "--graph-search", "heavy")

    assert_equal "Gate FAILED: #{gate.failures.size} of #{gate.checks.size} checks failed", result["gate"]["verdict"]
    assert_includes result["gate"]["lines"], "calls of Object#light 6 -> 9, +50.0%: more than the allowed ±0%: FAILED"

    rows = diff.rows
    %w[self total calls].each do |measure|
      shown = result["changes"][measure]
      assert_equal rows.size, shown["count"], "every method of either run, by #{measure}"
      assert_equal(by_change(rows, measure).map { |r| [r.name, r.public_send("#{measure}_delta")] },
                   shown["rows"].map { |r| [r[0], r[5]] }, "sorted by the change in #{measure}, exact")
    end
    assert_equal(by_change(rows, "calls").map do |r|
      failed = gate.failures.any? { |c| c.name == r.name }
      [r.name, STATUS[r.status] + (failed ? " · gate failed" : ""), group(r.base_calls), group(r.head_calls),
       signed_group(r.calls_delta), r.calls_delta, change(r.base_calls, r.head_calls)]
    end, result["changes"]["calls"]["rows"])
    assert_equal(by_change(rows, "self").map { |r| change(r.base_self, r.head_self) },
                 result["changes"]["self"]["rows"].map(&:last))
    assert_equal "#changes?sort=total", result["clickedHash"]

    assert_equal ["Object#fresh"], result["search"]["matches"]
    assert_equal "Object#fresh", result["search"]["opened"], "searching its name and pressing Enter opens it"
    assert_equal ["Object#fresh"], result["filter"]["names"]

    method = result["method"]
    assert_equal "Object#light", method["name"], "a click on its row opens it"
    assert_equal "#method=Object%23light", method["hash"]
    assert_equal %w[6 9 +3 +50.0%], method["facts"]["calls"]
    assert_equal [["Object#heavy", "3", "3"], ["Object#work", "3", "6"]].sort, method["callers"].sort
    assert_equal two_sided(diff, "Object#light", :caller), method["callers"]
    assert_equal [["Object#spin", "6", "9"]], method["callees"]
    assert_equal two_sided(diff, "Object#light", :caller).first[0], method["callerOpened"], "a caller is one click away"

    skip "Graphviz's dot is not installed: the report has no graph view" unless dot?
    assert result["graph"]["svg"]
    assert_equal result["graph"]["boxes"] - 2, result["graph"]["boxesWithMethod"], "every box but the legend's two"
    before, zoomed, panned = result["graph"]["zoom"].values_at("before", "zoomed", "panned")
    assert_operator zoomed[2], :<, before[2] * 0.7, "the wheel zooms in"
    assert_equal zoomed[2..], panned[2..], "a drag pans without zooming"
    assert_equal 1, result["graphSearch"]["hits"], "Object#heavy's box"
    assert_equal "#graph?q=heavy", result["graphSearch"]["hash"], "the search is kept in the fragment"
    assert_match(/heavy/, result["graphSearch"]["clicked"], "clicking a box opens its two sides")
  end

  # With allocation counts on both sides, the table has them and sorts by
  # their change; the graph can be drawn by them.
  def test_allocations_when_both_runs_have_them
    strings = "def strings(n) = (1..n).map { |i| i.to_s }\n"
    base = File.join(@dir, "base.json")
    head = File.join(@dir, "head.json")
    [[base, 40], [head, 90]].each do |path, n|
      script = write_script("a#{n}.rb", "#{BASE}#{strings}3.times { strings(#{n}) }\n")
      _, err, status = tracegraph("--no-gc", "--allocations", "-o", path, script)
      assert status.success?, err
    end
    _, err, status = tracegraph("diff", "--size-by", "allocations", "-o", "alloc.html", base, head)
    assert status.success?, err
    diff = load(base).diff(load(head))
    html = File.read(File.join(@dir, "alloc.html"))
    assert_equal "allocations", embedded(html)["size_by"]
    assert_match(/Box size = head self allocations/, embedded(html)["svg"]) if dot?
    result = check_in_chromium(File.join(@dir, "alloc.html"), "--sorts", "allocations,self")
    assert_equal(by_change(diff.rows, "allocations").map { |r| [r.name, r.allocations_delta] },
                 result["changes"]["allocations"]["rows"].map { |r| [r[0], r[5]] })
    to_s = result["changes"]["allocations"]["rows"].find { |r| r[0] == "Integer#to_s" }
    assert_equal %w[120 270 +150 +125.0%], to_s[2..4] + [to_s[6]], "Integer#to_s's own strings, 3 × 40 and 3 × 90"
  end

  # A real program's diff (rake's profile against a copy with every third
  # method twice as slow): the first 500 changes are drawn, "Show all"
  # draws the rest, in the same order.
  def test_a_real_programs_diff_in_chromium
    real = File.expand_path("../../fixtures/real/rake.json.gz", __dir__)
    data = JSON.parse(Tracegraph::ProfileFile.read(real))
    data["methods"].each_with_index { |m, i| %w[self_time total_time].each { |k| m[k] *= 2 } if (i % 3).zero? }
    File.write(File.join(@dir, "slower.json"), JSON.generate(data))
    diff = load(real).diff(load(File.join(@dir, "slower.json")))
    path = diff.write_html(File.join(@dir, "rake.html"), graph: false)
    result = check_in_chromium(path, "--sorts", "self")
    assert_equal 500, result["changes"]["self"]["count"]
    assert_equal(by_change(diff.rows, "self").first(500).map { |r| [r.name, r.self_delta] },
                 result["changes"]["self"]["rows"].map { |r| [r[0], r[5]] })
    assert_equal [500, diff.rows.size], result["showAll"].values_at("before", "after")
    assert_equal "#{group(diff.rows.size)} of #{group(diff.rows.size)} methods, by the size of the change in self",
                 result["showAll"]["count"]
    refute result["graph"]["svg"], "graph: false"
  end

  def test_hostile_names_show_as_text_in_chromium
    base = record("evil_base", HOSTILE.sub("LOOP", "2_000"))
    head = record("evil_head", HOSTILE.sub("LOOP", "40_000"))
    _, err, status = tracegraph("diff", "--node-fraction", "0", "-o", "evil.html", base, head)
    assert status.success?, err
    html = File.read(File.join(@dir, "evil.html"))
    refute_match(/[<>&\u2028\u2029]/, html[%r{<script type="application/json" id="profile-data">(.*?)</script>}m, 1])
    name = "Evil#</script><script>window.__pwned=1;alert(3)</script>"
    img = "Evil#<img src=x onerror=\"window.__pwned=1;alert(2)\">"
    result = check_in_chromium(File.join(@dir, "evil.html"), "--search", "<b>bold", "--method", name,
                               "--graph-search", "onerror")
    refute result["injected"]["pwned"]
    assert_equal 0, result["injected"]["images"], "no <img> from a name"
    assert_equal 3, result["injected"]["scripts"], "no <script> from a name"
    assert_includes result["changes"]["self"]["rows"].map(&:first), "Evil#<script>alert(1)</script>"
    assert_equal ["Evil#line\u2028sep & <b>bold</b>"], result["search"]["matches"]
    assert_equal ["Evil#line\u2028sep & <b>bold</b>"], result["filter"]["names"]
    assert_equal name, result["method"]["name"]
    assert_equal [[img, "5", "5"]], result["method"]["callers"]
    assert_equal [["Evil#<script>alert(1)</script>", "5", "5"]], result["method"]["callees"]
    assert_equal 1, result["graphSearch"]["hits"], "the box of the <img onerror> method" if dot?
  end
end

require_relative "../test_helper"
require_relative "../cli_helper"
require_relative "../browser_helper"
require "json"
require "open3"
require "tmpdir"
require "tracegraph/output/output"

# The HTML report (formats/html.rb): one file, nothing fetched, names as
# data. The browser tests open it from file:// in Debian's chromium,
# driven by puppeteer-core (test/consumers/html_report_check.js; bin/setup
# installs both), and compare what a user sees with the profile's exact
# numbers. They skip where chromium or the npm package is absent.
class TestHtml < TracegraphTest
  include CliHelper
  include BrowserHelper

  REAL = File.expand_path("../../fixtures/real/rubocop.json.gz", __dir__)

  # The report of REAL, written once for the tests that open it (with the
  # grouping advice's graph by gem it takes ~4 s).
  def self.real_html(profile) = @real_html ||= profile.to_html

  PROGRAM = <<~RUBY
    def spin(n) = n.times { |i| i * i }
    def light = spin(10)
    def heavy = (light; spin(2_000))
    def work = (light; heavy; light)
    3.times { work }
  RUBY

  # Names a page must show as text, never run: each would run script if
  # it were put into the page as markup or closed the data's <script>.
  HOSTILE = <<~'RUBY'
    class Evil
      define_method("<script>alert(1)</script>") { |n| n.times { } }
      define_method("</script><script>window.__pwned=1;alert(3)</script>") { send("<script>alert(1)</script>", 3) }
      # Work of its own (a loop, no block), so its box is drawn whatever
      # the machine's speed: a box with next to no self time of its own
      # may be folded into the chain it passes the call along.
      define_method("<img src=x onerror=\"window.__pwned=1;alert(2)\">") do
        i = 0
        i += 1 while i < 20_000
        send("</script><script>window.__pwned=1;alert(3)</script>")
      end
      define_method("line\u2028sep & <b>bold</b>") { send("<img src=x onerror=\"window.__pwned=1;alert(2)\">") }
    end
    e = Evil.new
    5.times { e.send("line\u2028sep & <b>bold</b>") }
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-html")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def profile_of(code, name = "app")
    script = write_script("#{name}.rb", code)
    _, err, status = tracegraph("-o", "#{name}.json", script)
    assert status.success?, err
    Tracegraph::Profile.load_json(File.join(@dir, "#{name}.json"))
  end

  # The embedded profile, read back as the page's script reads it.
  def embedded(html)
    JSON.parse(html[%r{<script type="application/json" id="profile-data">(.*?)</script>}m, 1])
  end

  # main -> a -> b -> c -> d, where a, b and c only pass the call on (no
  # self time): the graph folds them into one arrow, exact numbers.
  def chain_profile
    ms = 1_000_000
    names = %w[Chain.main Chain.a Chain.b Chain.c Chain.d]
    selfs = [ms, 0, 0, 0, 90 * ms]
    totals = [94 * ms, 93 * ms, 92 * ms, 91 * ms, 90 * ms]
    methods = names.each_with_index.map do |name, i|
      Tracegraph::MethodStats.new(name: name, file: "/app/chain.rb", line: i + 1, calls: i.zero? ? 1 : 3,
                                  total_time: totals[i], self_time: selfs[i], c_method: false)
    end
    edges = methods.each_cons(2).map do |from, to|
      Tracegraph::EdgeStats.new(caller: from, callee: to, calls: to.calls, total_time: to.total_time,
                                self_time: to.self_time)
    end
    Tracegraph::Profile.new(clock: :wall, methods: methods, edges: edges,
                            threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 94 * ms)])
  end

  # The page's header and the graph's legend count the same calls, the
  # profile's, though the graph folds the chain a, b, c into one arrow
  # and so draws fewer methods (the legend counted those it drew).
  def test_the_header_and_the_legend_count_the_same_calls
    profile = chain_profile
    assert_equal [13, 4], [profile.total_calls, profile.fold_chains[0].total_calls]
    page = Tracegraph::Formats::Html.generate(profile)
    data = JSON.parse(page[%r{<script type="application/json" id="profile-data">(.*?)</script>}m, 1])
    assert_equal profile.total_calls, data["total_calls"]
    graph = data["svg"] || Tracegraph::Formats::Dot.generate(profile) # (no Graphviz here: the DOT the SVG is laid out from)
    assert_equal ["13"], graph.scan(/total \S+ \S+ \u00b7 ([\d,]+) calls/).flatten
  end

  def test_one_file_with_nothing_to_fetch_and_a_policy_that_forbids_fetching
    profile = profile_of(PROGRAM)
    path = profile.write_html(File.join(@dir, "profile.html"))
    html = File.read(path)
    policy = html[/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/, 1]
    assert_match(/\Adefault-src 'none'; script-src ('sha256-[A-Za-z0-9+\/=]+' )+'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data:;/,
                 policy)
    scripts = html.scan(%r{<script>(.*?)</script>}m).flatten
    assert_equal Tracegraph::Formats::Html::SCRIPTS.size, scripts.size, "the shared helpers', the report's, the flame graph's, Graphviz's and the focused graph's"
    hashes = scripts.map { |s| "'sha256-#{Digest::SHA256.base64digest(s)}'" }
    assert_equal "script-src #{hashes.join(' ')} 'wasm-unsafe-eval'", policy.split("; ")[1],
                 "the policy runs the report's own scripts, by their hashes, and nothing else; Graphviz's WebAssembly may compile"
    assert_equal 1 + scripts.size, html.scan("<script").size, "the data and the report's scripts"
    assert_includes scripts[Tracegraph::Formats::Html::SCRIPTS.index("vendor/viz-global.js")], "Viz.js 3.31.0",
                    "Graphviz in WebAssembly is inlined, not fetched"
    markup = html.gsub(%r{<script[^>]*>.*?</script>}m, "")
    assert_nil markup[/<link|<img|<iframe|\bsrc=|@import|url\(/i], "nothing outside the scripts loads anything"
    data = embedded(html)
    assert_equal(profile.methods.map(&:name), data["methods"].map(&:first))
    assert_equal(profile.methods.map(&:calls), data["methods"].map { |m| m[3] })
    assert_equal(profile.edges.map { |e| [profile.index_of(e.caller), profile.index_of(e.callee), e.calls] },
                 data["edges"].map { |e| e.first(3) })
    assert_match(/\A<\?xml.*<svg/m, data["svg"], "the call graph, laid out by Graphviz when written")
  end

  def test_names_cannot_close_the_data_script
    profile = profile_of(HOSTILE, "evil")
    html = profile.to_html(graph: false)
    data_text = html[%r{<script type="application/json" id="profile-data">(.*?)</script>}m, 1]
    refute_match(/[<>&\u2028\u2029]/, data_text, "every <, >, & and line separator is a \\u escape")
    names = embedded(html)["methods"].map(&:first)
    assert_includes names, "Evil#<script>alert(1)</script>"
    assert_includes names, "Evil#</script><script>window.__pwned=1;alert(3)</script>"
    assert_includes names, "Evil#line\u2028sep & <b>bold</b>"
    assert_equal 1 + Tracegraph::Formats::Html::SCRIPTS.size, html.scan(%r{</script>}).size, "only the page's own scripts end"
  end

  def test_the_command_line_writes_it_by_name_by_format_and_from_a_saved_profile
    script = write_script("app.rb", PROGRAM)
    _, err, status = tracegraph("-o", "app.html", "-o", "app.json", script)
    assert status.success?, err
    assert_match(/\A<!DOCTYPE html>/, File.read(File.join(@dir, "app.html")))
    _, err, status = tracegraph("render", "app.json", "-o", "again.html")
    assert status.success?, err
    assert_equal embedded(File.read(File.join(@dir, "app.html")))["methods"],
                 embedded(File.read(File.join(@dir, "again.html")))["methods"]
    out, err, status = tracegraph("render", "app.json", "--format", "html", "-o", "-")
    assert status.success?, err
    assert_match(/\A<!DOCTYPE html>.*<\/html>\n\z/m, out)
  end

  def test_without_graphviz_the_report_is_written_and_says_why_it_has_no_graph
    script = write_script("app.rb", PROGRAM)
    _, err, status = tracegraph("-o", "app.html", script, env: {"PATH" => path_without_dot})
    assert status.success?, err
    data = embedded(File.read(File.join(@dir, "app.html")))
    assert_nil data["svg"]
    assert_match(/Graphviz's `dot` was not installed/, data["graph_note"])
  end

  # A server writes its report from a signal handler, where Ruby loads
  # no code: nothing on the way may `require` (Tempfile, Digest::SHA256
  # loaded at its first use), and the scratch files are removed after.
  def test_a_signal_handler_writes_the_report_with_its_graph
    script = write_script("served.rb", <<~RUBY)
      require "tracegraph"
      def work = 50.times.sum
      Tracegraph.start
      work
      done = false
      Signal.trap("USR2") { Tracegraph.stop.write_html("report.html"); done = true }
      Process.kill("USR2", Process.pid)
      sleep 0.01 until done
    RUBY
    tmp = File.join(@dir, "tmp")
    Dir.mkdir(tmp)
    _, err, status = Open3.capture3({"TMPDIR" => tmp}, RbConfig.ruby, "-I", LIB, script, chdir: @dir)
    assert status.success?, err
    data = embedded(File.read(File.join(@dir, "report.html")))
    assert_includes data["svg"], "Object#work"
    assert_empty Dir.children(tmp), "the scratch files are removed"
  end

  # The same setting as for -o x.svg, read the same way: a value that is
  # no number of seconds costs the graph view, not the report.
  def test_a_timeout_that_is_no_number_leaves_the_graph_out_and_says_why
    profile = Tracegraph.profile { 3.times { Integer.sqrt(49) } }
    saved = ENV.fetch("TRACEGRAPH_DOT_TIMEOUT", nil)
    ENV["TRACEGRAPH_DOT_TIMEOUT"] = "soon"
    data = embedded(profile.to_html)
    assert_nil data["svg"]
    assert_equal 'Graphviz was not run: TRACEGRAPH_DOT_TIMEOUT must be a number of seconds, not "soon"', data["graph_note"]
  ensure
    ENV["TRACEGRAPH_DOT_TIMEOUT"] = saved
  end

  # The summary's data: what was profiled (Html.title), and the command's
  # grouping advice with the graph it recommends, only where the command
  # gives it (formats/grouping_advice.rb).
  def test_the_page_names_what_was_profiled_and_carries_the_commands_advice
    methods = 150.times.map do |i|
      Tracegraph::MethodStats.new(name: "Part#{i % 3}#m#{i}", file: "/app/part#{i % 3}.rb", line: i + 1, calls: 1,
                                  total_time: 20, self_time: 20, c_method: false)
    end
    spread = Tracegraph::Profile.new(clock: :wall, threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 3000)],
                                     methods: methods, edges: [], program: "spread")
    data = embedded(spread.to_html)
    assert_equal "tracegraph: spread", data["title"]
    advice = data["advice"]
    assert_equal Tracegraph::Formats::GroupingAdvice.note(spread, {}), advice["text"]
    assert_equal ["class", 100.0, "Part0"], advice.values_at("group_by", "held", "biggest")
    assert_in_delta 100.0 / 3, advice["biggest_share"], 1e-9
    if system("dot", "-V", err: File::NULL)
      assert_equal 4, advice["svg"].scan('class="node"').size, "the graph by class: one box per class, and the legend"
    end
    assert_nil embedded(spread.to_html(graph: false))["advice"], "no graph, no advice on it"
    small = Tracegraph.profile { 3.times { Integer.sqrt(49) } }
    assert_nil embedded(small.to_html)["advice"], "a small program's graph holds it all"
  end

  # --- in a real browser ---

  # Where the first screens' screenshots are kept, to be looked at.
  SHOTS = File.expand_path("../../../tmp/first-screen", __dir__)

  # The width and height of a PNG (its IHDR chunk).
  def png_size(path) = File.binread(path, 8, 16).unpack("NN")

  # The first screen at 1366×768: the summary, no wider than the window,
  # no text under 12 px, the heaviest methods by self time with their
  # exact calls all in view; then the full graph a click away.
  def assert_first_screen(profile, screen, shot, program)
    assert_equal "nav-summary", screen["view"], "the report opens on its summary"
    assert_operator screen["scrollWidth"], :<=, screen["clientWidth"], "no horizontal scroll at 1366 px"
    assert_operator screen["smallestFont"], :>=, 12, "no text under 12 px in view (#{screen['smallestText']})"
    assert_operator screen["textNodes"], :>=, 30
    assert_includes screen["title"], program
    # The run's wall time, then the threads' time apart from it, and the waiting in it.
    waiting = profile.waiting_time.positive? ? ", waiting shown (#{Tracegraph.human_time(profile.waiting_time)} of it #{profile.waiting_where})" : ""
    assert_equal "#{program}: #{Tracegraph.human_time(profile.wall_time)} of wall time. 1 thread (main): " \
                 "#{Tracegraph.human_time(profile.total_time)} of wall clock time#{waiting}; " \
                 "#{group(profile.total_calls)} calls of #{group(profile.methods.size)} methods.", screen["what"]
    tracing = profile.tracing_cost ? "Tracing's own cost taken out of these times: #{Tracegraph.tracing_cost_summary(profile)}."
                                   : "Raw times: tracing's own cost is in them (raw_times: true)."
    assert_equal tracing, screen["tracing"], "what was taken out, and how sure"
    top = table_order(profile, :self_time).select { |m| m.self_time.positive? }.first(10)
    assert_equal(top.map { |m| [m.name, group(m.calls)] }, screen["methods"], "the heaviest methods by self time, exact calls")
    assert_equal top.size, screen["rowsInView"], "all of them on the first screen"
    assert_equal "#graph", screen["graph"]["hash"], "the full graph is one click away"
    assert_operator screen["graph"]["boxes"], :>, 2
    assert_equal [1366, 768], png_size(shot), "the screenshot, at #{shot}"
  end

  def group(n) = n.to_s.reverse.scan(/\d{1,3}/).join(",").reverse

  # Methods as the table orders them: by key, biggest first, then as profiled.
  def table_order(profile, key)
    profile.methods.each_with_index.sort_by { |m, i| [-m.public_send(key), i] }.map(&:first)
  end

  # A method's callers or callees as its page lists them: [name, calls],
  # by time, then calls, then as profiled.
  def edge_rows(profile, edges, side)
    edges.each_with_index.sort_by { |e, i| [-e.total_time, -e.calls, i] }
         .map { |e, _| [e.public_send(side).name, group(e.calls)] }
  end

  def test_a_real_programs_report_in_chromium
    profile = Tracegraph::Profile.load_json(REAL)
    path = File.join(@dir, "rubocop.html")
    File.write(path, self.class.real_html(profile))
    boxes = profile.to_dot.scan(/tooltip="([^"\\]*)/).flatten.to_h { |t| [t, true] }
    names = profile.methods.map(&:name).tally
    # A method outside the first graph, with callers and callees and a
    # name of its own: only the search brings it into view.
    # (Arrows counted once, by identity: counting them for each method
    # took 15 s of the test.)
    into = Hash.new(0).compare_by_identity
    out_of = Hash.new(0).compare_by_identity
    profile.edges.each { |e| into[e.callee] += 1; out_of[e.caller] += 1 }
    hidden = profile.methods.select { |m| names[m.name] == 1 && !boxes.key?(m.name) }
                    .max_by { |m| [into[m].clamp(0, 3), out_of[m].clamp(0, 3), m.total_time] }
    callers = profile.edges.select { |e| e.callee.equal?(hidden) }
    callees = profile.edges.select { |e| e.caller.equal?(hidden) }
    assert callers.size > 1 && callees.size > 1, "#{hidden.name}: a method with callers and callees"

    FileUtils.mkdir_p(SHOTS)
    shot = File.join(SHOTS, "rubocop.png")
    result = check_in_chromium(path, "--first-screen", shot, "--search", hidden.name, "--method", hidden.name,
                               "--graph-search", "Lexer#advance")
    screen = result["firstScreen"]
    assert_first_screen(profile, screen, shot, "rubocop")
    assert_match(/no call tree, so no paths/, screen["noPaths"], "a profile without a call tree says so")
    # Spread over 5,830 methods: the command's advice, and its graph by gem.
    # (As test_real_graphs_grouped.rb has the command say it.)
    assert_equal "The full graph's boxes hold 62.1% of self time, spread over 5,830 methods; --group-by gem would hold " \
                 "98.9%, its biggest box rubocop at 40.7%; also file 88.2%, class 87.9%.", screen["advice"]
    assert_equal "#graph?by=gem", screen["groupedLink"]
    assert_equal "#graph?by=gem", screen["grouped"]["hash"]
    by_gem = embedded(File.read(path))["advice"]["svg"]
    assert_equal 15, by_gem.scan('class="node"').size, "14 gems of 27 (the rest too small to draw), and the legend"
    assert_equal [0, 15], screen["grouped"].values_at("boxesWithMethod", "boxes"), "every box drawn; a group opens no method page"
    assert_equal 81, screen["graph"]["boxes"], "80 boxes and the legend"
    # A poster at Fit: the note says how small, and what draws one that reads.
    w, h = embedded(File.read(path))["svg"][/viewBox="([^"]+)"/, 1].split.last(2).map { |n| n.to_f.round }
    assert_match(/\AAt Fit, this graph \(#{group(w)} × #{group(h)} pt\) is drawn at \d+% of its size, too small to read: zoom in with the wheel, or draw fewer boxes \(--max-nodes 40\) or one box per class, file or gem \(--group-by\)\.\z/,
                 screen["graph"]["fitNote"].to_s)
    assert result["graph"]["svg"], "the graph view is drawn"
    assert_equal result["graph"]["boxes"] - 1, result["graph"]["boxesWithMethod"], "every box but the legend opens a method"
    assert_operator result["pageReadyMs"], :<, 3000, "interactive within 3 s"
    before, zoomed, panned = result["graph"]["zoom"].values_at("before", "zoomed", "panned")
    assert_operator zoomed[2], :<, before[2] * 0.7, "the wheel zooms in"
    assert_equal zoomed[2..], panned[2..], "a drag pans without zooming"
    assert_operator panned[0], :<, zoomed[0], "dragging right shows what is left of the view"

    %w[self_time total_time calls].zip(%w[self total calls]).each do |key, sort|
      table = result["table"][sort]
      assert_equal profile.methods.size, table["count"], "every method, by #{sort}"
      assert_equal(table_order(profile, key).first(5).map { |m| [m.name, group(m.calls)] }, table["first"], "by #{sort}")
    end
    assert_equal "#table?sort=total", result["table"]["clickedHash"]

    assert_equal hidden.name, result["search"]["opened"], "searching its name and pressing Enter opens it"
    assert_includes result["filter"]["names"], hidden.name
    method = result["method"]
    assert_equal hidden.name, method["name"]
    assert_equal group(hidden.calls), method["calls"]
    assert_equal edge_rows(profile, callers, :caller), method["callers"]
    assert_equal edge_rows(profile, callees, :callee), method["callees"]
    assert_equal edge_rows(profile, callers, :caller).first[0], method["callerOpened"], "a caller is one click away"
    assert_equal "graphviz", method["graphDrawn"], "Graphviz lays the method's graph out in the page"
    near = [hidden] + [[callers, :caller], [callees, :callee]].flat_map do |edges, side|
      edges.sort_by { |e| -e.total_time }.first(12).map(&side)
    end
    assert_equal near.map { |m| profile.index_of(m) }.uniq.sort, method["graphBoxes"].sort,
                 "the method, its 12 biggest callers and its 12 biggest callees"

    search = result["graphSearch"]
    assert_operator search["hits"], :>=, 1
    assert_equal "#graph?q=Lexer%23advance", search["hash"], "the search is kept in the fragment"
    assert_match(/Lexer#advance/, search["clicked"], "clicking a box opens its method")
  end

  # The demo `rake demo` writes a report of: Integer#times, called from
  # three methods, and calling their blocks.
  def test_the_demos_report_in_chromium
    demo = File.expand_path("../../../examples/demo.rb", __dir__)
    _, err, status = tracegraph("-o", "demo.html", "-o", "demo.json", demo)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "demo.json"))
    times = method_named(profile, "Integer#times")
    FileUtils.mkdir_p(SHOTS)
    shot = File.join(SHOTS, "demo.png")
    result = check_in_chromium(File.join(@dir, "demo.html"), "--first-screen", shot, "--search", "Integer#times",
                               "--method", "Integer#times", "--graph-search", "square")
    screen = result["firstScreen"]
    assert_first_screen(profile, screen, shot, profile.program.to_s)
    assert_equal "recorded with #{Tracegraph::FrameProbe.verdict(expected_probe_verdict)}", screen["recordedBy"],
                 "the header says which of the hook's paths recorded the profile"
    assert_nil screen["advice"], "a small program's graph needs no grouping"
    assert_nil screen["graph"]["fitNote"], "and reads at Fit"
    assert_nil screen["groupedLink"]
    assert_nil screen["noPaths"]
    paths = heaviest_paths(profile)
    assert_equal paths, screen["paths"].map { |p| [p["steps"], p["shares"].map { |share| share.split(" · ").first }] },
                 "the heaviest paths of the call tree, with their shares"
    assert_includes paths.first.first, "Object#main"
    assert_equal profile.methods.size, result["table"]["calls"]["count"]
    assert_equal "Integer#times", result["search"]["opened"]
    assert_equal edge_rows(profile, profile.edges.select { |e| e.callee.equal?(times) }, :caller), result["method"]["callers"]
    assert_equal edge_rows(profile, profile.edges.select { |e| e.caller.equal?(times) }, :callee), result["method"]["callees"]
    assert_equal [["Object#main", "1"], ["Object#find_many_square_roots", "3"], ["Object#find_many_squares", "3"]].sort,
                 result["method"]["callers"].sort
    # A method's page is titled by its name, and the next view by the report's again.
    assert_equal ["Integer#times · tracegraph: #{profile.program}", "tracegraph: #{profile.program}"],
                 result["method"].values_at("title", "titleAfter")
    assert_equal 4, result["graphSearch"]["hits"], "the two methods and their blocks"
  end

  def test_allocations_sort_the_table_when_recorded
    script = write_script("app.rb", "#{PROGRAM}\ndef strings = 50.times.map { |i| i.to_s }\n4.times { strings }\n")
    _, err, status = tracegraph("--allocations", "-o", "app.html", "-o", "app.json", script)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "app.json"))
    result = check_in_chromium(File.join(@dir, "app.html"), "--sorts", "self_allocations,allocations")
    %w[self_allocations allocations].each do |key|
      assert_equal(table_order(profile, key).first(5).map { |m| [m.name, group(m.calls)] }, result["table"][key]["first"],
                   "by #{key}")
    end
  end

  # A focus state's edges as {edge index => [caller index, callee index, label]}.
  def drawn_edges(state) = state["edges"].to_h { |i, from, to, label| [i, [from, to, label]] }

  # A focus state without its timings: what the user sees.
  def drawing(state) = state.except("drawnMs", "redrawMs")

  # What an edge's arrow says: calls, then time, then share of the whole.
  def assert_arrow(profile, edge, drawn, why)
    refute_nil drawn, "#{why}: #{edge.caller.name} → #{edge.callee.name} is drawn"
    assert_equal [profile.index_of(edge.caller), profile.index_of(edge.callee)], drawn[0, 2], why
    assert_match(/\A×#{Regexp.escape(group(edge.calls))} · \S+ \S+ · #{format('%.2f', 100.0 * edge.total_time / profile.total_time)}%\z/,
                 drawn[2], "#{why}: exact calls and the share on the arrow")
  end

  # Focus on a method the write-time graph left out: the page lays its
  # graph out with Graphviz in WebAssembly, every caller and callee with
  # our exact calls; ignoring one takes it out, hiding one too, and Back
  # and Undo bring each back.
  def test_focus_ignore_and_hide_any_method_in_chromium
    need_chromium
    profile = Tracegraph::Profile.load_json(REAL)
    path = File.join(@dir, "rubocop.html")
    File.write(path, self.class.real_html(profile))
    boxes = profile.to_dot.scan(/tooltip="([^"\\]*)/).flatten.to_h { |t| [t, true] }
    names = profile.methods.map(&:name).tally
    focus = profile.methods.select { |m| names[m.name] == 1 && !boxes.key?(m.name) }
                   .max_by { |m| [profile.edges.count { |e| e.callee.equal?(m) }.clamp(0, 8), m.total_time] }
    callers = profile.edges.select { |e| e.callee.equal?(focus) }
    callees = profile.edges.select { |e| e.caller.equal?(focus) }
    assert callers.size > 3 && callees.size > 1 && callers.size + callees.size < 39, focus.name
    ignored = callees.max_by(&:total_time).callee
    hidden = callers.max_by(&:total_time).caller

    result = check_in_chromium(path, "--focus", focus.name, "--ignore", Regexp.escape(ignored.name).gsub("\\ ", " "),
                               "--hide", hidden.name, "--focus-only")
    first = result["focus"]["first"]
    refute first["fallback"], first["legend"]
    # How fast is bench/html_report.rb's to say (focus_page_ms): a timed
    # limit here failed CI on a busy machine (1,173 ms against 1 s).
    assert_kind_of Integer, first["drawnMs"], "the page notes how long its drawing took"
    drawn = first["boxes"].to_h
    assert_equal focus.name, drawn[profile.index_of(focus)], "the focused method's box, named by its tooltip"
    edges = drawn_edges(first)
    (callers + callees).each { |e| assert_arrow(profile, e, edges[profile.edges.index(e)], "focused") }
    assert_equal first["boxes"].size, first["boxes"].uniq.size
    assert_operator first["boxes"].size, :<=, 40, "the default budget"
    assert_match(/Focused on 1 method · \d+ boxes drawn of the [\d,]+ methods on the call paths through it/, first["legend"])
    assert_match(/by methods, not paths, .* each box's numbers are the whole method's; [\d,]+ methods left out \(the heaviest: /,
                 first["legend"], "the rubocop profile has no call tree")

    after_ignore = result["focus"]["ignored"]
    refute_includes after_ignore["boxes"].map(&:first), profile.index_of(ignored), "an ignored method is gone"
    assert_includes after_ignore["hash"], "ignore="
    assert_match(/ignored: [\d,]+ methods? matching/, after_ignore["legend"])
    assert_equal drawing(first), drawing(result["focus"]["back"]), "Back undoes the ignore"

    assert_equal hidden.name, result["focus"]["selected"], "a click selects the box"
    refute_includes result["focus"]["hidden"]["boxes"].map(&:first), profile.index_of(hidden), "a hidden box is gone"
    assert_equal drawing(first), drawing(result["focus"]["undone"]), "Undo brings it back"
  end

  # Firefox (Debian's firefox-esr) opens the report from file:// and lays
  # a focused graph out with the same Graphviz. The focus,
  # find_many_squares, is drawn with the call paths through it, counted as
  # Profile#focus_paths counts them: its caller Integer#times (main's
  # loop, a hub) does not lead on to find_many_square_roots.
  def test_a_focused_graph_in_firefox
    demo = File.expand_path("../../../examples/demo.rb", __dir__)
    _, err, status = tracegraph("-o", "demo.html", "-o", "demo.json", demo)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "demo.json"))
    focus = method_named(profile, "Object#find_many_squares")
    result = check_in_firefox(File.join(@dir, "demo.html"), "--focus", focus.name, "--ignore", "square_roots",
                              "--search", "Integer#times", "--method", "Integer#times")
    first = result["focus"]["first"]
    refute first["fallback"], first["legend"]
    focused, = profile.focus_paths(/\A#{Regexp.escape(focus.name)}\z/)
    index = ->(m) { profile.methods.index { |p| [p.name, p.file, p.line] == [m.name, m.file, m.line] } }
    assert_equal focused.methods.map(&index).sort, first["boxes"].map(&:first).sort, "the paths through it, as --focus keeps"
    refute_includes first["boxes"].map(&:last), "Object#find_many_square_roots"
    drawn = first["edges"].to_h { |_, from, to, label| [[from, to], label] }
    focused.edges.select { |e| e.callee.name == focus.name || e.caller.name == focus.name }.each do |e|
      assert_match(/\A×#{Regexp.escape(group(e.calls))} · \S+ \S+ · #{format('%.2f', 100.0 * e.total_time / focused.total_time)}%\z/,
                   drawn[[index.(e.caller), index.(e.callee)]], "in Firefox: #{e.caller.name} → #{e.callee.name}, the paths' share")
    end
    assert(result["focus"]["ignored"]["boxes"].none? { |_, name| name.include?("square_roots") })
    assert_equal "graphviz", result["method"]["graphDrawn"]
    times = method_named(profile, "Integer#times")
    assert_equal edge_rows(profile, profile.edges.select { |e| e.callee.equal?(times) }, :caller), result["method"]["callers"]
  end

  # Where WebAssembly cannot run, the method page draws its graph itself
  # and says why, and the focus view says so too.
  def test_without_webassembly_the_method_page_falls_back_and_says_why
    _, err, status = tracegraph("-o", "demo.html", File.expand_path("../../../examples/demo.rb", __dir__))
    assert status.success?, err
    result = check_in_chromium(File.join(@dir, "demo.html"), "--no-wasm", "--method", "Integer#times",
                               "--focus", "Integer#times", expected_errors: /WebAssembly is not defined/)
    assert_equal "fallback", result["method"]["graphDrawn"]
    assert_match(/\AGraphviz \(WebAssembly\) did not start in this browser \(.+\), so this is the page's own/,
                 result["method"]["fallback"])
    assert_equal 7, result["method"]["egoBoxes"], "Integer#times, its 3 callers and 3 callees"
    assert result["focus"]["first"]["fallback"]
    assert_match(/did not start/, result["focus"]["first"]["legend"])
  end

  def test_hostile_names_show_as_text_in_chromium
    # (A program's name of 200 characters: the first screen wraps it.)
    profile = profile_of(HOSTILE, "evil#{'_long' * 40}")
    path = profile.write_html(File.join(@dir, "evil.html"))
    name = "Evil#</script><script>window.__pwned=1;alert(3)</script>"
    result = check_in_chromium(path, "--first-screen", "-", "--search", "<b>bold", "--method", name, "--graph-search", "onerror",
                               "--focus", name)
    screen = result["firstScreen"]
    assert_operator screen["scrollWidth"], :<=, screen["clientWidth"], "a long name wraps"
    assert_equal(table_order(profile, :self_time).select { |m| m.self_time.positive? }.first(10).map { |m| [m.name, group(m.calls)] },
                 screen["methods"], "the summary names them as text")
    assert_includes screen["title"], "evil_long_long"
    refute result["injected"]["pwned"]
    assert_equal 0, result["injected"]["images"], "no <img> from a name"
    assert_equal 1 + Tracegraph::Formats::Html::SCRIPTS.size, result["injected"]["scripts"], "no <script> from a name"
    assert_equal name, result["method"]["name"]
    assert_equal [["Evil#<img src=x onerror=\"window.__pwned=1;alert(2)\">", "5"]], result["method"]["callers"]
    assert_equal [["Evil#<script>alert(1)</script>", "5"]], result["method"]["callees"]
    assert_equal ["Evil#line\u2028sep & <b>bold</b>"], result["search"]["matches"]
    assert_equal "Evil#line\u2028sep & <b>bold</b>", result["search"]["opened"]
    assert_equal ["Evil#line\u2028sep & <b>bold</b>"], result["filter"]["names"]
    assert_equal 1, result["graphSearch"]["hits"], "the box of the <img onerror> method, found by its name"
    focused = result["focus"]["first"]["boxes"].map(&:last)
    assert_includes focused, name, "Graphviz's drawing names it as text"
    assert_includes focused, "Evil#<img src=x onerror=\"window.__pwned=1;alert(2)\">"
    assert_includes focused, "Evil#line\u2028sep & <b>bold</b>"
  end
end

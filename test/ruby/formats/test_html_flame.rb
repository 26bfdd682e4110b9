require_relative "../test_helper"
require_relative "../cli_helper"
require_relative "../browser_helper"
require "json"
require "tmpdir"
require "uri"

# The HTML report's flame graph (formats/html_flame.rb packs the call
# tree, html/flame.js draws it): the packed tree read back exactly, and in
# Chromium the view's hover numbers, zoom, search, thread and waiting
# choices and hostile names, against the profile's own call tree.
class TestHtmlFlame < TracegraphTest
  include CliHelper
  include BrowserHelper

  # Two threads: main computes (with recursion), "sleeper" waits in
  # Kernel#sleep and computes a little.
  PROGRAM = <<~RUBY
    def spin(n) = n.times { |i| i * i }
    def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
    def light = spin(10)
    def heavy = (light; spin(20_000); fib(12))
    def work = (light; heavy; light)
    def nap = (sleep(0.05); spin(100))
    sleeper = Thread.new { Thread.current.name = "sleeper"; nap }
    3.times { work }
    sleeper.join
  RUBY

  HOSTILE = <<~'RUBY'
    class Evil
      define_method("<script>alert(1)</script>") { |n| i = 0; i += 1 while i < n }
      define_method("</script><script>window.__pwned=1;alert(3)</script>") { send("<script>alert(1)</script>", 400_000) }
      define_method("<img src=x onerror=\"window.__pwned=1;alert(2)\">") { send("</script><script>window.__pwned=1;alert(3)</script>") }
    end
    evil = Evil.new
    evil.send("<img src=x onerror=\"window.__pwned=1;alert(2)\">")
    evil.send("<img src=x onerror=\"window.__pwned=1;alert(2)\">")
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-flame")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def profile_of(code, name = "app", *options)
    script = write_script("#{name}.rb", code)
    _, err, status = tracegraph(*options, "-o", "#{name}.json", script)
    assert status.success?, err
    Tracegraph::Profile.load_json(File.join(@dir, "#{name}.json"))
  end

  # The packed tree read back as flame.js reads it: per thread, its nodes
  # as [depth, method index, calls, total, self], depth first.
  def unpack(flame)
    numbers = flame["tree"].unpack1("m0").unpack("w*")
    previous = -1
    flame["threads"].map do |thread|
      nodes = []
      parents = []
      path = []
      thread["nodes"].times do
        pops, method, calls, self_time, z = numbers.shift(5)
        depth = previous + 1 - pops
        node = [depth, method, calls, self_time + (z.odd? ? -(z + 1) / 2 : z / 2), self_time]
        parents << (depth.positive? ? path[depth - 1] : nil)
        path[depth] = node
        nodes << node
        previous = depth
      end
      # Each node's total has its children's added, bottom up.
      nodes.zip(parents).reverse_each { |node, parent| parent[3] += node[3] if parent }
      nodes
    end
  end

  # The call tree's nodes depth first, children biggest total first, as
  # [depth, method index, calls, total, self], per thread.
  def expected(profile)
    nodes = profile.call_tree.nodes
    children = nodes.group_by(&:parent)
    profile.threads.map do |thread|
      rows = []
      walk = lambda do |node, depth|
        rows << [depth, profile.index_of(node.method), node.calls, node.total_time, node.self_time]
        (children[node] || []).each_with_index.sort_by { |n, i| [-n.total_time, i] }.each { |n, _| walk.(n, depth + 1) }
      end
      (children[nil] || []).select { |n| n.thread.id == thread.id }.each_with_index
                           .sort_by { |n, i| [-n.total_time, i] }.each { |n, _| walk.(n, 0) }
      rows
    end
  end

  def test_the_packed_tree_reads_back_exactly
    profile = profile_of(PROGRAM, "app", "--call-tree")
    flame = Tracegraph::Formats::HtmlFlame.data(profile)
    assert_equal(profile.threads.map { |t| [t.id, t.name] }, flame["threads"].map { |t| [t["id"], t["name"]] })
    assert_equal profile.call_tree.size, flame["nodes"]
    assert_equal expected(profile), unpack(flame).map { |rows| rows.map { |r| r.first(5) } }
    sleep_index = profile.index_of(method_named(profile, "Kernel#sleep"))
    assert_includes flame["waiting"], sleep_index
    assert_includes flame["waiting"], profile.index_of(method_named(profile, "Thread#join"))
    assert_equal 0, flame["folded_calls"]
  end

  def test_a_view_packs_its_own_tree
    profile = profile_of(PROGRAM, "app", "--call-tree")
    sleeper = profile.threads.find { |t| t.name == "sleeper" }
    view = profile.view(threads: sleeper.id, idle: :hide)
    flame = Tracegraph::Formats::HtmlFlame.data(view)
    assert_equal [[sleeper.id, "sleeper", view.call_tree.size]], flame["threads"].map { |t| t.values_at("id", "name", "nodes") }
    assert_equal expected(view).reject(&:empty?), unpack(flame)
    refute_includes unpack(flame).flatten(1).map { |r| view.methods[r[1]]&.name }, "Kernel#sleep"
  end

  def test_without_a_call_tree_there_is_no_flame_data
    profile = profile_of(PROGRAM)
    assert_nil Tracegraph::Formats::HtmlFlame.data(profile)
    assert_nil JSON.parse(profile.to_html(graph: false)[%r{id="profile-data">(.*?)</script>}m, 1])["flame"]
  end

  # --- in a real browser ---

  # The node of tree (a profile, or a view of it) at a hover's path: the
  # report's method indexes (profile's) from the thread up; the first,
  # when every thread is drawn, is -2 - the thread's index.
  def node_at(profile, path, tree = profile, thread = nil)
    path = path.split(".").map(&:to_i)
    thread ||= profile.threads[-2 - path.shift]
    nodes = tree.call_tree.nodes
    path.each_with_index.reduce(nil) do |parent, (m, depth)|
      nodes.find do |n|
        n.parent.equal?(parent) && n.method.name == profile.methods[m].name && (depth.positive? || n.thread.id == thread.id)
      end || flunk("no node at #{path.first(depth + 1).inspect}")
    end
  end

  def group(n) = n.to_s.reverse.scan(/\d{1,3}/).join(",").reverse

  def test_hover_zoom_and_search_in_chromium
    profile = profile_of(PROGRAM, "app", "--call-tree")
    path = profile.write_html(File.join(@dir, "app.html"), graph: false)
    # The third row: under every thread and each thread, a method.
    # Waiting shown: the report opens with it hidden (below), idle=show shows it.
    flame = check_in_chromium(path, "--flame", "idle=show", "--flame-row", "2", "--flame-only")["flame"]
    shown = flame["shown"]
    assert_equal "#flame?idle=show", shown["hash"]
    assert_equal ["all 2 threads", "main (", "sleeper ("], shown["threads"].map { |t| t.sub(/\(.*/, "(") }
    assert_match(/\AShowing all 2 threads\. The thread and waiting chosen here apply to the table, the method pages and the focus graph too/, shown["notes"])
    assert_operator shown["frames"], :>, 3
    top = profile.methods.each_with_index.sort_by { |m, i| [-m.self_time, i] }.first(10).map(&:first)
    assert_equal(top.map { |m| [m.name, group(m.calls), "#{group(m.self_time)} ns", "#{group(m.total_time)} ns"] },
                 shown["methods"], "every thread: the profile's own numbers, rebuilt from the tree")

    hover = flame["hover"]
    node = node_at(profile, hover["path"])
    assert_equal node.method.name, hover["name"]
    assert_equal [group(node.calls), "#{group(node.total_time)} ns", "#{group(node.self_time)} ns"],
                 hover.values_at("calls", "total", "self"), "the frame's exact numbers"

    zoomed = flame["zoomedIn"]
    assert_equal({"thread" => "all", "idle" => "show", "zoom" => hover["path"]},
                 URI.decode_www_form(zoomed["hash"].sub("#flame?", "")).to_h)
    assert_equal hover["name"], zoomed["frameLink"], "the zoomed frame links to its method's page"
    assert_operator zoomed["frames"], :<=, shown["frames"]
    assert_equal({"thread" => "all", "idle" => "show", "zoom" => hover["path"].split(".")[0...-1].join(".")}.reject { |_, v| v.empty? },
                 URI.decode_www_form(flame["zoomedOut"]["hash"].sub("#flame?", "")).to_h, "clicked again: out one level")

    search = flame["search"]
    matching = profile.call_tree.nodes.select { |n| n.method.name == hover["name"] }
    outermost = matching.reject { |n| n.stack[0...-1].any? { |m| m.name == hover["name"] } }
    assert_equal matching.size, search["frames"]
    assert_in_delta outermost.sum(&:total_time).fdiv(profile.total_time), search["share"], 1e-12
    assert_equal [224, 69, 123], search["pixel"], "the hovered frame is drawn in the highlight colour"
  end

  # The summary's first line: the run's wall time, and apart from it the
  # threads' time, which follows the waiting chosen (hidden when the
  # report opens); a report written from a view that hid the waiting
  # (tracegraph --idle hide -o x.html) says so instead of "waiting shown".
  def test_the_summary_gives_wall_time_and_the_threads_time_as_chosen_in_chromium
    profile = profile_of(PROGRAM, "app", "--call-tree")
    hidden = profile.view(idle: :hide)
    program = profile.program.to_s
    start = "#{program}: #{Tracegraph.human_time(profile.wall_time)} of wall time. 2 threads (main, sleeper): "
    calls = "; #{group(profile.total_calls)} calls of #{group(profile.methods.size)} methods."
    waited = Tracegraph.human_time(profile.waiting_time)
    # main's join waits about as long as the sleeper's sleep: most time first.
    names = %w[Kernel#sleep Thread#join].sort_by { |name| -profile[name].self_time }.join(", ")
    assert_equal "in 2 threads, #{names}", hidden.waiting_where
    path = profile.write_html(File.join(@dir, "app.html"), graph: false)
    opened = check_in_chromium(path, "--first-screen", "-")["firstScreen"]["what"]
    assert_equal "#{start}#{Tracegraph.human_time(hidden.total_time)} of wall clock time working, waiting hidden " \
                 "(#{Tracegraph.human_time(hidden.hidden_waiting)} in 2 threads, #{names})#{calls}", opened
    shown = check_in_chromium(path, "--open", "#summary?idle=show", "--first-screen", "-")["firstScreen"]["what"]
    assert_equal "#{start}#{Tracegraph.human_time(profile.total_time)} of wall clock time, waiting shown " \
                 "(#{waited} of it in 2 threads, #{names})#{calls}", shown

    path = hidden.write_html(File.join(@dir, "hidden.html"), graph: false)
    recorded = check_in_chromium(path, "--first-screen", "-")["firstScreen"]["what"]
    assert_equal "#{start}#{Tracegraph.human_time(hidden.total_time)} of wall clock time working, waiting left out when " \
                 "recorded (--idle hide: #{Tracegraph.human_time(hidden.hidden_waiting)} in 2 threads, #{names}); " \
                 "#{group(hidden.total_calls)} calls of #{group(hidden.methods.size)} methods.", recorded
  end

  def test_one_thread_without_waiting_in_chromium
    profile = profile_of(PROGRAM, "app", "--call-tree")
    sleeper = profile.threads.find { |t| t.name == "sleeper" }
    path = profile.write_html(File.join(@dir, "app.html"), graph: false)
    result = check_in_chromium(path, "--open", "#summary?thread=#{sleeper.id}&idle=hide", "--first-screen", "-",
                               "--flame", "thread=#{sleeper.id}&idle=hide", "--flame-only")
    flame = result["flame"]
    assert_match(/\AShowing the thread sleeper, waiting hidden\./, flame["shown"]["notes"])
    view = profile.view(threads: sleeper.id, idle: :hide)
    # The summary counts the same choice: its methods and its paths are the view's.
    screen = result["firstScreen"]
    assert_equal(view.methods.each_with_index.sort_by { |m, i| [-m.self_time, i] }.map(&:first).select { |m| m.self_time.positive? }
                     .first(10).map { |m| [m.name, group(m.calls)] }, screen["methods"])
    assert_equal heaviest_paths(view), screen["paths"].map { |p| [p["steps"], p["shares"].map { |share| share.split(" · ").first }] }
    refute_includes screen["paths"].flat_map { |p| p["steps"] }, "Kernel#sleep", "waiting hidden"
    hover = flame["hover"]
    node = node_at(profile, hover["path"], view, sleeper)
    assert_equal [node.method.name, group(node.calls), "#{group(node.total_time)} ns", "#{group(node.self_time)} ns"],
                 hover.values_at("name", "calls", "total", "self"), "the numbers of tracegraph's own view (--idle hide)"
    # The methods under it: tracegraph's own view's, by self time.
    top = view.methods.each_with_index.sort_by { |m, i| [-m.self_time, i] }.first(10).map(&:first)
    assert_equal(top.map { |m| [m.name, group(m.calls), "#{group(m.self_time)} ns", "#{group(m.total_time)} ns"] },
                 flame["shown"]["methods"])
    assert_equal "block in <main>", hover["name"], "the thread's block, which naps"
    assert_operator node.total_time, :<, node_at(profile, hover["path"], profile, sleeper).total_time - 40_000_000,
                    "its 50 ms in Kernel#sleep are not in its total"
  end

  # The page-wide choice (thread=ID&idle=hide in any view's fragment):
  # the table and a method's page count what Profile#view counts. A
  # report with a call tree and waiting opens with it hidden: the
  # fragment gives only the thread, and idle=show shows the waiting.
  def test_the_thread_and_waiting_chosen_count_the_table_and_method_pages_in_chromium
    profile = profile_of(PROGRAM, "app", "--call-tree")
    main = profile.threads.find { |t| t.name == "main" }
    path = profile.write_html(File.join(@dir, "app.html"))
    choice = check_in_chromium(path, "--choice", "thread=#{main.id}", "--choice-method", "Object#spin")["choice"]
    view = profile.view(threads: [main.id], idle: :hide)
    row = ->(m) { [m.name, group(m.calls), "#{group(m.self_time)} ns", "#{group(m.total_time)} ns"] }
    assert_equal view.methods.map(&row).sort, choice["table"]["rows"].sort, "the table: --thread main --idle hide's numbers"
    refute_includes choice["table"]["rows"].map(&:first), "Object#nap", "the sleeper's methods are left out"
    refute_includes choice["table"]["rows"].map(&:first), "Thread#join", "waiting is left out"
    assert_equal "#{view.methods.size} of #{view.methods.size} methods of the thread main, waiting hidden, by self",
                 choice["table"]["count"]
    assert_match(/\AShowing the thread main, waiting hidden: counted from the call tree/, choice["table"]["note"])
    assert_equal [main.id.to_s, "hide"], choice["selects"]

    spin = view.methods.find { |m| m.name == "Object#spin" }
    edge = ->(e, other) { [other.name, group(e.calls), "#{group(e.total_time)} ns", "#{group(e.self_time)} ns"] }
    method = choice["method"]
    assert_equal ["Object#spin", group(spin.calls)], method.values_at("name", "calls")
    assert_equal view.edges.select { |e| e.callee.equal?(spin) }.map { |e| edge.(e, e.caller) }.sort, method["callers"].sort
    assert_equal %w[Object#heavy Object#light], method["callers"].map(&:first).sort, "not the sleeper's Object#nap"
    assert_equal view.edges.select { |e| e.caller.equal?(spin) }.map { |e| edge.(e, e.callee) }.sort, method["callees"].sort
    assert_match(/&thread=#{main.id}\z/, method["link"], "a caller's link keeps the choice (waiting hidden is the default)")

    assert_match(/\AThe graph shows the report as written \(all 2 threads, waiting shown\); the thread and waiting chosen/,
                 choice["graphNote"])
    assert_equal "#graph?thread=#{main.id}&idle=show", choice["changed"], "the header's waiting shown again"
  end

  def test_without_a_call_tree_no_thread_can_be_chosen_and_the_page_says_why
    profile = profile_of(PROGRAM)
    path = profile.write_html(File.join(@dir, "app.html"), graph: false)
    choice = check_in_chromium(path, "--choice", "thread=1&idle=hide", "--choice-method", "Object#spin")["choice"]
    assert_equal "All 2 threads, waiting shown, as written: this report has no call tree, which choosing a thread or " \
                 "hiding waiting is counted from.", choice["why"]
  end

  # A saved profile without a tree could come from the command line, the
  # API, Tracegraph::Rack or the Railtie: the notice gives no command,
  # which would be wrong for all but one. A median of --runs says why.
  def test_without_a_call_tree_the_view_says_so_and_why_where_the_profile_knows
    profile = profile_of(PROGRAM)
    path = profile.write_html(File.join(@dir, "app.html"), graph: false)
    flame = check_in_chromium(path, "--flame", "-", "--flame-only")["flame"]
    assert_equal "No flame graph: this profile has no call tree, which keeps each call path apart; the graph, the " \
                 "table and every method's page work without it.", flame["shown"]["noFlame"]

    median = Tracegraph::Profile.median([profile, profile])
    path = median.write_html(File.join(@dir, "runs.html"), graph: false)
    flame = check_in_chromium(path, "--flame", "-", "--flame-only")["flame"]
    assert_equal "No flame graph: this profile has no call tree (it is the median of several runs, --runs), which " \
                 "keeps each call path apart; the graph, the table and every method's page work without it.",
                 flame["shown"]["noFlame"]

    # The API's profile knows where it came from: the keyword that brings the views.
    api = Tracegraph.profile { 3.times { [3, 1, 2].sort } }
    path = api.write_html(File.join(@dir, "api.html"), graph: false)
    result = check_in_chromium(path, "--flame", "-", "--flame-only", "--first-screen", "-")
    hint = "record it with call_tree: true, as in Tracegraph.profile(call_tree: true) { ... }"
    assert_equal "No flame graph: this profile has no call tree (#{hint}), which keeps each call path apart; the " \
                 "graph, the table and every method's page work without it.", result["flame"]["shown"]["noFlame"]
    assert_equal "This report has no call tree, so no paths: the heaviest methods above and the graph are what it " \
                 "has (#{hint}).", result["firstScreen"]["noPaths"]
    assert_nil Tracegraph.profile(call_tree: true) { [1].sort }.call_tree_hint
  end

  def test_hostile_names_are_text_in_chromium
    profile = profile_of(HOSTILE, "evil", "--call-tree")
    path = profile.write_html(File.join(@dir, "evil.html"), graph: false)
    result = check_in_chromium(path, "--flame", "-")
    flame = result["flame"]
    # The second row: the method the loop calls.
    assert_equal "Evil#<img src=x onerror=\"window.__pwned=1;alert(2)\">", flame["hover"]["name"]
    assert_equal "Evil#<img src=x onerror=\"window.__pwned=1;alert(2)\">", flame["zoomedIn"]["frameLink"]
    assert_equal 1, flame["search"]["frames"]
    refute result["injected"]["pwned"]
    assert_equal 0, result["injected"]["images"]
    assert_equal 1 + Tracegraph::Formats::Html::SCRIPTS.size, result["injected"]["scripts"]
  end
end

require_relative "../test_helper"
require_relative "../cli_helper"

class TestDiffCli < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-diff-cli")
    # Range#each: C on every Ruby (Integer#times is Ruby code from 3.3,
    # which would add its own Integer#< and #succ calls).
    @base = write_profile("base.json", "def hot = (1..100).each { 1.pred }\ndef gone = 1\nhot; gone\n")
    @head = write_profile("head.json", "def hot = (1..3000).each { 1.pred }\ndef fresh = 2\nhot; fresh\n")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # --no-gc: whether a collection runs in one process and not the other
  # is not what these exact call-count gates are about.
  def write_profile(name, code)
    _, err, status = tracegraph("--no-gc", "-o", name, "-e", code)
    assert status.success?, err
    File.join(@dir, name)
  end

  # Profiles of --runs whose runs spread wider than the limit: the gate
  # cannot tell, says so, and exits with its own status, 4.
  def test_a_gate_that_cannot_tell_exits_with_4
    write_runs_profile("wide-base.json", [100, 90, 110, 95, 105])
    write_runs_profile("wide-head.json", [104, 94, 114, 99, 109])
    _, err, status = tracegraph("diff", "--fail-on-time", "3", "--fail-on-calls", "0", "wide-base.json", "wide-head.json")
    assert_equal 4, status.exitstatus, err
    assert_match(/^tracegraph diff: cpu time of Object#work against the rest of the run .*: 92\.5 ms \/ 101 ms -> 96\.5 ms \/ 101 ms, \+4\.3% ± (\d+\.\d)% \(the noise between runs\): cannot tell: the noise between runs \(± \1%\) is wider than the allowed \+3%/,
                 err)
    assert_match(/^tracegraph diff: \d+ method checks, 0 failed, 1 could not tell \(5 and 5 runs\)$/, err)
    # A slowdown the wide noise cannot hide fails: status 3, as before.
    write_runs_profile("slow-head.json", [200, 180, 220, 190, 210])
    _, err, status = tracegraph("diff", "--fail-on-time", "3", "--fail-on-time", "Object#other=1", "wide-base.json",
                                "slow-head.json")
    assert_equal 3, status.exitstatus, err
    assert_match(/^tracegraph diff: 2 method checks, 1 failed \(5 and 5 runs\)$/, err)
  end

  def test_graph_and_text
    out, err, status = tracegraph("diff", "--text", "--node-fraction", "0", "-o", "diff.svg", "-o", "diff.dot",
                                  @base, @head)
    assert status.success?, err
    assert_match(/Regressions \(self time grew\)/, out)
    assert_match(/Object#fresh/, out)
    dot = File.read(File.join(@dir, "diff.dot"))
    assert_includes dot, "Object#gone", "methods only in base stay visible as ghosts"
    assert File.size?(File.join(@dir, "diff.svg"))
    FileUtils.rm_f(File.join(@dir, "diff.dot"))
    text, = tracegraph("diff", "--text", @base, @head)
    out, err, status = tracegraph("diff", @base, @head)
    assert status.success?, err
    assert_equal text, out, "without -o: the text, on standard output"
    refute File.exist?(File.join(@dir, "diff.dot")), "and no file where it ran"
  end

  # A build archived before JSON version 2 still compares with a new one.
  def test_a_version_1_file_against_a_version_2_file
    data = JSON.parse(File.read(@base))
    assert_equal 2, data["version"]
    data["version"] = 1
    data.delete("wall_time")
    data["methods"].each { |m| m.delete("waiting") }
    old = File.join(@dir, "old.json")
    File.write(old, JSON.generate(data))
    assert_nil Tracegraph::Profile.load_json(old).wall_time

    out, err, status = tracegraph("diff", "--text", "-o", "cross.dot", old, @head)
    assert status.success?, err
    assert_match(/Object#fresh/, out)
    _, err, status = tracegraph("diff", "--text", @head, old)
    assert status.success?, err
  end

  def test_fail_above_gates_on_total_time
    faster = write_faster_copy(@head, File.join(@dir, "faster.json"), 10)
    _, err, status = tracegraph("diff", "--fail-above", "50", faster, @head)
    assert_equal 3, status.exitstatus, err
    assert_match(/total wall time .* -> .*, \+\d+\.\d% \(noise not measured\): more than the allowed \+50%: FAILED/, err)
    _, err, status = tracegraph("diff", "--fail-above", "50", @head, @head)
    assert status.success?, err
    assert_match(/within the allowed/, err)
  end

  def test_fail_on_calls_with_per_method_limits_and_ignores
    # hot calls Range#each once in both; Integer#pred 100 -> 3000 times;
    # gone and fresh come and go.
    out, err, status = tracegraph("diff", "--text", "--fail-on-calls", "0", @base, @head)
    assert_equal 3, status.exitstatus, out + err
    assert_match(/calls of Integer#pred 100 -> 3,000, \+2900\.0%: more than the allowed ±0%: FAILED/, err)
    assert_match(/calls of Object#fresh 0 -> 1, new: more than the allowed ±0%: FAILED/, err)
    assert_match(/calls of Object#gone 1 -> 0, -100\.0%: more than the allowed ±0%: FAILED/, err)
    refute_match(/Range#each/, err, "unchanged counts pass")

    # (the block that calls Integer#pred runs as often: ignored with the methods)
    _, err, status = tracegraph("diff", "--fail-on-calls", "0", "--fail-on-calls", "Integer#pred=3000",
                                "--exempt", "Object#*", "--exempt", "block in Object#*", @base, @head)
    assert status.success?, err
    assert_match(/method checks, 0 failed \(one run each/, err)
  end

  def test_fail_on_time_compares_profiles_of_one_clock
    cpu = File.join(@dir, "cpu.json")
    _, err, status = tracegraph("--clock", "cpu", "-o", cpu, "-e", "1")
    assert status.success?, err
    _, err, status = tracegraph("diff", "--fail-on-time", "10", "-o", "d.dot", @base, cpu)
    assert_equal 2, status.exitstatus, err
    assert_match(/base was recorded with the wall clock and head with cpu: their times cannot be compared/, err)
    refute File.exist?(File.join(@dir, "d.dot")), "refused before anything is written"
    _, err, status = tracegraph("diff", "--fail-on-calls", "0", "-o", "d.dot", @base, cpu)
    assert_equal 3, status.exitstatus, "calls compare across clocks: #{err}"
  end

  # --focus is the graph's: the block, its caller and callee, and the path
  # to the root; --exempt is the gates' and leaves the graph whole.
  def test_focus_draws_the_matches_and_ignore_is_for_the_gates
    boxes = ->(name) { File.read(File.join(@dir, name)).scan(/^  N\d+ \[label="(.*?)\\n/).flatten }
    _, err, status = tracegraph("diff", "--focus", "block in", "-o", "f.dot", @base, @head)
    assert status.success?, err
    assert_equal ["Object#hot", "Range#each", "block in Object#hot", "Integer#pred"], boxes.("f.dot")
    assert_includes File.read(File.join(@dir, "f.dot")), "\\lFocus: 1 match, shown; 3 unrelated methods hidden\\l"

    _, err, status = tracegraph("diff", "--exempt", "Integer#pred", "--node-fraction", "0", "-o", "i.dot", @base, @head)
    assert status.success?, err
    assert_includes boxes.("i.dot"), "Integer#pred"

    # --ignore, --exempt's older name, keeps its meaning and says it once.
    _, err, status = tracegraph("diff", "--fail-on-calls", "0", "--ignore", "Integer#pred", "--ignore", "*Object#*",
                                "-o", "o.dot", @base, @head)
    assert_equal 1, err.scan("--ignore is now --exempt").size, err
    assert_match(/: \d+ method checks?, 0 failed/, err)
    assert status.success?, err

    _, err, status = tracegraph("diff", "--focus", "(", @base, @head)
    assert_equal 2, status.exitstatus
    assert_match(/^tracegraph diff: focus: invalid regular expression "\("/, err)
  end

  # --hide is the graph's ignore (render's --ignore REGEX): the matches are
  # gone from the drawing, their paths dotted, and the gates check them as
  # before; --ignore still leaves methods out of the gates only.
  def test_hide_is_the_graphs_and_leaves_the_gates_alone
    # (in order of name: fresh and gone, a few ns each, swap places by their times)
    boxes = ->(name) { File.read(File.join(@dir, name)).scan(/^  N\d+ \[label="(.*?)\\n/).flatten.sort }
    gate = ["--fail-on-calls", "0", "--node-fraction", "0"]
    _, whole_err, status = tracegraph("diff", *gate, "-o", "whole.dot", @base, @head)
    assert_equal 3, status.exitstatus, whole_err
    _, err, status = tracegraph("diff", *gate, "--hide", "Integer#pred", "-o", "hidden.dot", @base, @head)
    assert_equal 3, status.exitstatus, err
    assert_equal ["Integer#pred", "Module#method_added", "Object#fresh", "Object#gone", "Object#hot", "Range#each",
                  "block in Object#hot"], boxes.("whole.dot")
    assert_equal ["Module#method_added", "Object#fresh", "Object#gone", "Object#hot", "Range#each",
                  "block in Object#hot"], boxes.("hidden.dot")
    assert_includes File.read(File.join(@dir, "hidden.dot")), "\\lIgnored 1 method\\l"
    assert_match(/calls of Integer#pred 100 -> 3,000, \+2900\.0%: more than the allowed ±0%: FAILED/, err)
    assert_equal whole_err.sub("whole.dot", "hidden.dot"), err, "the gate reports the same"

    # Each its own: the gates leave Integer#pred out and the graph draws it;
    # the graph hides Range#each (a path through it, dotted) and the gates check it.
    _, err, status = tracegraph("diff", *gate, "--exempt", "Integer#*", "--hide", "Range", "-o", "both.dot",
                                @base, @head)
    assert_equal 3, status.exitstatus, err
    refute_match(/Integer#pred/, err)
    assert_match(/ 6 method checks, 3 failed /, err)
    assert_equal ["Integer#pred", "Module#method_added", "Object#fresh", "Object#gone", "Object#hot",
                  "block in Object#hot"], boxes.("both.dot")
    assert_match(/^  N1 -> N2 \[label=" via 1 frame "[^\n]*style=dotted/, File.read(File.join(@dir, "both.dot")))

    _, err, status = tracegraph("diff", "--hide", "(", @base, @head)
    assert_equal 2, status.exitstatus
    assert_match(/^tracegraph diff: --hide: invalid regular expression "\("/, err)
  end

  def test_normalize
    _, err, status = tracegraph("diff", "--normalize", "-o", "n.dot", @base, @head)
    assert status.success?, err
    assert_match(/normaliz/i, File.read(File.join(@dir, "n.dot")))
  end

  # The HTML diff report (comparison/diff_html.rb; its page is tested in
  # Chromium by test/ruby/comparison/test_diff_html.rb): one file by name
  # or --format, with the gate's verdict, the grouping and the graph's
  # thresholds the command was given.
  def test_the_html_report
    embedded = ->(html) { JSON.parse(html[%r{<script type="application/json" id="profile-data">(.*?)</script>}m, 1]) }
    _, err, status = tracegraph("diff", "--fail-on-calls", "0", "-o", "d.html", "-o", "d.dot", @base, @head)
    assert_equal 3, status.exitstatus, "the gate still decides the status: #{err}"
    assert_match(/tracegraph diff: wrote d\.html\n/, err)
    data = embedded.(File.read(File.join(@dir, "d.html")))
    diff = Tracegraph::Profile.load_json(@base).diff(Tracegraph::Profile.load_json(@head))
    assert_equal diff.rows.map { |r| [r.name, r.status.to_s, r.base_calls, r.head_calls, r.base_self, r.head_self] },
                 data["rows"].map { |r| r.values_at(0, 4, 5, 6, 7, 8) }
    assert_equal true, data["gate"]["failed"]
    assert_equal ["Integer#pred", "Object#fresh", "Object#gone", "block in Object#hot"], data["gate"]["failed_names"].sort
    assert_equal "calls of Integer#pred 100 -> 3,000, +2900.0%: more than the allowed ±0%: FAILED",
                 data["gate"]["lines"].find { |line| line.start_with?("calls of Integer#pred") }
    if system("command -v dot > /dev/null 2>&1")
      assert_equal File.read(File.join(@dir, "d.dot")).scan(/^  N\d+ \[/).size + 2, # and the legend's two
                   data["svg"].scan('class="node"').size, "the graph -o d.dot draws, laid out"
    end

    # By class: Object (hot's C methods are its) and the C methods no Ruby
    # method called (Module#method_added, as the top level defines methods).
    out, err, status = tracegraph("diff", "--group-by", "class", "--max-nodes", "1", "--format", "html", "-o", "-",
                                  @base, @head)
    assert status.success?, err
    data = embedded.(out)
    assert_nil data["gate"], "no gate ran"
    assert_equal "class", data["group_by"]
    assert_includes data["rows"].map(&:first), "Object"
    refute_includes data["rows"].map(&:first), "Object#hot"
    if data["svg"]
      assert_match(/Showing 1 of 2 methods/, data["svg"], "--max-nodes 1 (of the two classes)")
      assert_equal 3, data["svg"].scan('class="node"').size, "one box and the legend's two"
    end

    _, err, status = tracegraph("diff", "-o", "plain.html", @base, @head, env: {"PATH" => path_without_dot})
    assert status.success?, err
    data = embedded.(File.read(File.join(@dir, "plain.html")))
    assert_nil data["svg"]
    assert_match(/Graphviz's `dot` was not installed/, data["graph_note"])
  end

  def test_errors
    {
      [@base] => /needs two profiles/,
      [@base, "missing.json"] => /cannot read profile missing.json: No such file or directory/,
      ["--bogus", @base, @head] => /invalid option: --bogus/,
      ["-o", "d.txt", @base, @head] => /cannot write d.txt: a diff is a graph or an HTML report: .dot .html .pdf .svg .png/,
      [@base, File.join(CliHelper::ROOT, "README.md")] => /not valid JSON/,
      ["--fail-on-calls", "x", @base, @head] => /--fail-on-calls needs PCT or NAME=PCT, not x/,
      ["--fail-on-time", "Foo#bar=-1", @base, @head] => /--fail-on-time needs a percentage of 0 or more, not -1.0/,
      ["--fail-above", "-5", @base, @head] => /--fail-above needs a percentage of 0 or more/
    }.each do |args, message|
      _, err, status = tracegraph("diff", *args)
      assert_equal 2, status.exitstatus, "#{args.inspect}: #{err}"
      assert_match message, err
    end
  end
end

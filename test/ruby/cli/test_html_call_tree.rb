require_relative "../test_helper"
require_relative "../cli_helper"
require "json"
require "tmpdir"

# `-o report.html` records the call tree, so the report has its flame
# graph; with --runs, which keeps medians and no call tree, the report is
# still written, its flame view saying how to get one.
class TestHtmlCallTree < TracegraphTest
  include CliHelper

  PROGRAM = "def leaf = 1\ndef work = 3.times { leaf }\nwork\n".freeze

  def setup
    @dir = Dir.mktmpdir("tracegraph-html-call-tree")
    write_script("app.rb", PROGRAM)
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def report_data(name)
    JSON.parse(File.read(File.join(@dir, name))[%r{id="profile-data">(.*?)</script>}m, 1])
  end

  def test_an_html_output_records_the_call_tree_for_the_flame_graph
    _, err, status = tracegraph("-o", "p.html", "-o", "p.json", "app.rb")
    assert status.success?, err
    assert Tracegraph::Profile.load_json(File.join(@dir, "p.json")).call_tree, "the JSON beside it has the tree"
    flame = report_data("p.html")["flame"]
    refute_nil flame, "the report has its flame graph"
    assert_operator flame["nodes"], :>=, 3 # <main>, work, leaf at least
  end

  def test_the_autorun_environment_does_the_same
    _, err, status = ruby("-rtracegraph/autorun", "app.rb", env: {"TRACEGRAPH_OUTPUT" => File.join(@dir, "a.html")})
    assert status.success?, err
    refute_nil report_data("a.html")["flame"]
  end

  def test_runs_write_the_report_without_a_call_tree
    _, err, status = tracegraph("--runs", "2", "-o", "r.html", "app.rb")
    assert status.success?, err
    assert_nil report_data("r.html")["flame"]
    assert_equal 3, report_data("r.html")["methods"].find { |m| m[0] == "Object#leaf" }[3]
  end

  def test_other_outputs_record_no_call_tree
    _, err, status = tracegraph("-o", "p.json", "app.rb")
    assert status.success?, err
    assert_nil Tracegraph::Profile.load_json(File.join(@dir, "p.json")).call_tree
  end
end

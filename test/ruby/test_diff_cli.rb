require_relative "test_helper"
require_relative "cli_helper"

class TestDiffCli < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-diff-cli")
    @base = write_profile("base.json", "def hot = 100.times { 1 + 1 }\ndef gone = 1\nhot; gone\n")
    @head = write_profile("head.json", "def hot = 3000.times { 1 + 1 }\ndef fresh = 2\nhot; fresh\n")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def write_profile(name, code)
    _, err, status = tracegraph("-o", name, "-e", code)
    assert status.success?, err
    File.join(@dir, name)
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
    out, err, status = tracegraph("diff", @base, @head)
    assert status.success?, err
    assert_empty out
    assert File.exist?(File.join(@dir, "diff.dot")), "diff.dot is the default output"
  end

  def test_fail_above_gates_on_total_time
    faster = write_faster_copy(@head, File.join(@dir, "faster.json"), 10)
    _, err, status = tracegraph("diff", "--fail-above", "50", faster, @head)
    assert_equal 3, status.exitstatus, err
    assert_match(/total wall time .* -> .*, \+\d+\.\d%: more than the allowed \+50%: FAILED/, err)
    _, err, status = tracegraph("diff", "--fail-above", "50", @head, @head)
    assert status.success?, err
    assert_match(/within the allowed/, err)
  end

  def test_normalize
    _, err, status = tracegraph("diff", "--normalize", "-o", "n.dot", @base, @head)
    assert status.success?, err
    assert_match(/normaliz/i, File.read(File.join(@dir, "n.dot")))
  end

  def test_errors
    {
      [@base] => /needs two profiles/,
      [@base, "missing.json"] => /cannot read profile missing.json: No such file or directory/,
      ["--bogus", @base, @head] => /invalid option: --bogus/,
      ["-o", "d.txt", @base, @head] => /a graph is .dot .pdf .svg .png/,
      [@base, File.join(CliHelper::ROOT, "README.md")] => /not valid JSON/
    }.each do |args, message|
      _, err, status = tracegraph("diff", *args)
      assert_equal 2, status.exitstatus, "#{args.inspect}: #{err}"
      assert_match message, err
    end
  end
end

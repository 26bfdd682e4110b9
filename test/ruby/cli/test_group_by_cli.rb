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

  def test_diff_compares_groups
    _, err, status = tracegraph("-o", "a.json", "-e", PROGRAM)
    assert status.success?, err
    a = Tracegraph::Profile.load_json(path("a.json"))
    out, err, status = tracegraph("diff", "a.json", "a.json", "--group-by", "class", "--text", "--limit", "50")
    assert status.success?, err
    shop = a.group_by(:class)["Shop"]
    assert_equal 2001, shop.calls # hot, and the block 2,000 times from Range#each
    refute_includes out, "Shop#hot"
    _, err, status = tracegraph("diff", "a.json", "a.json", "--group-by", "gem", "-o", "d.dot")
    assert status.success?, err
    assert_includes File.read(path("d.dot")), "app"
  end
end

require_relative "../test_helper"
require_relative "../cli_helper"

# `tracegraph merge`: profiles of several processes (CI shards, workers)
# added up into one, exactly, and written like any profile.
class TestMergeCli < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-merge-cli")
    # Shard n runs its test n times: 1 + 2 + 3 calls in all.
    @shards = (1..3).map { |n| record("shard#{n}.json", n) }
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def record(name, n, *flags)
    code = "def check = 1\ndef suite(n) = (1..n).each { check }\nsuite(#{n})\n"
    _, err, status = tracegraph(*flags, "-o", name, "-e", code)
    assert status.success?, err
    path(name)
  end

  def path(name) = File.join(@dir, name)

  def load(name) = Tracegraph::Profile.load_json(path(name))

  def test_shards_add_up_exactly
    out, err, status = tracegraph("merge", *@shards, "-o", "all.json", "-o", "all.dot")
    assert status.success?, err
    assert_empty out
    assert_match(/^tracegraph merge: wrote .*all\.json$/, err)
    shards = @shards.map { |f| Tracegraph::Profile.load_json(f) }
    all = load("all.json")
    assert_equal 6, all["Object#check"].calls
    assert_equal 3, all["Object#suite"].calls
    assert_equal 3, all.edge("Object#suite", "Range#each").calls
    assert_equal 6, all.edge("Range#each", "block in Object#suite").calls
    assert_equal 6, all.edge("block in Object#suite", "Object#check").calls
    ["Object#check", "Object#suite", "Range#each", "block in Object#suite"].each do |name|
      assert_equal shards.sum { |s| s[name].total_time }, all[name].total_time, name
      assert_equal shards.sum { |s| s[name].self_time }, all[name].self_time, name
    end
    assert_equal shards.sum(&:total_time), all.total_time
    assert_equal all.total_time, all.methods.sum(&:self_time), "self times still add up to the total"

    _, dot_err, dot_status = Open3.capture3("dot", "-Tsvg", path("all.dot"))
    assert dot_status.success?, dot_err
    assert_equal "", dot_err, "dot warned"
  end

  def test_the_flat_table_of_the_sum
    out, err, status = tracegraph("merge", "--flat", *@shards)
    assert status.success?, err
    assert_match(/^\s+6 .* Object#check  -e:1$/, out)
    assert_empty Dir.children(@dir) - @shards.map { |f| File.basename(f) }, "--flat alone writes nothing"
  end

  def test_an_output_that_fails_does_not_stop_the_others
    _, err, status = tracegraph("merge", *@shards, "-o", "all.svg", "-o", "all.json",
                                env: {"PATH" => path_without_dot})
    assert_equal 1, status.exitstatus, err
    assert_match(/Graphviz's `dot` is not installed/, err)
    assert_equal 6, load("all.json")["Object#check"].calls
  end

  def test_bad_usage_and_bad_profiles_are_one_line_errors_before_anything_is_written
    File.write(path("broken.json"), "{\"format\": ")
    cpu = record("cpu.json", 1, "--clock", "cpu")
    cases = {
      [] => /needs the profiles to add up/,
      [*@shards] => /say where to write the sum: -o all.json/,
      [*@shards, "-o", "all.vernier.json"] => /unknown format \.vernier\.json/,
      [*@shards, "-o", "all.json", "-o", "all.pb.gz"] => /a sum has no call tree, so it cannot be written as all\.pb\.gz/,
      [@shards[0], path("broken.json"), "-o", "all.json"] => /broken\.json/,
      [@shards[0], path("missing.json"), "-o", "all.json"] => /missing\.json/,
      [@shards[0], cpu, "-o", "all.json"] => /cannot merge profiles of different clocks \(wall, cpu\)/,
      [*@shards, "--bogus"] => /invalid option: --bogus/
    }
    cases.each do |args, message|
      out, err, status = tracegraph("merge", *args)
      assert_equal 2, status.exitstatus, "#{args}: #{err}"
      assert_empty out
      assert_match(/\Atracegraph merge: /, err)
      assert_match(message, err)
      assert_equal 1, err.lines.size, err
      refute File.exist?(path("all.json")), args.inspect
    end
  end

  def test_help
    out, _, status = tracegraph("merge", "--help")
    assert status.success?
    assert_match(/Usage: tracegraph merge \[options\] a\.json b\.json \.\.\. -o all\.json/, out)
    assert_match(/--max-nodes/, out, "the graph options, as for render")
  end
end

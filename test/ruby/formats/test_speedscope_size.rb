require_relative "../test_helper"
require_relative "../cli_helper"
require_relative "../consumers_helper"
require "json"
require "open3"
require "tmpdir"

# speedscope's evented form: two events per call-tree node, however deep
# (the sampled form wrote each path's whole stack, 128 MB for rubocop on
# 10 files), and speedscope's own importer (test/consumers) still shows
# every frame with exactly our self and total time.
class TestSpeedscopeSize < TracegraphTest
  include CliHelper
  include ConsumersHelper


  PROGRAM = <<~RUBY
    def leaf(n) = n.times { |i| i * i }
    def fib(n) = n < 2 ? leaf(n * 50) : fib(n - 1) + fib(n - 2)
    def both = (fib(8); [3, 1, 2].sort.each { leaf(20) })
    both
    Thread.new { Thread.current.name = "worker"; fib(6); leaf(300) }.join
  RUBY

  # Each level calls a leaf, then goes one deeper: DEPTH levels of paths.
  DEEP = <<~RUBY
    def leaf = 1
    def down(n) = (leaf; n.zero? ? 0 : down(n - 1))
    down(Integer(ENV.fetch("DEPTH")))
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-speedscope-size")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end


  def record(code, env: {})
    script = write_script("app.rb", code)
    _, err, status = tracegraph("-o", "app.speedscope.json", "-o", "app.json", script, env: env)
    assert status.success?, err
    [File.join(@dir, "app.speedscope.json"), Tracegraph::Profile.load_json(File.join(@dir, "app.json"))]
  end

  # speedscope's frames, added up over its profiles (one per thread):
  # name => [total, self].
  def frames_read(path)
    sums = Hash.new { |h, k| h[k] = [0, 0] }
    speedscope_import(path)["profiles"].flat_map { |p| p["frames"] }.each do |name, total, self_time|
      sums[name][0] += total
      sums[name][1] += self_time
    end
    sums
  end

  def test_every_frame_shows_our_self_and_total_time
    path, profile = record(PROGRAM)
    read = frames_read(path)
    assert_equal profile.methods.map(&:name).sort, read.keys.sort
    profile.methods.each do |m|
      assert_equal [m.total_time, m.self_time], read.fetch(m.name), "#{m.name}: total and self (recursion counted once)"
    end
  end

  def test_the_file_grows_with_paths_not_with_their_depth
    path, profile = record(DEEP, env: {"DEPTH" => "400"})
    data = JSON.parse(File.read(path))
    events = data["profiles"].sum { |p| p["events"].size }
    assert_operator profile.call_tree.nodes.size, :>, 800
    assert_equal 2 * profile.call_tree.nodes.size, events, "an open and a close per node"
    profiles_bytes = JSON.generate(data["profiles"]).bytesize
    assert_operator profiles_bytes, :<, 45 * events, "a short event each"
    frames_read(path).each { |name, (_, self_time)| assert_equal profile[name].self_time, self_time, name }
  end

  # Past the depth limit (1000 frames) a node shows as its self time under
  # its ancestor at the limit: every self time stays exact.
  def test_paths_past_the_depth_limit_keep_every_self_time
    path, profile = record(DEEP, env: {"DEPTH" => "1100"})
    assert_operator profile.call_tree.nodes.map { |n| n.stack.size }.max, :>, 1000
    read = frames_read(path)
    profile.methods.each { |m| assert_equal m.self_time, read.fetch(m.name)[1], "#{m.name}: self" }
    assert_equal profile.total_time, speedscope_import(path)["profiles"].sum { |p| p["total"] }
  end
end

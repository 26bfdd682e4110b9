require_relative "../test_helper"
require_relative "../cli_helper"
require_relative "../consumers_helper"
require "json"
require "open3"
require "tmpdir"
require "tracegraph/output/output"

# speedscope output, read by speedscope's own importer: the npm package's
# release bundle run under Node (test/consumers/speedscope_import.js;
# bin/setup runs `npm ci` in test/consumers). Each thread's total, the
# thread count and the heaviest stack must come out as ours.
class TestSpeedscope < TracegraphTest
  include CliHelper
  include ConsumersHelper


  PROGRAM = <<~RUBY
    def spin(n) = n.times { |i| i * i }
    def light = spin(10)
    def heavy = (light; spin(20_000))
    def work = (light; heavy; light)
    work
    def report = spin(50_000)
    Thread.new { Thread.current.name = "worker"; light; report }.join
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-speedscope")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end


  def test_speedscope_reads_our_threads_totals_and_heaviest_stacks
    script = write_script("app.rb", PROGRAM)
    _, err, status = tracegraph("-o", "app.speedscope.json", "-o", "app.json", script)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "app.json"))
    read = speedscope_import(File.join(@dir, "app.speedscope.json"))
    assert_equal %w[main worker], read["profiles"].map { |p| p["name"] }, "one profile per thread"
    assert_equal(profile.threads.map(&:total_time), read["profiles"].map { |p| p["total"] })
    assert_equal(%w[nanoseconds] * 2, read["profiles"].map { |p| p["unit"] })
    profile.threads.zip(read["profiles"]).each do |thread, got|
      assert_equal heaviest(profile, thread), got["heaviest"], "#{thread.name}'s heaviest stack"
    end
    worker = read["profiles"].last["heaviest"].map(&:first)
    assert_equal ["block in <main>", "Object#report", "Object#spin"], worker.first(3), "the thread's block first"
  end

  def test_the_api_writes_speedscope_json
    profile = Tracegraph.profile(call_tree: true) { [3, 1, 2].sort }
    path = File.join(@dir, "api.speedscope.json")
    assert_equal path, profile.write_speedscope(path)
    data = JSON.parse(File.read(path))
    assert_equal Tracegraph::Profile::SPEEDSCOPE_SCHEMA, data["$schema"]
    assert_equal profile.methods.map(&:name), data["shared"]["frames"].map { |f| f["name"] }
    only = data["profiles"].first
    assert_equal "evented", only["type"]
    # Balanced: each close names the frame its open did, in order; time
    # never goes back, and ends at the thread's total.
    open = only["events"].each_with_object([]) do |event, stack|
      event["type"] == "O" ? stack.push(event["frame"]) : assert_equal(stack.pop, event["frame"])
    end
    assert_empty open
    ats = only["events"].map { |e| e["at"] }
    assert_equal ats.sort, ats
    assert_equal profile.total_time, only["endValue"]
    assert_equal only["endValue"], ats.last
    assert_equal profile.total_time, speedscope_import(path)["profiles"].first["total"]
  end

  def test_without_a_call_tree_it_says_how_to_get_one
    profile = Tracegraph.profile { 1 }
    error = assert_raises(Tracegraph::Error) { Tracegraph::Output.write(profile, File.join(@dir, "x.speedscope.json")) }
    assert_match(/no call tree.*--call-tree.*speedscope/, error.message)
  end
end

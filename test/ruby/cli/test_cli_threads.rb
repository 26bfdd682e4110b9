require_relative "../test_helper"
require_relative "../cli_helper"

# --thread and --idle on the command, on render, and under autorun
# (TRACEGRAPH_THREADS, TRACEGRAPH_IDLE): each records the call tree it
# needs, and a thread name that matches nothing never costs the profile.
class TestCliThreads < Minitest::Test
  include CliHelper

  PROGRAM = <<~RUBY.freeze
    def work(n) = (1..n).each { |i| i.to_s }
    def rest = sleep(0.02)
    worker = Thread.new do
      Thread.current.name = "worker"
      work(300)
      rest
    end
    work(100)
    worker.join
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-cli-threads")
    write_script("app.rb", PROGRAM)
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def path(name) = File.join(@dir, name)
  def load(name) = Tracegraph::Profile.load_json(path(name))

  def test_thread_shows_one_thread_in_every_output
    _, err, status = tracegraph("--thread", "worker", "-o", "w.json", "-o", "w.dot", "-o", "w.folded", "app.rb")
    assert status.success?, err
    profile = load("w.json")
    assert_equal ["worker"], profile.threads.map(&:name)
    assert_equal 2, profile.recorded_threads
    assert_equal 300, profile["Integer#to_s"].calls
    assert_includes File.read(path("w.dot")), "1 thread of 2 (worker)"
    refute_match(/Thread#join/, File.read(path("w.folded")))
  end

  def test_idle_hide_leaves_waiting_out
    _, err, status = tracegraph("--idle", "hide", "-o", "busy.json", "--flat", "app.rb")
    assert status.success?, err
    profile = load("busy.json")
    assert_nil profile["Kernel#sleep"]
    assert_nil profile["Thread#join"]
    assert_operator profile.hidden_waiting, :>=, 20 * ProfileAssertions::MS
    assert_equal 400, profile["Integer#to_s"].calls
    assert_match(/^Waiting: .* left out/, err)
  end

  def test_a_thread_that_never_ran_costs_nothing
    _, err, status = tracegraph("--thread", "nobody", "-o", "all.json", "app.rb")
    assert status.success?, err
    assert_match(/tracegraph: no thread matches "nobody" \(this profile has 1 "main", 2 "worker"\); writing every thread instead/,
                 err)
    assert_equal %w[main worker], load("all.json").threads.map(&:name)
  end

  def test_bad_idle_values_are_refused_before_the_run
    _, err, status = tracegraph("--idle", "sometimes", "-o", "x.json", "app.rb")
    assert_equal 2, status.exitstatus
    assert_match(/invalid argument: --idle sometimes/, err)
    refute File.exist?(path("x.json"))
  end

  def test_render_shows_a_saved_profile_by_thread
    _, err, status = tracegraph("--call-tree", "-o", "full.json", "app.rb")
    assert status.success?, err
    out, err, status = tracegraph("render", "full.json", "--thread", "2", "--idle", "hide", "-o", "w.json", "--flat")
    assert status.success?, err
    assert_match(/^Threads: 1 of 2 \(worker\)/, out)
    profile = load("w.json")
    assert_equal ["worker"], profile.threads.map(&:name)
    assert_nil profile["Kernel#sleep"]

    _, err, status = tracegraph("-o", "plain.json", "app.rb")
    assert status.success?, err
    _, err, status = tracegraph("render", "plain.json", "--thread", "worker", "-o", "x.dot")
    assert_equal 2, status.exitstatus
    assert_match(/tracegraph render: cannot show some threads only .* record it with call_tree: true \(tracegraph --call-tree\)/,
                 err)
  end

  def test_autorun_takes_the_thread_and_idle_from_the_environment
    env = {"RUBYOPT" => "-rtracegraph/autorun", "TRACEGRAPH_OUTPUT" => path("auto.json"),
           "TRACEGRAPH_THREADS" => "worker", "TRACEGRAPH_IDLE" => "hide"}
    _, err, status = ruby("app.rb", env: env)
    assert status.success?, err
    profile = load("auto.json")
    assert_equal ["worker"], profile.threads.map(&:name)
    assert_nil profile["Kernel#sleep"]
    assert_equal 300, profile["Integer#to_s"].calls
  end
end

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

  # A worker blocked on a Queue while the main thread works 30 ms.
  QUEUE_PROGRAM = <<~RUBY.freeze
    queue = Queue.new
    worker = Thread.new { queue.pop }
    Thread.pass until worker.status == "sleep"
    def work(n) = (1..n).each { |i| i.to_s }
    finish = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 0.03
    work(100) while Process.clock_gettime(Process::CLOCK_MONOTONIC) < finish
    queue << 1
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

  # Without --idle, what ranks the time (the graph, the .txt, --flat)
  # ranks working time, with one line for the waiting left out; the JSON
  # keeps everything, for render and other tools, and --idle show draws
  # the waiting as before.
  def test_by_default_working_time_ranks_first
    write_script("queue.rb", QUEUE_PROGRAM)
    _, err, status = tracegraph("-o", "all.json", "-o", "g.dot", "-o", "t.txt", "--flat", "queue.rb")
    assert status.success?, err
    whole = load("all.json")
    waited = whole.view(idle: :hide).hidden_waiting # the waiting methods with what they call (Ruby 3.4's Queue#pop is Ruby)
    assert_equal %w[Thread::Queue#pop Thread#join].sum { |name| whole[name].total_time }, waited
    assert_operator whole["Thread::Queue#pop"].self_time, :>=, 30 * ProfileAssertions::MS
    line = "Waiting: #{Tracegraph.human_time(waited)} in 2 threads, Thread::Queue#pop, Thread#join, " \
           "left out (--idle show shows it)"
    assert_includes err, "\n#{line}\n"
    assert_includes File.read(path("t.txt")), "\n#{line}\n"
    refute_match(/\(waiting\)/, err)
    busiest = whole.methods.reject(&:waiting?).max_by(&:self_time).name
    assert_equal busiest, err[/self%  method\n.*?%  (.+?)(  queue\.rb:\d+)?\n/, 1]
    dot = File.read(path("g.dot"))
    assert_includes dot, "Waiting hidden: #{Tracegraph.human_time(waited)} in 2 threads,"
    refute_includes dot, "label=\"Thread::Queue#pop"
    assert_equal 1, whole["Thread::Queue#pop"].calls, "the JSON keeps the waiting"

    out, err, status = tracegraph("render", "all.json", "--flat")
    assert status.success?, err
    assert_includes out, "\n#{line}\n"
    out, err, status = tracegraph("render", "all.json", "--flat", "--idle", "show")
    assert status.success?, err
    # (On Ruby 3.4, Queue#pop is Ruby code, with its place: <internal:thread_sync>:14.)
    assert_match(/^ +1 +[\d.]+ ms +[\d.]+ ms +\d+\.\d%  Thread::Queue#pop \(waiting\)(  <internal:thread_sync>:\d+)?$/, out)
    assert_match(/^Waiting: #{Regexp.escape(Tracegraph.human_time(whole.waiting_time))} \([\d.]+%\) in Thread::Queue#pop, Thread#join; working /,
                 out)
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

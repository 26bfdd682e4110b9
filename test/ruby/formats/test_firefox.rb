require_relative "../test_helper"
require_relative "../cli_helper"
require_relative "../consumers_helper"
require "json"
require "open3"
require "tmpdir"
require "tracegraph/output/output"

# Firefox Profiler output (processed format, version 47), read two ways:
# - by the Firefox Profiler's own loading and call-tree code, which the
#   profiler's team ships in the npm package @firefox-devtools/profiler-cli
#   (test/consumers): it loads our file as profiler.firefox.com would, and
#   its top-down call tree of each thread must have our total and our
#   heaviest stack;
# - by test/consumers/firefox_check.js, a checker of the format's
#   invariants as the profiler's source states them, which also says why
#   a file is wrong. Broken files must be refused, so the checker can
#   fail, and the checked-in fixture must pass.
class TestFirefox < TracegraphTest
  include CliHelper
  include ConsumersHelper

  CHECKER = File.expand_path("../../consumers/firefox_check.js", __dir__)
  PROFILER_CLI = File.expand_path("../../consumers/node_modules/@firefox-devtools/profiler-cli/dist/profiler-cli.js", __dir__)
  FIXTURE = File.expand_path("../../fixtures/firefox/two_threads.firefox.json", __dir__)

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
    @dir = Dir.mktmpdir("tracegraph-firefox")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def run_checker(path)
    require_node!
    capture_node(CHECKER, path)
  end

  def check(path)
    out, err, status = run_checker(path)
    assert status.success?, "the checker refused #{path}: #{err}"
    JSON.parse(out)
  end

  SESSION = "tracegraph-test"

  def profiler_env
    {"PROFILER_CLI_SESSION_DIR" => File.join(@dir, "sessions"), "PROFILER_CLI_NO_SYMBOLICATE" => "1", "HOME" => @dir}
  end

  # Starts the Firefox Profiler's CLI daemon on path, as `profiler-cli
  # load` does, but waits for it as long as it takes: `load` gives its
  # daemon 500 ms to get ready, which a busy 2-core machine (or the ASan
  # run) often misses, and retrying missed too. The daemon is the
  # command `load` itself names for running it in the foreground.
  #
  # No client runs until the daemon has written its session file: a
  # client that finds no session file removes the session's socket, and
  # if the daemon has just bound it, that daemon is then unreachable for
  # good ("Unknown session ... no metadata found").
  def start_profiler(path)
    require_npm_package!("@firefox-devtools/profiler-cli/dist/profiler-cli.js", "the Firefox Profiler's loader")
    sessions = profiler_env.fetch("PROFILER_CLI_SESSION_DIR")
    @daemon = Process.spawn(ConsumersHelper::NODE_ENV.merge(profiler_env), "node", PROFILER_CLI, "--daemon", path,
                            "--session", SESSION, %i[out err] => File.join(@dir, "daemon.log"))
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 60
    waiting_for = lambda do |what, answer = nil|
      logs = [File.join(@dir, "daemon.log"), File.join(sessions, "#{SESSION}.log"), File.join(sessions, "#{SESSION}.error")]
      told = logs.select { |log| File.exist?(log) }.map { |log| "#{log}:\n#{File.read(log)}" }.join("\n")
      flunk "the profiler's daemon did not #{what} #{path} in 60 s#{" (it last said: #{answer})" if answer}: #{told}" if
        Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline || Process.waitpid(@daemon, Process::WNOHANG)
      sleep 0.2
    end
    waiting_for.call("start a session for") until File.exist?(File.join(sessions, "#{SESSION}.json"))
    loop do
      out, err, status = capture_node(PROFILER_CLI, "thread", "list", "--json", "--session", SESSION, env: profiler_env)
      return JSON.parse(out) if status.success?

      waiting_for.call("load", "#{out}#{err}".strip)
    end
  end

  def stop_profiler
    return unless @daemon

    capture_node(PROFILER_CLI, "stop", "--session", SESSION, env: profiler_env)
    Process.kill("TERM", @daemon)
    Process.wait(@daemon)
  rescue Errno::ESRCH, Errno::ECHILD
    nil
  end

  # Runs the Firefox Profiler's CLI in the session start_profiler began;
  # returns its stdout, parsed if it is JSON.
  def profiler(*args)
    out, err, status = capture_node(PROFILER_CLI, *args, "--session", SESSION, env: profiler_env)
    assert status.success?, "profiler-cli #{args.join(' ')}: #{out}#{err}"
    out.start_with?("{") ? JSON.parse(out) : out
  end

  def test_the_firefox_profilers_own_loader_reads_our_threads_totals_and_heaviest_stacks
    script = write_script("app.rb", PROGRAM)
    _, err, status = tracegraph("-o", "app.firefox.json", "-o", "app.json", script)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "app.json"))
    begin
      threads = start_profiler(File.join(@dir, "app.firefox.json"))["threads"]
      assert_equal %w[main worker], threads.map { |t| t["name"] }
      profile.threads.zip(threads).each do |thread, listed|
        tree = profiler("thread", "samples-top-down", "--thread", listed["threadHandle"], "--json",
                        "--max-lines", "10000")
        assert_equal "tracing-ms", tree["weightType"]
        root = tree["regularCallTree"]
        # Its weights are our nanoseconds as exact decimal milliseconds,
        # summed by the profiler in floating point.
        assert_in_delta thread.total_time / 1e6, root["totalSamples"], 1e-6, "#{thread.name}'s total"
        theirs = []
        level = root["children"]
        until level.nil? || level.empty?
          node = level.max_by { |n| n["totalSamples"] }
          theirs << node["name"]
          level = node["children"]
        end
        assert_equal heaviest(profile, thread).map(&:first), theirs, "#{thread.name}'s heaviest stack"
      end
    ensure
      stop_profiler
    end
  end

  def test_the_checker_reads_our_threads_totals_and_heaviest_stacks
    script = write_script("app.rb", PROGRAM)
    _, err, status = tracegraph("-o", "app.firefox.json", "-o", "app.json", script)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "app.json"))
    read = check(File.join(@dir, "app.firefox.json"))
    assert_equal %w[main worker], read["threads"].map { |t| t["name"] }, "one thread per thread"
    assert_equal(%w[tracing-ms] * 2, read["threads"].map { |t| t["weightType"] })
    assert_equal(profile.threads.map(&:total_time), read["threads"].map { |t| t["total"] })
    profile.threads.zip(read["threads"]).each do |thread, got|
      assert_equal heaviest(profile, thread), got["heaviest"], "#{thread.name}'s heaviest stack"
    end
    worker = read["threads"].last["heaviest"].map(&:first)
    assert_equal ["block in <main>", "Object#report", "Object#spin"], worker.first(3), "the thread's block first"
    assert_match(/\(tracegraph, wall clock\)\z/, read["product"])
  end

  def test_the_api_writes_firefox_json
    profile = Tracegraph.profile(call_tree: true) { [3, 1, 2].sort }
    path = File.join(@dir, "api.firefox.json")
    assert_equal path, profile.write_firefox(path)
    data = JSON.parse(File.read(path))
    assert_equal 47, data["meta"]["preprocessedProfileVersion"]
    only = data["threads"].first
    assert_equal "tracing-ms", only["samples"]["weightType"]
    assert_equal only["samples"]["length"], only["samples"]["weight"].size
    assert_equal profile.total_time, only["samples"]["weight"].sum { |ms| (ms * 1_000_000).round }
    assert_equal [profile.total_time], check(path)["threads"].map { |t| t["total"] }
  end

  # test/fixtures/firefox/two_threads.firefox.json is what
  # tg_stacks_write_firefox writes for test/c/test_stacks.c's tree (times
  # in nanoseconds there): main 100 (main 10, work 20, times 40, x;y 30),
  # worker 50 (work 5, times 45).
  def test_the_checked_in_fixture_passes
    read = check(FIXTURE)
    assert_equal [["main", 100], ["worker", 50]], read["threads"].map { |t| [t["name"], t["total"]] }
    assert_equal [["Object#main", 100, 10], ["Object#work", 60, 20], ["Integer#times", 40, 40]],
                 read["threads"].first["heaviest"]
  end

  BROKEN = {
    "a newer version than we write" => [->(p) { p["meta"]["preprocessedProfileVersion"] = 99 }, /preprocessedProfileVersion: is not 47/],
    "no markerSchema" => [->(p) { p["meta"].delete("markerSchema") }, /markerSchema: is not an array/],
    "no grey default category" => [->(p) { p["meta"]["categories"][0]["color"] = "blue" }, /no grey default category/],
    "a numeric pid" => [->(p) { p["threads"][0]["pid"] = 0 }, /pid: is not a string/],
    "a column shorter than its length" => [->(p) { p["threads"][0]["stackTable"]["frame"].pop }, /stackTable: column frame has 3 items, length is 4/],
    "a prefix after its stack" => [->(p) { p["threads"][0]["stackTable"]["prefix"][1] = 3 }, /prefix\[1\]: is not null or an earlier stack/],
    "a frame's func out of range" => [->(p) { p["threads"][0]["frameTable"]["func"][2] = 4 }, /frameTable.func\[2\]: is not a func index/],
    "a func name past the strings" => [->(p) { p["threads"][1]["funcTable"]["name"][1] = 4 }, /funcTable.name\[1\]: is not a string index/],
    "a sample's stack out of range" => [->(p) { p["threads"][1]["samples"]["stack"][1] = 2 }, /samples.stack\[1\]: is not null or a stack index/],
    "sample weights of another type" => [->(p) { p["threads"][0]["samples"]["weightType"] = "samples" }, /weightType: is not tracing-ms/],
    "a Gecko-style string table" => [->(p) { p["threads"][0]["stringTable"] = p["threads"][0].delete("stringArray") }, /stringArray: is not an array of strings/]
  }.freeze

  def test_broken_files_are_refused
    BROKEN.each do |what, (breaking, message)|
      data = JSON.parse(File.read(FIXTURE))
      breaking.call(data)
      path = File.join(@dir, "broken.firefox.json")
      File.write(path, JSON.generate(data))
      _, err, status = run_checker(path)
      refute status.success?, "the checker accepted #{what}"
      assert_match message, err, what
    end
  end

  def test_the_name_asks_for_the_format
    assert_equal :firefox, Tracegraph::Output.format_of("out/x.firefox.json")
    assert_equal :json, Tracegraph::Output.format_of("firefox.json"), "a plain .json is still tracegraph's own"
  end

  def test_without_a_call_tree_it_says_how_to_get_one
    profile = Tracegraph.profile { 1 }
    error = assert_raises(Tracegraph::Error) { Tracegraph::Output.write(profile, File.join(@dir, "x.firefox.json")) }
    assert_match(/no call tree.*--call-tree.*Firefox Profiler/, error.message)
  end
end

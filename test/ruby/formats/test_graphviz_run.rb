require_relative "../test_helper"
require "tmpdir"
require "tracegraph/formats/graphviz_run"

# The one runner of Graphviz's `dot` (the HTML report's graph view and
# `-o x.svg` both use it): a time limit read from TRACEGRAPH_DOT_TIMEOUT,
# after which dot's whole process group is stopped and its partial file
# removed. dot here is a stand-in on PATH (as in
# test/ruby/output/test_dot_interrupt.rb) that starts a child of its own,
# as a helper would, and never finishes.
class TestGraphvizRun < Minitest::Test
  Run = Tracegraph::Formats::GraphvizRun

  # Leaves a partial file, says its pid and its child's, and sleeps.
  FAKE_DOT = <<~SH.freeze
    #!/bin/sh
    for last; do :; done
    printf '<svg' > "$last"
    sleep 60 &
    echo "$$ $!" > "$FAKE_DOT_PID.tmp" && mv "$FAKE_DOT_PID.tmp" "$FAKE_DOT_PID"
    exec sleep 60
  SH

  def setup
    @dir = Dir.mktmpdir("tracegraph-graphviz-run")
    bin = FileUtils.mkdir_p(File.join(@dir, "bin")).first
    File.write(File.join(bin, "dot"), FAKE_DOT, perm: 0o755)
    @pid_file = File.join(@dir, "dot.pid")
    @saved = ENV.to_h.slice("PATH", "FAKE_DOT_PID", "TRACEGRAPH_DOT_TIMEOUT")
    ENV.update("PATH" => "#{bin}:#{ENV.fetch('PATH')}", "FAKE_DOT_PID" => @pid_file)
  end

  def teardown
    ENV.update(@saved)
    %w[FAKE_DOT_PID TRACEGRAPH_DOT_TIMEOUT].each { |name| ENV.delete(name) unless @saved.key?(name) }
    FileUtils.rm_rf(@dir)
  end

  def path(name) = File.join(@dir, name)

  # Gone, or a zombie left for whoever adopted it to reap. A SIGKILL sent
  # to the group lands on dot's child a moment after dot is reaped (a
  # full rake test on 2 busy cores saw it still running), so it has 5 s.
  def assert_gone(pid, what)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 5
    loop do
      state = process_state(pid)
      return pass if state.nil? || state == "Z"
      flunk "#{what} (pid #{pid}) is still running (#{state})" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      sleep 0.01
    end
  end

  # /proc's state letter of pid, or nil when it is gone.
  def process_state(pid)
    File.read("/proc/#{pid}/stat")[/\) (\S)/, 1]
  rescue Errno::ENOENT, Errno::ESRCH
    nil
  end

  def run_fake(limit)
    File.open(path("err"), "w") do |err|
      Run.run(["dot", "-Tsvg", "in.dot", "-o", path("out.svg")], limit, err: err, partial: path("out.svg"))
    end
  end

  def test_past_the_limit_its_process_group_is_stopped_and_the_partial_file_removed
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    assert_nil run_fake(1), "no status: it did not finish"
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 10, "stopped at the limit"
    dot, child = File.read(@pid_file).split.map { |pid| Integer(pid) }
    assert_gone(dot, "dot")
    assert_gone(child, "dot's child, in its group")
    refute File.exist?(path("out.svg")), "the partial file is removed"
  end

  def test_an_exception_in_the_wait_stops_dot_and_reaches_the_caller
    thread = Thread.new { run_fake(0) }
    thread.report_on_exception = false
    sleep 0.05 until File.exist?(@pid_file) || !thread.alive?
    thread.raise(Interrupt)
    assert_raises(Interrupt) { thread.join }
    dot, child = File.read(@pid_file).split.map { |pid| Integer(pid) }
    assert_gone(dot, "dot")
    assert_gone(child, "dot's child")
    refute File.exist?(path("out.svg"))
  end

  def test_a_dot_that_finishes_gives_its_status_and_keeps_its_output
    File.write(path("in.dot"), "digraph { a -> b }\n")
    ENV["PATH"] = @saved.fetch("PATH")
    skip "Graphviz's dot is not installed" unless system("dot", "-V", err: File::NULL)
    status = Run.run(["dot", "-Tsvg", path("in.dot")], 0, out: path("out.svg"), err: File::NULL, partial: path("out.svg"))
    assert status.success?
    assert_match(/<svg/, File.read(path("out.svg")))
    refute Run.run(["dot", "-Tsvg", path("missing.dot")], 30, err: File::NULL).success?
  end

  def test_no_dot_raises_enoent
    ENV["PATH"] = @dir
    assert_raises(Errno::ENOENT) { Run.run(["dot", "-Tsvg"], 1, err: File::NULL) }
  end

  def test_the_limit_is_read_from_tracegraph_dot_timeout
    ENV.delete("TRACEGRAPH_DOT_TIMEOUT")
    assert_equal 120, Run.timeout
    ENV["TRACEGRAPH_DOT_TIMEOUT"] = "0.5"
    assert_in_delta 0.5, Run.timeout
    ENV["TRACEGRAPH_DOT_TIMEOUT"] = "soon"
    error = assert_raises(Tracegraph::Error) { Run.timeout }
    assert_match(/TRACEGRAPH_DOT_TIMEOUT must be a number of seconds, not "soon"/, error.message)
  end
end

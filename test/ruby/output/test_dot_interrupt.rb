require_relative "../test_helper"
require_relative "../cli_helper"
require "tracegraph/output/graphviz_output"

# Ctrl-C (SIGINT) or SIGTERM while Graphviz draws stops dot at once, keeps
# the .dot and the outputs already written, removes the partial file, and
# ends tracegraph by that signal (a shell shows 130 or 143) with one line
# on stderr and no backtrace. dot here is a stand-in that never finishes,
# so the test does not depend on how busy the machine is.
class TestDotInterrupt < Minitest::Test
  include CliHelper

  # Leaves a partial file, says its pid, and sleeps as a huge layout would.
  FAKE_DOT = <<~SH.freeze
    #!/bin/sh
    for last; do :; done
    printf '<svg' > "$last"
    echo $$ > "$FAKE_DOT_PID.tmp" && mv "$FAKE_DOT_PID.tmp" "$FAKE_DOT_PID"
    exec sleep 60
  SH

  def setup
    @dir = Dir.mktmpdir("tracegraph-dot-interrupt")
    bin = File.join(@dir, "bin")
    Dir.mkdir(bin)
    File.write(File.join(bin, "dot"), FAKE_DOT)
    File.chmod(0o755, File.join(bin, "dot"))
    @dot_pid_file = File.join(@dir, "dot.pid")
    @env = {"PATH" => "#{bin}:#{ENV.fetch('PATH')}", "FAKE_DOT_PID" => @dot_pid_file, "TRACEGRAPH_RUN" => nil,
            "TRACEGRAPH_DOT_TIMEOUT" => "0"} # no limit: only the signal stops it
    # work's own time is a loop of inlined operators, no calls: its box is
    # never below the graph's cut-off, as a method of nanoseconds can be
    # once tracing's cost is taken out.
    write_script("app.rb", "def work\n  x = 0\n  x += 1 while x < 20_000\n  x\nend\n3.times { work }\n")
    profile = write_script("saved.rb", "def saved_work = 1\nsaved_work\n")
    _, err, status = tracegraph("-o", "saved.json", profile)
    assert status.success?, err
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def path(name) = File.join(@dir, name)

  # Starts the command, sends signal once dot runs; [status, stderr,
  # seconds from the signal to the end, dot's pid].
  def interrupt(signal, *command, env: {})
    err_path = path("stderr.txt")
    pid = Process.spawn(@env.merge(env), *command, chdir: @dir, err: err_path, out: File::NULL)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 60
    until File.exist?(@dot_pid_file)
      flunk "dot never started: #{File.read(err_path)}" if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
      sleep 0.05
    end
    dot_pid = Integer(File.read(@dot_pid_file))
    sent = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    Process.kill(signal, pid)
    _, status = Process.wait2(pid)
    [status, File.read(err_path), Process.clock_gettime(Process::CLOCK_MONOTONIC) - sent, dot_pid]
  ensure
    if pid && !status
      Process.kill(:KILL, pid)
      Process.wait(pid)
    end
  end

  def tracegraph_command(*args) = [RbConfig.ruby, "-I#{LIB}", EXE, *args]

  def assert_dot_gone(dot_pid)
    Process.kill(0, dot_pid)
    flunk "dot (pid #{dot_pid}) is still running"
  rescue Errno::ESRCH
    pass
  end

  # The status a shell shows: 128 + the signal for a process it killed.
  def shell_status(status) = status.exitstatus || 128 + status.termsig

  def assert_stopped_by(signal, status, err, seconds, dot_pid)
    assert_equal Signal.list.fetch(signal), status.termsig, "ends by the signal, as ruby does: #{status.inspect} #{err}"
    assert_equal({"INT" => 130, "TERM" => 143}.fetch(signal), shell_status(status))
    assert_operator seconds, :<, 10, "dot is stopped at once, not waited for"
    assert_dot_gone(dot_pid)
    assert_equal 1, err.lines.size, err
    refute_match(/Interrupt|IOError|from |\.rb:\d+/, err, "no backtrace")
  end

  def test_ctrl_c_during_the_profiling_commands_render_keeps_the_dot_and_the_cheap_outputs
    status, err, seconds, dot_pid = interrupt("INT", *tracegraph_command("-o", "g.svg", "-o", "g.json", "app.rb"))
    assert_stopped_by("INT", status, err, seconds, dot_pid)
    assert_equal "tracegraph: interrupted by SIGINT while Graphviz drew g.svg: stopped it and removed " \
                 "the partial file; the call graph is in g.dot (also written: g.json)\n", err
    refute File.exist?(path("g.svg")), "the partial file is removed"
    assert_match(/Object#work/, File.read(path("g.dot")))
    assert_equal 3, Tracegraph::Profile.load_json(path("g.json"))["Object#work"].calls,
                 "written before the render, though asked for after it"
  end

  def test_messages_keep_the_users_order_though_rendered_outputs_are_written_last
    _, err, status = tracegraph("-o", "g.svg", "-o", "g.json", "-o", "g.txt", "app.rb", env: {"TRACEGRAPH_RUN" => nil})
    assert status.success?, err
    assert_equal "tracegraph: wrote g.dot, g.svg\n" \
                 "tracegraph: wrote g.json\n" \
                 "tracegraph: wrote g.txt\n", err
    assert_operator File.mtime(path("g.txt")), :<=, File.mtime(path("g.dot")), "the cheap ones first"
  end

  def test_sigterm_during_the_profiling_commands_render
    status, err, seconds, dot_pid = interrupt("TERM", *tracegraph_command("-o", "g.pdf", "app.rb"))
    assert_stopped_by("TERM", status, err, seconds, dot_pid)
    assert_equal "tracegraph: interrupted by SIGTERM while Graphviz drew g.pdf: stopped it and removed " \
                 "the partial file; the call graph is in g.dot\n", err
    refute File.exist?(path("g.pdf"))
    assert File.size?(path("g.dot"))
  end

  def test_ctrl_c_during_the_render_of_repeated_runs
    status, err, seconds, dot_pid = interrupt("INT", *tracegraph_command("--runs", "2", "-o", "g.svg", "app.rb"))
    refute_match(/run[12]\.json/, err, "each run's own file, which the command reads and deletes, is not named")
    assert_stopped_by("INT", status, err, seconds, dot_pid)
    assert_equal "tracegraph: interrupted by SIGINT while Graphviz drew g.svg: stopped it and removed " \
                 "the partial file; the call graph is in g.dot\n", err
    refute File.exist?(path("g.svg"))
    assert File.size?(path("g.dot"))
  end

  def test_ctrl_c_during_render
    status, err, seconds, dot_pid = interrupt("INT", *tracegraph_command("render", "saved.json", "-o", "r.svg"))
    assert_stopped_by("INT", status, err, seconds, dot_pid)
    assert_equal "tracegraph render: interrupted by SIGINT while Graphviz drew r.svg: stopped it and removed " \
                 "the partial file; the call graph is in r.dot\n", err
    refute File.exist?(path("r.svg"))
    assert_match(/Object#saved_work/, File.read(path("r.dot")))
  end

  def test_sigterm_during_merge
    status, err, seconds, dot_pid = interrupt("TERM", *tracegraph_command("merge", "saved.json", "saved.json",
                                                                           "-o", "m.png", "-o", "m.json"))
    assert_stopped_by("TERM", status, err, seconds, dot_pid)
    assert_equal "tracegraph merge: interrupted by SIGTERM while Graphviz drew m.png: stopped it and removed " \
                 "the partial file; the call graph is in m.dot (also written: m.json)\n", err
    refute File.exist?(path("m.png"))
    assert_equal 2, Tracegraph::Profile.load_json(path("m.json"))["Object#saved_work"].calls
  end

  def test_ctrl_c_during_diff
    status, err, seconds, dot_pid = interrupt("INT", *tracegraph_command("diff", "saved.json", "saved.json",
                                                                          "-o", "d.svg"))
    assert_stopped_by("INT", status, err, seconds, dot_pid)
    assert_equal "tracegraph diff: interrupted by SIGINT while Graphviz drew d.svg: stopped it and removed " \
                 "the partial file; the call graph is in d.dot\n", err
    refute File.exist?(path("d.svg"))
    assert File.size?(path("d.dot"))
  end

  # A server renders in a thread of its own; when the process ends, Ruby
  # kills that thread, and its dot must go too, not run on, orphaned.
  def test_a_render_thread_killed_takes_its_dot_with_it
    File.write(path("t.dot"), "digraph { a -> b }\n")
    saved = ENV.to_h.slice("PATH", "FAKE_DOT_PID", "TRACEGRAPH_DOT_TIMEOUT")
    ENV.update(@env.compact)
    thread = Thread.new { Tracegraph::DotRender.run(path("t.dot"), path("t.svg")) }
    sleep 0.05 until File.exist?(@dot_pid_file) || !thread.alive?
    assert thread.alive?, "dot started"
    dot_pid = Integer(File.read(@dot_pid_file))
    thread.kill.join
    assert_dot_gone(dot_pid)
    refute File.exist?(path("t.svg")), "the partial file is removed"
    assert File.size?(path("t.dot"))
  ensure
    ENV.update(saved)
    ENV.delete("FAKE_DOT_PID") unless saved&.key?("FAKE_DOT_PID")
  end

  def test_ctrl_c_during_autoruns_render_ends_the_program_by_the_signal
    env = {"RUBYOPT" => "-I#{LIB} -rtracegraph/autorun", "TRACEGRAPH_OUTPUT" => "a.svg"}
    status, err, seconds, dot_pid = interrupt("INT", RbConfig.ruby, "app.rb", env: env)
    assert_stopped_by("INT", status, err, seconds, dot_pid)
    assert_match(/\Atracegraph: interrupted by SIGINT while Graphviz drew a\.svg: /, err)
    refute File.exist?(path("a.svg"))
    assert File.size?(path("a.dot"))
  end
end

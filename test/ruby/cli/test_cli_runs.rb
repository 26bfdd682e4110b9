require_relative "../test_helper"
require_relative "../cli_helper"

# tracegraph --runs N: the script runs N times, each in its own process,
# and the outputs hold each method's median with every run's numbers.
class TestCliRuns < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-runs")
    # Counts its runs in runs.log; the Nth run does what FAIL_ON says.
    @script = write_script("app.rb", <<~RUBY)
      def step(i) = i * 2
      File.open("runs.log", "a") { |f| f.puts $$ }
      run = File.readlines("runs.log").size
      20.times { |i| step(i) }
      if ENV["FAIL_ON"].to_i == run
        Process.kill(:TERM, $$) if ENV["HOW"] == "TERM"
        exit 7
      end
      puts "run \#{run} \#{ARGV.join(' ')}"
    RUBY
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def runs_logged = File.exist?(File.join(@dir, "runs.log")) ? File.readlines(File.join(@dir, "runs.log")).size : 0

  def test_runs_the_script_n_times_and_keeps_medians_and_every_run
    # --node-fraction 0: 20 calls of step take well under 0.5% of the run
    # (file reads are most of it), and would be pruned from the graph.
    out, err, status = tracegraph("--runs", "3", "--clock", "cpu", "--node-fraction", "0", "-o", "m.json", "-o", "m.dot",
                                  "app.rb", "--arg")
    assert status.success?, err
    assert_equal ["run 1 --arg", "run 2 --arg", "run 3 --arg"], out.lines.map(&:chomp), "each run gets the script's arguments"
    assert_equal 3, File.readlines(File.join(@dir, "runs.log")).uniq.size, "three processes"
    profile = Tracegraph::Profile.load_json(File.join(@dir, "m.json"))
    assert_equal :cpu, profile.clock
    assert_equal 20, profile["Object#step"].calls
    assert_equal 3, profile.runs.count
    assert_equal [20, 20, 20], profile.runs.calls("Object#step")
    assert_equal profile["Object#step"].self_time, Tracegraph::RunStats.median(profile.runs.self_times("Object#step")).round
    assert_includes File.read(File.join(@dir, "m.dot")), "Object#step"
    totals = profile.runs.total_times
    spread = format("%.1f%%", 100.0 * (totals.max - totals.min) / profile.total_time)
    summary = "tracegraph: 3 runs, median total cpu time #{Tracegraph.human_time(profile.total_time)} (runs from " \
              "#{Tracegraph.human_time(totals.min)} to #{Tracegraph.human_time(totals.max)}: a spread of #{spread}"
    assert_includes err, summary, "the spread is the runs' range, in percent of the median"
    assert_match(/#{Regexp.escape(summary)}; the median's standard error [\d.]+%\)$/, err)
  end

  # The messages name only what is kept: not each run's JSON, which the
  # command reads and deletes. On a terminal, each run is announced.
  def test_messages_name_only_files_kept_and_a_terminal_sees_progress
    _, err, status = tracegraph("--runs", "2", "-o", "m.json", "app.rb")
    assert status.success?, err
    assert_equal ["tracegraph: wrote m.json"], err.lines.grep(/wrote/).map(&:chomp)
    refute_match(/run \d of/, err, "a log gets no progress lines")

    require "pty"
    lines = []
    PTY.spawn(RbConfig.ruby, "-I#{LIB}", EXE, "--runs", "3", "-o", File.join(@dir, "t.json"), "-e", "1",
              chdir: @dir) do |reader, _, pid|
      begin
        reader.each_line { |line| lines << line.chomp }
      rescue Errno::EIO # the terminal closed with the command
        nil
      end
      Process.wait(pid)
    end
    assert_predicate $?, :success?, lines.join("\n")
    assert_equal ["tracegraph: run 1 of 3", "tracegraph: run 2 of 3", "tracegraph: run 3 of 3", "tracegraph: wrote t.json"],
                 lines.grep(/\Atracegraph: (run|wrote)/)
  end

  def test_code_given_with_e
    _, err, status = tracegraph("--runs", "2", "-o", "e.json", "-e", "def f = 1; 5.times { f }")
    assert status.success?, err
    assert_equal 5, Tracegraph::Profile.load_json(File.join(@dir, "e.json"))["Object#f"].calls
  end

  def test_what_to_record_reaches_every_run
    _, err, status = tracegraph("--runs", "2", "--no-blocks", "--no-gc", "-o", "n.json", "-e",
                                "def f = 1; (1..5).each { f }; GC.start")
    assert status.success?, err
    names = Tracegraph::Profile.load_json(File.join(@dir, "n.json")).methods.map(&:name)
    assert_includes names, "Object#f"
    assert_empty names.grep(/\Ablock |garbage collection/), "--no-blocks and --no-gc hold in each run"
  end

  def test_a_failing_run_stops_the_runs_and_its_status_is_the_commands
    _, err, status = tracegraph("--runs", "4", "-o", "m.json", "app.rb", env: {"FAIL_ON" => "2"})
    assert_equal 7, status.exitstatus, err
    assert_equal 2, runs_logged
    assert_match(/run 2 of 4 did not succeed \(exit status 7\); stopping/, err)
    assert_equal 2, Tracegraph::Profile.load_json(File.join(@dir, "m.json")).runs.count, "written from the runs so far"
  end

  def test_a_run_killed_by_a_signal_kills_the_command_by_it
    _, err, status = tracegraph("--runs", "3", "-o", "m.json", "app.rb", env: {"FAIL_ON" => "1", "HOW" => "TERM"})
    assert_equal Signal.list["TERM"], status.termsig, err
    assert File.size?(File.join(@dir, "m.json")), "the outputs are written first"
  end

  def test_outputs_are_checked_and_options_refused_before_any_run
    [
      [%w[--runs 2 -o no/such/dir/m.json app.rb], /cannot write .*m\.json: directory .* does not exist/],
      [%w[--runs 2 -o m.folded app.rb], /--runs keeps medians, not call trees, so it cannot write .*m\.folded/],
      [%w[--runs 0 app.rb], /invalid argument: --runs 0 \(from 1 to 1000\)/]
    ].each do |args, message|
      _, err, status = tracegraph(*args)
      assert_equal 2, status.exitstatus, "#{args.inspect}: #{err}"
      assert_match message, err
      assert_equal 0, runs_logged, "#{args.inspect} ran the script"
    end
  end

  def test_every_output_is_attempted
    _, err, status = tracegraph("--runs", "2", "-o", "m.svg", "-o", "m.json", "app.rb",
                                env: {"PATH" => path_without_dot})
    assert_equal 1, status.exitstatus, err
    assert File.size?(File.join(@dir, "m.json")), "the JSON is written though the SVG could not be"
    assert_match(/dot/, err)
  end
end

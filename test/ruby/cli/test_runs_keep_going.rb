require_relative "../test_helper"
require_relative "../cli_helper"

# tracegraph --runs N --ok-status LIST: the runs go on after the exit
# statuses a program ends with by design (a linter that found offenses),
# and the command exits with the last run's status.
class TestRunsKeepGoing < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-ok-status")
    # Counts its runs in runs.log; exits with the status STATUSES lists
    # for its run (STATUSES=1,0,1: run 1 exits 1, run 2 exits 0, ...).
    write_script("lint.rb", <<~RUBY)
      def check(i) = i.odd?
      File.open("runs.log", "a") { |f| f.puts $$ }
      run = File.readlines("runs.log").size
      30.times { |i| check(i) }
      exit ENV.fetch("STATUSES").split(",").fetch(run - 1).to_i
    RUBY
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def runs_logged = File.readlines(File.join(@dir, "runs.log")).size

  def test_runs_go_on_after_an_ok_status_and_the_command_exits_with_the_last
    _, err, status = tracegraph("--runs", "3", "--ok-status", "0,1", "-o", "m.json", "lint.rb",
                                env: {"STATUSES" => "1,1,1"})
    assert_equal 1, status.exitstatus, err
    assert_equal 3, runs_logged
    refute_match(/did not succeed/, err)
    profile = Tracegraph::Profile.load_json(File.join(@dir, "m.json"))
    assert_equal 3, profile.runs.count
    assert_equal [30, 30, 30], profile.runs.calls("Object#check")
    assert_match(/tracegraph: 3 runs, median total wall time/, err)
  end

  def test_the_last_runs_status_is_the_commands_even_after_others
    _, err, status = tracegraph("--runs", "3", "--ok-status", "1", "-o", "m.json", "lint.rb",
                                env: {"STATUSES" => "1,1,0"})
    assert_equal 0, status.exitstatus, err
    assert_equal 3, runs_logged
    _, err, status = tracegraph("--runs", "2", "--ok-status", "1", "-o", "m.json", "lint.rb",
                                env: {"STATUSES" => "9,9,9,0,1"})
    assert_equal 1, status.exitstatus, "0 is always ok; the last run exited 1: #{err}"
    assert_equal 5, runs_logged
  end

  def test_a_status_not_listed_still_stops_the_runs_and_says_how_to_go_on
    _, err, status = tracegraph("--runs", "4", "--ok-status", "0,1", "-o", "m.json", "lint.rb",
                                env: {"STATUSES" => "1,7,0,0"})
    assert_equal 7, status.exitstatus, err
    assert_equal 2, runs_logged
    assert_match(/run 2 of 4 did not succeed \(exit status 7\); stopping \(if the script ends so by design, --ok-status 0,1,7 lets the runs go on\)/, err)
    assert_equal 2, Tracegraph::Profile.load_json(File.join(@dir, "m.json")).runs.count

    _, err, status = tracegraph("--runs", "3", "-o", "m.json", "lint.rb", env: {"STATUSES" => "0,0,0,0,1"}) # runs 3 to 5
    assert_equal 1, status.exitstatus, err
    assert_match(/run 3 of 3 did not succeed \(exit status 1\); stopping \(if the script ends so by design, --ok-status 0,1 lets the runs go on\)/, err)
  end

  def test_a_signal_stops_the_runs_whatever_the_statuses
    write_script("killed.rb", "Process.kill(:TERM, $$); sleep 1")
    _, err, status = tracegraph("--runs", "3", "--ok-status", "0,1,143", "-o", "m.json", "killed.rb")
    assert_equal Signal.list["TERM"], status.termsig, err
    assert_match(/run 1 of 3 did not succeed \(killed by TERM\); stopping\n/, err)
  end

  def test_bad_statuses_are_refused_before_any_run
    ["x", "1,,2", "256", "-1", "1.5", ""].each do |list|
      _, err, status = tracegraph("--runs", "2", "--ok-status", list, "-o", "m.json", "lint.rb",
                                  env: {"STATUSES" => "0,0"})
      assert_equal 2, status.exitstatus, "#{list.inspect}: #{err}"
      assert_match(/--ok-status/, err)
      refute File.exist?(File.join(@dir, "runs.log")), "#{list.inspect} ran the script"
    end
  end
end

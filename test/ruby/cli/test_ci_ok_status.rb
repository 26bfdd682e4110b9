require_relative "../test_helper"
require_relative "../cli_helper"

# examples/ci/profile.sh with OK_STATUS: a program that exits 1 by design
# (a linter that found offenses) is profiled over every run and gated.
class TestCiOkStatus < Minitest::Test
  include CliHelper

  PROFILE_SH = File.join(ROOT, "examples/ci/profile.sh")

  def setup
    @dir = Dir.mktmpdir("tracegraph-ci-ok-status")
    # `tracegraph` on PATH, from this checkout.
    bin = File.join(@dir, "bin")
    Dir.mkdir(bin)
    File.write(File.join(bin, "tracegraph"), "#!/bin/sh\nexec #{RbConfig.ruby} -I#{LIB} #{EXE} \"$@\"\n")
    File.chmod(0o755, File.join(bin, "tracegraph"))
    @env = {"PATH" => "#{bin}:#{ENV.fetch('PATH')}", "RUNS" => "3", "CLOCK" => "cpu", "FAIL_ON_CALLS" => "0"}
    write_script("lint.rb", <<~RUBY)
      def offense?(i) = i % 7 == 0
      File.open("runs.log", "a") { |f| f.puts $$ }
      found = (1..(70 + ENV["MORE"].to_i)).count { |i| offense?(i) }
      warn "\#{found} offenses"
      exit 1
    RUBY
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def profile_sh(*args, env: {})
    Open3.capture2e(@env.merge(env), PROFILE_SH, "lint.rb", *args, chdir: @dir)
  end

  def test_runs_go_on_and_the_gate_runs_after_a_status_by_design
    out, status = profile_sh("base", env: {"OK_STATUS" => "0,1"})
    assert_equal 0, status.exitstatus, out
    assert_equal 3, File.readlines(File.join(@dir, "runs.log")).size
    assert_equal 3, Tracegraph::Profile.load_json(File.join(@dir, "base/call_graph.json")).runs.count

    out, status = profile_sh("head", "base/call_graph.json", env: {"OK_STATUS" => "0,1"})
    assert_equal 0, status.exitstatus, out
    assert_match(/method checks, 0 failed \(3 and 3 runs\)/, out)

    out, status = profile_sh("more", "base/call_graph.json", env: {"OK_STATUS" => "0,1", "MORE" => "7"})
    assert_equal 3, status.exitstatus, out
    assert_match(/calls of Object#offense\? 70 -> 77, \+10\.0%: more than the allowed ±0%: FAILED/, out)
  end

  def test_without_ok_status_the_first_run_stops_and_its_status_ends_the_script
    out, status = profile_sh("base")
    assert_equal 1, status.exitstatus, out
    assert_equal 1, File.readlines(File.join(@dir, "runs.log")).size
    assert_match(/run 1 of 3 did not succeed \(exit status 1\); stopping \(if the script ends so by design, --ok-status 0,1/, out)
  end
end

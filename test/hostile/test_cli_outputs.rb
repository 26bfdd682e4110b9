require_relative "../ruby/test_helper"
require_relative "../ruby/cli_helper"
require "tracegraph/output/output"

# Where the command's outputs go, whatever the script does: change
# directory, fork without a block, get killed by a signal, or be given an
# output name that looks like an option of Graphviz's.
class TestCliOutputs < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-outputs")
    @elsewhere = Dir.mktmpdir("tracegraph-elsewhere")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    FileUtils.rm_rf(@elsewhere)
  end

  def test_a_script_that_changes_directory_does_not_move_the_outputs
    script = write_script("chdir.rb", "def work = 1\nDir.chdir(#{@elsewhere.dump})\nwork\n")
    _, err, status = tracegraph("-o", "out.json", script)
    assert status.success?, err
    assert_equal 1, Tracegraph::Profile.load_json(File.join(@dir, "out.json"))["Object#work"].calls
    refute File.exist?(File.join(@elsewhere, "out.json"))
    assert_includes err, "wrote out.json" # as typed, in the directory it was typed in
  end

  def test_autorun_resolves_its_output_before_the_program_changes_directory
    script = write_script("chdir.rb", "def work = 1\nDir.chdir(#{@elsewhere.dump})\nwork\n")
    _, err, status = ruby("-rtracegraph/autorun", script, env: {"TRACEGRAPH_OUTPUT" => "auto.json"})
    assert status.success?, err
    assert File.exist?(File.join(@dir, "auto.json")), err
    refute File.exist?(File.join(@elsewhere, "auto.json"))
  end

  def test_a_child_forked_without_a_block_writes_its_own_file
    script = write_script("fork.rb", <<~RUBY)
      def in_parent = 1
      def in_child = 2
      if (pid = fork)
        Process.wait(pid)
        in_parent
      else
        in_child
      end
    RUBY
    _, err, status = tracegraph("-o", "f.json", script)
    assert status.success?, err
    parent = Tracegraph::Profile.load_json(File.join(@dir, "f.json"))
    assert parent["Object#in_parent"], "the parent's file holds the parent's profile"
    refute parent["Object#in_child"]
    children = Dir[File.join(@dir, "f.*.json")]
    assert_equal 1, children.size, err
    child = Tracegraph::Profile.load_json(children.first)
    assert child["Object#in_child"]
    refute child["Object#in_parent"]
  end

  # As under plain ruby, the process dies by the signal (a shell shows
  # 143), after the profile is written.
  def test_a_script_killed_by_sigterm_dies_by_it_with_the_profile_written
    script = write_script("term.rb", "def work = 1\nwork\nProcess.kill(:TERM, Process.pid)\nsleep 5\n")
    _, err, status = tracegraph("-o", "t.json", script)
    _, _, plain = ruby(script)
    assert_equal [Signal.list["TERM"], nil], [plain.termsig, plain.exitstatus], "plain ruby"
    assert_equal [plain.termsig, plain.exitstatus], [status.termsig, status.exitstatus], err
    assert_equal 1, Tracegraph::Profile.load_json(File.join(@dir, "t.json"))["Object#work"].calls
  end

  def test_an_output_named_like_a_graphviz_option_is_a_file
    skip "Graphviz's dot is not installed" unless system("dot", "-V", err: File::NULL)
    script = write_script("app.rb", "def work = 1\nwork\n")
    _, err, status = tracegraph("-o", "-Kfoo.svg", script)
    assert status.success?, err
    assert_includes File.read(File.join(@dir, "-Kfoo.svg")), "<svg"
  end

  def test_a_failing_output_does_not_stop_the_ones_after_it
    script = write_script("app.rb", "def work = 1\nwork\n")
    _, err, status = tracegraph("-o", "a.svg", "-o", "a.json", script, env: {"PATH" => path_without_dot})
    assert_equal 1, status.exitstatus, err
    assert_match(/dot` is not installed/, err)
    assert_equal 1, Tracegraph::Profile.load_json(File.join(@dir, "a.json"))["Object#work"].calls
  end

  def test_a_failing_output_fails_a_run_that_ends_with_exit_bang
    script = write_script("bang.rb", "def work = 1\nwork\nexit!(0)\n")
    _, err, status = tracegraph("-o", "a.svg", "-o", "a.json", script, env: {"PATH" => path_without_dot})
    assert_equal 1, status.exitstatus, err
    assert_equal 1, Tracegraph::Profile.load_json(File.join(@dir, "a.json"))["Object#work"].calls
    script = write_script("bang7.rb", "exit!(7)\n")
    _, err, status = tracegraph("-o", "b.svg", script, env: {"PATH" => path_without_dot})
    assert_equal 7, status.exitstatus, "the script's own failure stands: #{err}"
  end

  def test_messages_show_control_characters_escaped
    script = write_script("app.rb", "def work = 1\nwork\n")
    _, err, status = tracegraph("-o", "x\e[2Jy.json", script)
    assert status.success?, err
    assert_includes err, "x\\e[2Jy.json"
    refute_includes err, "\e"
  end

  def test_an_unwritable_directory_is_refused_before_the_script_runs
    script = write_script("app.rb", "puts :ran\n")
    out, err, status = tracegraph("-o", "/proc/x.svg", script)
    assert_equal 2, status.exitstatus, err
    refute_includes out, "ran"
    assert_match(%r{\Atracegraph: cannot write /proc/x.svg: }, err)
    assert_equal 1, err.lines.size, err
  end

  # The directory is fine, the name is not: only creating the file itself
  # finds out, and that is done before the script runs.
  def test_a_name_the_file_system_refuses_is_refused_before_the_script_runs
    script = write_script("app.rb", "puts :ran\n")
    long = "#{'x' * 300}.json"
    out, err, status = tracegraph("-o", long, script)
    assert_equal [2, ""], [status.exitstatus, out], err
    assert_match(/\Atracegraph: cannot write .*x{300}\.json: File name too long\n\z/, err)

    # A FIFO is written to (test_output_streams.rb); the .dot an svg keeps
    # beside it cannot be one.
    File.mkfifo(File.join(@dir, "pipe.dot"))
    out, err, status = tracegraph("-o", "pipe.svg", script)
    assert_equal [2, ""], [status.exitstatus, out], "the .dot an svg is drawn from is checked too: #{err}"
    assert_match(/cannot write .*pipe\.dot: it is not a regular file/, err)
  end

  def test_checking_a_path_leaves_no_file_and_keeps_an_earlier_one
    fresh = File.join(@dir, "fresh.json")
    Tracegraph::Output.check_path(fresh)
    refute File.exist?(fresh), "a run that dies leaves no empty file behind"
    earlier = File.join(@dir, "earlier.json")
    File.write(earlier, "the last run's profile")
    Tracegraph::Output.check_path(earlier)
    assert_equal "the last run's profile", File.read(earlier), "not truncated before the new profile replaces it"
  end
end

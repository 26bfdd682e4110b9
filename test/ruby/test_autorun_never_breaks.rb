require_relative "test_helper"
require_relative "cli_helper"

# tracegraph/autorun never changes how the program it profiles ends: the
# output's directory is created, an output that cannot be written is a
# warning, and each message says which process wrote which file.
class TestAutorunNeverBreaks < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-autorun-never-breaks")
    @app = write_script("app.rb", "def work = 1\n3.times { work }\nexit 3\n")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def path(name) = File.join(@dir, name)

  # As `RUBYOPT=-rtracegraph/autorun TRACEGRAPH_OUTPUT=... rake test` starts every Ruby.
  def autorun(output, *command)
    Open3.capture3({"RUBYOPT" => "-I#{LIB} -rtracegraph/autorun", "TRACEGRAPH_OUTPUT" => output,
                    "TRACEGRAPH_RUN" => nil}, RbConfig.ruby, *command, chdir: @dir)
  end

  def test_the_outputs_directory_is_created_and_the_programs_status_kept
    _, err, status = autorun("tmp/deep/tests.json", "app.rb")
    assert_equal 3, status.exitstatus, err
    assert_equal 3, Tracegraph::Profile.load_json(path("tmp/deep/tests.json"))["Object#work"].calls
    assert_equal "tracegraph: wrote tmp/deep/tests.json (pid #{err[/pid (\d+)/, 1]}: ruby app.rb)\n", err
  end

  def test_an_output_that_cannot_be_written_is_a_warning_and_the_program_runs
    File.write(path("afile"), "")
    {
      "afile/g.json" => %r{\Atracegraph/autorun: cannot write afile/g.json: cannot create its directory \(afile is not a directory\)},
      "/proc/g.json" => %r{\Atracegraph/autorun: cannot write /proc/g.json: cannot create files in /proc},
      "g.gif" => %r{\Atracegraph/autorun: cannot write g.gif: unknown format \.gif}
    }.each do |output, message|
      out, err, status = autorun(output, "-e", "puts :ran; exit 4", "one", "two")
      assert_equal 4, status.exitstatus, err
      assert_equal "ran\n", out
      assert_match message, err
      assert_match(/; running without profiling \(pid \d+: ruby -e one two\)\n\z/, err)
      assert_equal 1, err.lines.size, err
    end
    assert_equal ["afile", "app.rb"], Dir.children(@dir).sort, "nothing written, no directory for a bad name"
  end

  # The directory is there as the program starts, and gone when it ends.
  def test_a_profile_that_fails_to_write_at_the_end_is_a_warning
    write_script("cleaner.rb", "require 'fileutils'\nFileUtils.rm_rf('out')\n")
    _, err, status = autorun("out/g.json", "cleaner.rb")
    assert status.success?, err
    assert_match(%r{\Atracegraph: cannot write out/g.json: directory out does not exist \(pid \d+: ruby cleaner.rb\)\n\z}, err)
  end

  # rake's own profile is in tests.json, the tests' in tests.PID.json: each
  # message names its process, with its program and first arguments.
  def test_each_message_names_its_process
    write_script("runner.rb", <<~RUBY)
      system(RbConfig.ruby, "tests.rb", "test/a_test.rb", "test/b_test.rb", "test/c_test.rb", "test/d_test.rb",
             "test/e_test.rb") or abort "tests.rb failed"
      puts Process.pid
    RUBY
    write_script("tests.rb", "ARGV.clear\nputs Process.pid\n") # as rake's test loader empties ARGV
    out, err, status = autorun("tests.json", "runner.rb", "test")
    assert status.success?, err
    tests_pid, runner_pid = out.split.map(&:to_i)
    assert_equal "tracegraph: wrote tests.#{tests_pid}.json (pid #{tests_pid}: ruby tests.rb " \
                 "test/a_test.rb test/b_test.rb test/c_test.rb (+2 more))\n" \
                 "tracegraph: wrote tests.json (pid #{runner_pid}: ruby runner.rb test)\n", err
  end

  def test_a_program_name_without_rb_is_shown_as_is
    bin = write_script("rake", "#!#{RbConfig.ruby}\nputs :rake\n")
    File.chmod(0o755, bin)
    _, err, status = autorun("r.json", bin, "test", "TESTOPTS=#{'x' * 50}")
    assert status.success?, err
    assert_match(/ \(pid \d+: rake test TESTOPTS=x{30}\.\.\.\)\n\z/, err)
  end
end

require_relative "../test_helper"
require_relative "../cli_helper"
require "tmpdir"

# Under `bundle exec` (here ruby -rbundler/setup, which does the same in
# the process), Bundler's setup has run before tracegraph starts, so a
# program that sets the bundle up itself (bin/rails) finds it done and
# that work is not in the profile: the command says so, once, also with
# --runs, whose runs are processes of their own.
class TestCliBundlerSetup < TracegraphTest
  include CliHelper

  NOTE = "tracegraph: Bundler's setup ran before tracegraph started (bundle exec, or -rbundler/setup), so it is " \
         "not in the profile; to have it there, run tracegraph without bundle exec (docs/rails.md)\n".freeze

  def setup
    @dir = Dir.mktmpdir("tracegraph-bundler")
    File.write(File.join(@dir, "Gemfile"), "") # no gems: Bundler resolves it without a network
    write_script("app.rb", "x = 1\n")
    @env = {"BUNDLE_GEMFILE" => File.join(@dir, "Gemfile")}
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def test_a_bundle_set_up_before_the_start_is_said_once
    _, err, status = ruby("-rbundler/setup", EXE, "-o", "a.json", "app.rb", env: @env)
    skip "Bundler does not set up here: #{err}" if !status.success? && err.include?("bundler")
    assert status.success?, err
    assert_equal [NOTE], err.lines.grep(/Bundler's setup/)
    _, err, status = ruby("-rbundler/setup", EXE, "--runs", "2", "-o", "r.json", "app.rb", env: @env)
    assert status.success?, err
    assert_equal [NOTE], err.lines.grep(/Bundler's setup/), "once, not once a run"
  end

  def test_without_bundler_nothing_is_said
    _, err, status = tracegraph("-o", "a.json", "app.rb", env: @env)
    assert status.success?, err
    assert_empty err.lines.grep(/Bundler/)
  end
end

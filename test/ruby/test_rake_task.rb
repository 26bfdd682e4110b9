require_relative "test_helper"
require_relative "cli_helper"
require "tracegraph/rake_task"

class TestRakeTask < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-rake")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_the_task_profiles_the_script_into_the_output
    write_script("app.rb", "def hello = ARGV.first\nhello\n")
    write_script("Rakefile", <<~RUBY)
      require "tracegraph/rake_task"
      Tracegraph::RakeTask.new(:profile) do |t|
        t.script = "app.rb"
        t.args = ["world"]
        t.output = "tmp/graphs/call_graph.json"
        t.clock = :cpu
      end
    RUBY
    out, err, status = Open3.capture3(RbConfig.ruby, "-I#{CliHelper::LIB}", "-S", "rake", "-T", chdir: @dir)
    assert status.success?, err
    assert_match(%r{rake profile\s+# Profile app.rb into tmp/graphs/call_graph.json}, out)
    _, err, status = Open3.capture3(RbConfig.ruby, "-I#{CliHelper::LIB}", "-S", "rake", "profile", chdir: @dir)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "tmp/graphs/call_graph.json"))
    assert_equal 1, profile["Object#hello"].calls
    assert_equal :cpu, profile.clock
  end

  # c_calls as Tracegraph.start takes it: true, false or :all.
  def test_c_calls_become_the_commands_flags
    flags = {true => [], false => ["--no-c-calls"], :all => ["--all-c-calls"]}
    flags.each do |c_calls, expected|
      task = Tracegraph::RakeTask.new(:"profile_#{c_calls}") do |t|
        t.script = "app.rb"
        t.c_calls = c_calls
      end
      assert_equal expected, task.command & %w[--no-c-calls --all-c-calls], c_calls.inspect
    end
  end

  def test_a_script_is_required
    assert_raises(ArgumentError) { Tracegraph::RakeTask.new(:nothing) }
  end
end

require_relative "test_helper"
require "open3"
require "rbconfig"

# Tracegraph.watch_for_rails_app, the TracePoint(:class) that installs the
# Railtie when tracegraph is loaded before Rails (test_rails.rb has it in
# a Rails app): outside Rails, a plain require installs nothing, and the
# entry points that profile a whole process watch only while they profile.
# Each case runs in a Ruby of its own, since the watch is process-wide.
class TestRailsWatch < Minitest::Test
  LIB = File.expand_path("../../lib", __dir__)
  EXE = File.expand_path("../../exe/tracegraph", __dir__)
  # Every enabled TracePoint in the process, ours or not.
  ENABLED = "ObjectSpace.each_object(TracePoint).count(&:enabled?)"

  def ruby(*args, env: {})
    out, err, status = Open3.capture3(env, RbConfig.ruby, "-I", LIB, *args)
    assert status.success?, err
    [out, err]
  end

  def test_a_plain_require_installs_nothing
    out, = ruby("-rtracegraph", "-e", "p [Tracegraph.watching_for_rails_app?, #{ENABLED}]")
    assert_equal "[false, 0]\n", out
  end

  def test_the_watch_ends_with_the_profile
    out, = ruby("-rtracegraph", "-e", <<~RUBY)
      Tracegraph.watch_for_rails_app
      Tracegraph.start
      during = [Tracegraph.watching_for_rails_app?, #{ENABLED}]
      Tracegraph.stop
      p during + [Tracegraph.watching_for_rails_app?, #{ENABLED}]
    RUBY
    assert_equal "[true, 1, false, 0]\n", out
  end

  def test_autorun_watches_while_it_profiles
    Dir.mktmpdir("tracegraph-rails-watch") do |dir|
      output = File.join(dir, "p.json")
      out, = ruby("-rtracegraph/autorun", "-e", <<~RUBY, env: {"TRACEGRAPH_OUTPUT" => output})
        p [Tracegraph.watching_for_rails_app?, #{ENABLED}]
        at_exit { p [Tracegraph.running?, Tracegraph.watching_for_rails_app?, #{ENABLED}] }
      RUBY
      # (then autorun stops the profile, and with it the watch, as
      # test_the_watch_ends_with_the_profile shows)
      assert_equal "[true, 1]\n[true, true, 1]\n", out
      assert File.size(output).positive?
    end
  end

  def test_the_command_watches_while_it_profiles
    Dir.mktmpdir("tracegraph-rails-watch") do |dir|
      script = File.join(dir, "s.rb")
      File.write(script, "p [Tracegraph.watching_for_rails_app?, #{ENABLED}]\n")
      out, = ruby(EXE, "-o", File.join(dir, "p.json"), script)
      assert_equal "[true, 1]\n", out
    end
  end
end

require_relative "../test_helper"
require "open3"
require "rbconfig"
require "tmpdir"

# Each format loads at its first use (formats/registry.rb): require
# "tracegraph" keeps them out of a small program's heap. A signal handler
# cannot load code, so a stop loads them all once the hook is off, and a
# start does in a big heap, where a server stops in trap("USR2").
# Each case runs in a fresh ruby, whose loaded files are its own.
class TestFormatsLoading < Minitest::Test
  LIB = File.expand_path("../../../lib", __dir__)

  # Runs code after require "tracegraph"; `handle { ... }` runs the block
  # in a USR1 handler and returns what it returned, or the error's class
  # and message. Returns the child's stdout lines.
  def child(code, before: "")
    script = <<~RUBY
      #{before}
      require "tracegraph"
      def handle
        r, w = IO.pipe
        trap("USR1") do
          w.puts(begin; yield; rescue StandardError, ThreadError => e; "\#{e.class}: \#{e.message}"; end)
        end
        Process.kill("USR1", $$)
        r.gets.chomp
      end
      #{code}
    RUBY
    out, err, status = Open3.capture3(RbConfig.ruby, "-I", LIB, "-e", script, chdir: @dir)
    assert status.success?, err
    out.lines.map(&:chomp)
  end

  def setup = @dir = Dir.mktmpdir("tracegraph-formats-loading")
  def teardown = FileUtils.rm_rf(@dir)

  def test_require_loads_no_format_and_a_stop_loads_them_all
    lines = child(<<~RUBY)
      puts Tracegraph::Formats.autoload?(:Json) ? "json waits" : "json loaded"
      puts defined?(::JSON) ? "JSON loaded" : "no JSON"
      Tracegraph.start
      puts Tracegraph::Formats.autoload?(:Html) ? "html waits" : "html loaded"
      Tracegraph.stop
      puts Tracegraph::Formats.autoload?(:Html) ? "html waits" : "html loaded"
    RUBY
    assert_equal ["json waits", "no JSON", "html waits", "html loaded"], lines
  end

  def test_a_profile_stopped_in_a_signal_handler_after_a_first_stop_is_written_there
    lines = child(<<~RUBY)
      Tracegraph.profile { 1 }
      Tracegraph.start
      [3, 1, 2].sort
      puts handle { profile = Tracegraph.stop; profile.write_json("p.json"); profile.write_html("p.html", graph: false); "written" }
      puts Tracegraph::Profile.load_json("p.json")["Array#sort"].calls
    RUBY
    assert_equal %w[written 1], lines
    assert File.size?(File.join(@dir, "p.html"))
  end

  def test_a_big_program_stopped_in_a_signal_handler_writes_there
    lines = child(<<~RUBY, before: "$kept = Array.new(150_000) { Object.new }")
      Tracegraph.start
      [3, 1, 2].sort
      puts handle { Tracegraph.stop.write_json("p.json") }
      puts Tracegraph::Profile.load_json("p.json")["Array#sort"].calls
    RUBY
    assert_equal %w[p.json 1], lines
  end

  # A small program's first stop, in the handler: no format can load
  # there. The error says so and what to do, and the profile is kept.
  def test_a_format_that_cannot_load_in_a_signal_handler_says_why
    lines = child(<<~RUBY)
      Tracegraph.start
      [3, 1, 2].sort
      $profile = nil
      puts handle { $profile = Tracegraph.stop; $profile.write_json("p.json") }
      $profile.write_json("p.json")
      puts Tracegraph::Profile.load_json("p.json")["Array#sort"].calls
    RUBY
    assert_equal ["Tracegraph::Error: the Json format cannot load inside a signal handler (Ruby loads no code " \
                  "there): stop the profile outside the handler, or stop any profile once before (that loads " \
                  "every format)", "1"], lines
  end
end

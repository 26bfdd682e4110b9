require_relative "../test_helper"
require_relative "../cli_helper"

class TestCli < Minitest::Test
  include ProfileAssertions
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-cli")
    @script = write_script("app.rb", <<~RUBY)
      def work(n) = (0...n).map { |i| i * i }
      def main(args)
        $stdout.puts "program=\#{$0} args=\#{args.inspect}"
        [1, 2, 3].each { work(100) }
      end
      main(ARGV)
    RUBY
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_every_output_format
    %w[dot json txt folded pdf svg png].each do |format|
      out, err, status = tracegraph("-o", "graph.#{format}", @script, "a", "b")
      assert status.success?, err
      assert_equal "program=#{@script} args=[\"a\", \"b\"]\n", out
      path = File.join(@dir, "graph.#{format}")
      assert File.size?(path), "#{format} not written"
      assert_match(/wrote .*graph\.#{format}/, err)
      case format
      when "json"
        profile = Tracegraph::Profile.load_json(path)
        assert_equal 3, profile["Object#work"].calls
        assert_equal 1, profile["Object#main"].calls
        assert profile.edges.none? { |e| e.callee.name == "Object#main" }, "the script's own methods are the roots"
        refute profile["Kernel#load"], "the CLI's load of the script is not profiled"
      when "txt" then assert_match(/Object#work/, File.read(path))
      when "folded"
        blocks = "Object#main;Array#each;block in Object#main;Object#work;Enumerable#map;Range#each;block in Object#work"
        assert_match(/^#{blocks} \d+$/, File.read(path))
      when "pdf" then assert_equal "%PDF", File.binread(path, 4)
      when "png" then assert_equal "\x89PNG".b, File.binread(path, 4)
      when "svg" then assert_includes File.read(path), "Object#work"
      end
    end
  end

  def test_default_output_and_options
    _, err, status = tracegraph("--clock", "cpu", "--no-c-calls", "--no-gc", "--no-blocks", "--max-nodes", "2", "--flat",
                                @script)
    assert status.success?, err
    dot = File.read(File.join(@dir, "call_graph.dot"))
    assert_match(/Clock: cpu/, dot)
    # main and work: no C methods, no blocks (and Array#each where it is Ruby).
    assert_match(/Showing 2 of #{Array.instance_method(:each).source_location ? 3 : 2} methods/, dot)
    assert_match(/calls\s+self\s+total/, err)
  end

  def test_no_gc
    _, err, status = tracegraph("--no-gc", "-o", "gc.json", "-e", "def collect = GC.start; collect")
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "gc.json"))
    assert_equal 1, profile["Object#collect"].calls
    assert_nil profile[Tracegraph::Profile::GC_NODE]
    _, err, status = tracegraph("-o", "gc.json", "-e", "def collect = GC.start; collect")
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "gc.json"))
    assert_operator profile.edge("GC.start", Tracegraph::Profile::GC_NODE).calls, :>=, 1
    assert_operator profile.gc.runs, :>=, 1
  end

  def test_dash_e
    out, err, status = tracegraph("-o", "e.json", "-e", "def hi = 42; puts hi")
    assert status.success?, err
    assert_equal "42\n", out
    assert_equal 1, Tracegraph::Profile.load_json(File.join(@dir, "e.json"))["Object#hi"].calls
  end

  def test_the_profile_is_written_when_the_script_raises_or_exits
    raiser = write_script("raiser.rb", "def boom = raise(ArgumentError, 'no')\nboom\n")
    _, err, status = tracegraph("-o", "r.json", raiser)
    assert_equal 1, status.exitstatus
    # Ruby 3.4 quotes 'Object#boom' where 3.1 and 3.3 quote `boom'.
    assert_match(/raiser.rb:1:in [`'](Object#)?boom': no \(ArgumentError\)/, err)
    assert_equal 1, Tracegraph::Profile.load_json(File.join(@dir, "r.json"))["Object#boom"].calls

    exiter = write_script("exiter.rb", "def leave = exit(7)\nleave\n")
    _, err, status = tracegraph("-o", "x.json", exiter)
    assert_equal 7, status.exitstatus, err
    assert_equal 1, Tracegraph::Profile.load_json(File.join(@dir, "x.json"))["Object#leave"].calls

    aborter = write_script("aborter.rb", "abort 'bye'\n")
    _, err, status = tracegraph("-o", "a.json", aborter)
    assert_equal 1, status.exitstatus
    assert_match(/bye/, err)
    assert File.exist?(File.join(@dir, "a.json"))
  end

  # A script that profiles part of itself with the API runs under the
  # command as under ruby: its start, stop and profile are refused with
  # advice (said once), give empty profiles, and leave the command's own
  # recording, which holds that part too, running to the end.
  def test_a_script_that_uses_the_api_runs_under_the_command
    write_script("api.rb", <<~RUBY)
      require "tracegraph"
      def part = (1..300).each { |i| i.to_s }
      inner = Tracegraph.profile { part }
      Tracegraph.start
      part
      again = Tracegraph.stop
      inner.write_json("inner.json")
      puts [inner.methods.size, again.methods.size, Tracegraph.running?].inspect
    RUBY
    out, err, status = tracegraph("-o", "whole.json", "api.rb")
    assert status.success?, err
    assert_equal "[0, 0, true]\n", out, "empty profiles, and the command's recording goes on"
    assert_equal ["tracegraph: Tracegraph.profile (api.rb:3) was not started: tracegraph is profiling the whole " \
                  "program already, and its profile holds these calls too; the program goes on, and this profile " \
                  "comes back empty. To profile only this part, run the program with ruby, not tracegraph, or give " \
                  "tracegraph --focus METHOD\n", "tracegraph: wrote whole.json\n"], err.lines
    whole = Tracegraph::Profile.load_json(File.join(@dir, "whole.json"))
    assert_equal 2, whole["Object#part"].calls
    assert_equal 600, whole["block in Object#part"].calls
    assert_equal 0, Tracegraph::Profile.load_json(File.join(@dir, "inner.json")).methods.size
  end

  def test_usage_errors_are_one_line_with_status_2
    cases = {
      ["missing.rb"] => /no such file: missing.rb/,
      ["--bogus", @script] => /invalid option: --bogus/,
      ["--clock", "gpu", @script] => /invalid argument: --clock gpu/,
      ["-o", "graph.gif", @script] => /unknown format .gif/,
      ["-o", "nodir/graph.dot", @script] => %r{cannot write nodir/graph.dot: directory nodir does not exist},
      ["--node-fraction", "7", @script] => /node_fraction must be a number from 0 to 1/,
      [] => /no script given/
    }
    cases.each do |args, message|
      out, err, status = tracegraph(*args)
      assert_equal 2, status.exitstatus, "#{args.inspect}: #{err}"
      assert_match message, err
      assert_equal 1, err.lines.size, "one line for #{args.inspect}: #{err}"
      assert_empty out
    end
  end

  # A .json "script" is a saved profile given by mistake: it is never run
  # as Ruby (this one would print), and the error points at render.
  def test_a_json_file_given_as_the_script_points_at_render
    json = write_script("profile.json", "puts :ran_as_ruby\n")
    upper = write_script("SAVED.JSON", "puts :ran_as_ruby\n")
    [[json, "profile.json"], [upper, "SAVED.JSON"]].each do |script, name|
      out, err, status = tracegraph("-o", "g.svg", script)
      assert_equal 2, status.exitstatus, err
      assert_empty out, "the JSON must not run as Ruby"
      assert_equal "tracegraph: #{script} is JSON, not a Ruby script; to draw a saved profile: " \
                   "tracegraph render #{script} -o graph.svg\n", err, name
    end
    refute File.exist?(File.join(@dir, "g.svg"))
    # Only the extension counts: a Ruby script that mentions JSON runs.
    ruby_script = write_script("to.json.rb", "puts :ran\n")
    out, err, status = tracegraph("-o", "g.json", ruby_script)
    assert status.success?, err
    assert_equal "ran\n", out
  end

  def test_missing_dot_keeps_the_dot_file_and_says_where
    _, err, status = tracegraph("-o", "g.pdf", @script, env: {"PATH" => path_without_dot})
    assert_equal 1, status.exitstatus
    assert_match(/Graphviz.s `dot` is not installed.*the call graph is in g.dot$/, err)
    assert File.size?(File.join(@dir, "g.dot"))
  end

  def test_help_and_version
    out, _, status = tracegraph("--help")
    assert status.success?
    assert_match(/Usage: tracegraph \[options\] script.rb/, out)
    assert_match(/--no-c-calls/, out)
    assert_match(/--no-gc/, out)
    assert_includes out, ".callgrind .pb.gz .speedscope.json .firefox.json .html .pdf .svg .png or callgrind.out[.NAME]"
    out, _, status = tracegraph("--version")
    assert status.success?
    assert_equal "tracegraph #{Tracegraph::VERSION}\nrecording: #{Tracegraph::FrameProbe.verdict(expected_probe_verdict)}\n", out
  end
end

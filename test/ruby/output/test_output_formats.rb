require_relative "../test_helper"
require_relative "../cli_helper"
require "tracegraph/output/output"

# Which format an output's name asks for, and which names are refused
# before anything runs: other tools' formats and compressed files must
# not silently get tracegraph's own JSON.
class TestOutputFormats < Minitest::Test
  include CliHelper

  Output = Tracegraph::Output

  def setup
    @dir = Dir.mktmpdir("tracegraph-formats")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_the_name_picks_the_format
    {
      "g.dot" => :dot, "g.json" => :json, "g.txt" => :text, "g.folded" => :folded, "g.pdf" => :rendered,
      "g.svg" => :rendered, "G.PNG" => :rendered, "g.callgrind" => :callgrind,
      "profile.pb.gz" => :pprof, "P.PB.GZ" => :pprof, "x.speedscope.json" => :speedscope, "x.firefox.json" => :firefox,
      "callgrind.out" => :callgrind, "callgrind.out.app" => :callgrind, "out/callgrind.out.12345" => :callgrind,
      # Innocent dots before a known extension are just part of the name.
      "profile.2024-05-01.json" => :json, "run.v2.json" => :json, "my.app.svg" => :rendered, "v1.2/g.dot" => :dot
    }.each { |path, format| assert_equal format, Output.format_of(path), path }
  end

  def test_unknown_compound_and_compressed_names_are_refused_naming_the_suffix
    {
      "x.vernier.json" => ".vernier.json", "x.pb.xz" => ".pb.xz",
      "x.pprof" => ".pprof", "x.cpuprofile" => ".cpuprofile", "x.gz" => ".gz",
      "x.dot.xz" => ".dot.xz", "x.json.zst" => ".json.zst", "x.gif" => ".gif", "callgrind.outx" => ".outx",
      "notcallgrind.out" => ".out",
      # two formats in one name: the inner one is not what the outer writes
      "x.svg.json" => ".svg.json", "x.dot.json" => ".dot.json", "x.callgrind.json" => ".callgrind.json",
      "x.folded.txt" => ".folded.txt", "x.png.svg" => ".png.svg", "x.gecko.json" => ".gecko.json",
      "x.stackprof.json" => ".stackprof.json", "x.chrome.json" => ".chrome.json", "x.trace.json" => ".trace.json",
      "x.perfetto.json" => ".perfetto.json", "x.collapsed.txt" => ".collapsed.txt"
    }.each do |name, suffix|
      assert_nil Output.format_of(name), name
      error = assert_raises(Tracegraph::Error) { Output.check_path(File.join(@dir, name)) }
      assert_equal "cannot write #{File.join(@dir, name)}: unknown format #{suffix} " \
                   "(known: .dot .json .txt .folded .callgrind .pb.gz .speedscope.json .firefox.json .html .pdf .svg .png or callgrind.out[.NAME])", error.message
    end
    error = assert_raises(Tracegraph::Error) { Output.check_path(File.join(@dir, "graph")) }
    assert_match(/unknown format \(no extension\)/, error.message)
  end

  def test_innocent_dotted_names_pass_the_check
    %w[profile.2024-05-01.json run.v2.json callgrind.out callgrind.out.app x.callgrind my.app.svg
       call_graph.12345.2.pdf x.speedscope.json x.firefox.json x.pb.gz].each do |name|
      Output.check_path(File.join(@dir, name)) # raises if refused
      refute_nil Output.format_of(name), name
    end
  end

  def test_another_processs_name_keeps_the_format
    assert_equal "g/call_graph.77.pdf", Output.tagged_path("g/call_graph.pdf", 77)
    assert_equal "run.v2.77.json", Output.tagged_path("run.v2.json", 77)
    assert_equal "callgrind.out.77", Output.tagged_path("callgrind.out", 77)
    assert_equal "callgrind.out.app.77", Output.tagged_path("callgrind.out.app", 77)
    assert_equal "x.77.İ", Output.tagged_path("x.İ", 77), "a suffix whose lower case is longer"
    [%w[g/call_graph.pdf], %w[run.v2.json], %w[callgrind.out], %w[callgrind.out.app], %w[x.callgrind]].each do |(path)|
      assert_equal Output.format_of(path), Output.format_of(Output.tagged_path(path, 77)), path
    end
  end

  def test_the_command_refuses_a_foreign_format_before_the_script_runs
    script = write_script("app.rb", "puts :ran\n")
    %w[x.vernier.json x.json.xz x.pb.xz].each do |name|
      out, err, status = tracegraph("-o", name, script)
      assert_equal 2, status.exitstatus, err
      assert_empty out, "the script must not run"
      assert_match(/\Atracegraph: cannot write .*#{Regexp.escape(name)}: unknown format \.[a-z.]+ \(known: .*\)\n\z/, err)
      refute File.exist?(File.join(@dir, name))
    end
  end

  # callgrind_annotate reads what the command and autorun write.
  def test_callgrind_from_the_command_and_from_autorun
    script = write_script("app.rb", "def work = 300.times { 1 + 1 }\nwork\n")
    _, err, status = tracegraph("-o", "callgrind.out.app", "-o", "app.callgrind", script)
    assert status.success?, err
    _, err, status = ruby("-rtracegraph/autorun", script, env: {"TRACEGRAPH_OUTPUT" => "callgrind.out"})
    assert status.success?, err
    %w[callgrind.out.app app.callgrind callgrind.out].each do |name|
      text = File.read(File.join(@dir, name))
      assert text.start_with?("# callgrind format\n"), name
      assert_match(/^fn=\(\d+\) Object#work$/, text, name)
      next unless system("command -v callgrind_annotate > /dev/null 2>&1")

      out, err, status = Open3.capture3("callgrind_annotate", "--threshold=100", "--auto=no", name, chdir: @dir)
      assert status.success?, err
      assert_equal "", err, "callgrind_annotate warned on #{name}"
      assert_match(/Object#work$/, out, name)
    end
  end

  # gzip is the one compression written: .json.gz, .folded.gz and the
  # like are the format's bytes, gzipped, and load_json reads them back.
  def test_autorun_writes_a_gzip_output
    _, err, status = ruby("-rtracegraph/autorun", "-e", "def work = 7\n3.times { work }",
                          env: {"TRACEGRAPH_OUTPUT" => "g.json.gz"})
    assert status.success?, err
    assert_match(/\Atracegraph: wrote g\.json\.gz \(pid \d+: /, err)
    bytes = File.binread(File.join(@dir, "g.json.gz"))
    assert bytes.start_with?("\x1F\x8B".b), "gzip's magic number"
    assert_equal 3, Tracegraph::Profile.load_json(File.join(@dir, "g.json.gz"))["Object#work"].calls
  end

  def test_a_compressed_name_other_than_gzip_is_refused
    _, err, status = ruby("-rtracegraph/autorun", "-e", "1", env: {"TRACEGRAPH_OUTPUT" => "g.json.xz"})
    assert_equal 0, status.exitstatus, "a warning: the program runs, unprofiled"
    assert_match(/unknown format \.json\.xz/, err)
  end
end

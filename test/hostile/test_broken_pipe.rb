require_relative "../ruby/test_helper"
require_relative "../ruby/cli_helper"

# A reader that went away (`tracegraph --flat app.rb | head -3`) never
# costs a file: the outputs are written before anything is printed, the
# messages and the --flat table give up quietly, and a script that dies
# of the broken pipe ends as it would under plain ruby.
class TestBrokenPipe < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-pipe")
    @script = write_script("chatty.rb", <<~RUBY)
      $stdout.sync = true # the first puts meets the broken pipe
      def line(i) = "line \#{i}"
      10_000.times { |i| puts line(i) }
    RUBY
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # The write end of a pipe whose reader is gone before the program starts.
  def broken_pipe
    reader, writer = IO.pipe
    reader.close
    writer
  end

  # Runs command with the given streams closed at the far end; returns its
  # status and what it wrote to the streams left open.
  def run_with_broken(streams, *command, env: {})
    pipes = streams.to_h { |stream| [stream, broken_pipe] }
    log = File.join(@dir, "stream.log")
    redirects = %i[out err].to_h { |stream| [stream, pipes[stream] || [log, "a"]] }
    pid = Process.spawn(env, *command, chdir: @dir, **redirects)
    pipes.each_value(&:close)
    status = Process.wait2(pid).last
    [status, File.exist?(log) ? File.read(log) : ""]
  end

  def tracegraph_command(*args) = [RbConfig.ruby, "-I#{LIB}", EXE, *args]

  def assert_profiled(name, calls)
    assert_equal calls, Tracegraph::Profile.load_json(File.join(@dir, name))["Object#line"].calls
  end

  def test_a_script_that_dies_of_the_broken_pipe_ends_as_under_ruby_with_its_files
    plain, = run_with_broken(%i[out], RbConfig.ruby, @script)
    refute plain.success?, "plain ruby fails on the broken pipe"
    status, err = run_with_broken(%i[out], *tracegraph_command("--flat", "-o", "a.json", "-o", "a.txt", @script))
    assert_equal [plain.exitstatus, plain.termsig], [status.exitstatus, status.termsig], err
    assert_profiled("a.json", 1) # the first puts raised
    assert_match(/Object#line/, File.read(File.join(@dir, "a.txt")))
    assert_match(/calls\s+self\s+total/, err, "the --flat table still goes to stderr")
    assert_match(/wrote .*a\.json/, err)
  end

  # Ruby flushes stdout before it starts dot, and a flush of bytes still
  # buffered for a reader that is gone raises again each time.
  def test_output_still_buffered_for_a_gone_reader_costs_no_rendered_file
    buffered = write_script("buffered.rb", "def line(i) = \"line \#{i}\"\n10_000.times { |i| puts line(i) }\n")
    plain, = run_with_broken(%i[out], RbConfig.ruby, buffered)
    status, err = run_with_broken(%i[out], *tracegraph_command("--flat", "-o", "e.svg", "-o", "e.json", buffered))
    assert_equal [plain.exitstatus, plain.termsig], [status.exitstatus, status.termsig], err
    assert File.size?(File.join(@dir, "e.svg")), err
    assert_operator Tracegraph::Profile.load_json(File.join(@dir, "e.json"))["Object#line"].calls, :>, 0
    assert_match(/wrote .*e\.dot, .*e\.svg/, err)
  end

  def test_render_and_diff_print_to_a_gone_reader_and_still_write_every_file
    _, err, status = tracegraph("-o", "p.json", "-e", "def line(i) = i\n3.times { |i| line(i) }")
    assert status.success?, err
    status, err = run_with_broken(%i[out], *tracegraph_command("render", "--flat", "-o", "r.svg", "-o", "r.json", "p.json"))
    assert status.success?, err
    assert File.size?(File.join(@dir, "r.svg")), err
    assert_profiled("r.json", 3)
    status, err = run_with_broken(%i[out], *tracegraph_command("diff", "--text", "-o", "d.svg", "p.json", "p.json"))
    assert status.success?, err
    assert File.size?(File.join(@dir, "d.svg")), err
  end

  def test_a_closed_stderr_costs_no_file_and_no_status
    status, = run_with_broken(%i[err], *tracegraph_command("--flat", "-o", "b.json", "-o", "b.svg",
                                                            "-e", "def line(i) = i\n3.times { |i| line(i) }"))
    assert status.success?, "the table and messages are lost, not the run"
    assert_profiled("b.json", 3)
    assert File.size?(File.join(@dir, "b.dot")), "written beside the svg"
    assert File.size?(File.join(@dir, "b.svg"))
  end

  def test_both_streams_closed
    plain, = run_with_broken(%i[out err], RbConfig.ruby, @script)
    status, = run_with_broken(%i[out err], *tracegraph_command("--flat", "-o", "c.json", @script))
    assert_equal [plain.exitstatus, plain.termsig], [status.exitstatus, status.termsig]
    assert_profiled("c.json", 1)
  end

  def test_autorun_writes_its_file_past_a_broken_pipe
    plain, = run_with_broken(%i[out err], RbConfig.ruby, @script)
    status, = run_with_broken(%i[out err], RbConfig.ruby, "-I#{LIB}", "-rtracegraph/autorun", @script,
                              env: {"TRACEGRAPH_OUTPUT" => "d.json", "TRACEGRAPH_RUN" => nil})
    assert_equal [plain.exitstatus, plain.termsig], [status.exitstatus, status.termsig]
    assert_profiled("d.json", 1)
  end
end

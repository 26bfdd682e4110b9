require_relative "../test_helper"
require_relative "../cli_helper"
require_relative "../consumers_helper"
require "zlib"
require "shellwords"

# Outputs that are not files named by their format: standard output (-o -,
# /dev/stdout), FIFOs, pipes (>(...)), character devices, gzip names, and
# names whose format comes from --format. Each is read back by a real
# reader: the shell's pipe, a FIFO's reader, zcat, load_json.
class TestOutputStreams < Minitest::Test
  include CliHelper
  include ConsumersHelper

  # work's time is a loop of inlined operators, no calls: its box is not
  # cut from a graph even when the script's unbuffered puts to a pipe takes
  # milliseconds on a loaded machine (Ruby 3.4's chroot: 16 ms, 99.5%).
  SCRIPT = <<~RUBY
    def work(n)
      i = 0
      i += 1 while i < n * 400
      i
    end
    puts "the script's own output"
    3.times { work(50) }
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-streams")
    @script = write_script("app.rb", SCRIPT)
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # The folded stacks alone on stdout, the script's prints on stderr.
  def test_dash_writes_the_profile_alone_to_standard_output
    out, err, status = tracegraph("-o", "-", "--format", "folded", "-o", "same.folded", "app.rb")
    assert status.success?, err
    refute_includes out, "the script's own output"
    assert_includes err, "the script's own output"
    assert_folded_with_leaf(out, "Object#work")
    assert_equal File.read(File.join(@dir, "same.folded")), out, "the same profile as the file's"
    assert_includes err, "tracegraph: wrote standard output (folded)\n"
  end

  def test_dash_with_a_suffix_names_the_format
    out, err, status = tracegraph("-o", "-.json", "app.rb")
    assert status.success?, err
    assert_equal 3, Tracegraph::Profile.parse_json(out)["Object#work"].calls
  end

  def test_dev_stdout_is_standard_output
    out, err, status = tracegraph("-o", "/dev/stdout", "--format", "json", "app.rb")
    assert status.success?, err
    assert_equal 3, Tracegraph::Profile.parse_json(out)["Object#work"].calls
    refute_includes out, "the script's own output"
  end

  # The shell's redirection of stdout to a file, as the docs show it.
  def test_redirected_to_a_file_by_the_shell
    system("#{shell_command('-o', '-', '--format', 'folded', 'app.rb')} > out.folded 2> err.txt", chdir: @dir,
           exception: true)
    assert_folded_with_leaf(File.read(File.join(@dir, "out.folded")), "Object#work")
    assert_includes File.read(File.join(@dir, "err.txt")), "the script's own output"
  end

  def test_a_child_process_of_the_script_prints_to_stderr_too
    write_script("child.rb", "system(#{RbConfig.ruby.dump}, '-e', 'puts :child')\ndef work = 1\nwork\n")
    out, err, status = tracegraph("-o", "-", "--format", "folded", "child.rb")
    assert status.success?, err
    refute_includes out, "child"
    assert_includes err, "child\n"
  end

  def test_at_most_one_output_goes_to_standard_output
    out, err, status = tracegraph("-o", "-.json", "-o", "/dev/stdout", "--format", "folded", "app.rb")
    assert_equal [2, ""], [status.exitstatus, out]
    assert_equal "tracegraph: only one output can go to standard output (got -.json, /dev/stdout)\n", err
  end

  def test_a_name_without_a_format_needs_format
    _, err, status = tracegraph("-o", "-", "app.rb")
    assert_equal 2, status.exitstatus
    assert_match(/\Atracegraph: cannot write -: unknown format \(no extension\) .*give --format dot\|json\|txt\|folded/, err)
    _, err, status = tracegraph("-o", "-", "--format", "xml", "app.rb")
    assert_equal 2, status.exitstatus
    assert_match(/invalid argument: --format xml/, err)
  end

  def test_format_gives_a_file_without_an_extension_its_format
    _, err, status = tracegraph("-o", "profile", "--format", "json", "app.rb")
    assert status.success?, err
    assert_equal "tracegraph: wrote profile (json)\n", err.lines.last
    assert_equal 3, Tracegraph::Profile.load_json(File.join(@dir, "profile"))["Object#work"].calls
  end

  def test_a_graph_rendered_to_standard_output
    skip "Graphviz's dot is not installed" unless system("command -v dot > /dev/null 2>&1")
    out, err, status = tracegraph("-o", "-", "--format", "svg", "app.rb")
    assert status.success?, err
    assert out.start_with?("<?xml"), out[0, 80]
    assert_includes out, "Object#work"
    assert_includes err, "tracegraph: wrote standard output (svg; its .dot is not kept)\n"
  end

  def test_a_fifo_with_a_reader_is_written
    fifo = File.join(@dir, "fifo.json")
    File.mkfifo(fifo)
    reader = Thread.new { File.read(fifo) }
    _, err, status = tracegraph("-o", "fifo.json", "app.rb")
    assert status.success?, err
    assert_equal 3, Tracegraph::Profile.parse_json(reader.value)["Object#work"].calls
    assert_includes err, "tracegraph: wrote fifo.json\n"
  end

  # The profile is never what blocks the program: the FIFO is opened after
  # the script, for a limited time, and the profile is kept in a file.
  def test_a_fifo_without_a_reader_does_not_hang_and_keeps_the_profile
    File.mkfifo(File.join(@dir, "fifo.json"))
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    out, err, status = tracegraph("-o", "fifo.json", "app.rb", env: {"TRACEGRAPH_PIPE_TIMEOUT" => "1.5"})
    assert_equal 1, status.exitstatus, err
    assert_includes out, "the script's own output", "the script ran first"
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 60
    kept = err[/no reader opened fifo\.json within 1\.5 s; the profile is in (\S+\.json)$/, 1]
    assert kept, err
    assert_equal 3, Tracegraph::Profile.load_json(kept)["Object#work"].calls
    FileUtils.rm_rf(File.dirname(kept))
  end

  def test_process_substitution_is_written
    skip "bash is not installed" unless system("command -v bash > /dev/null 2>&1")
    command = "#{shell_command('-o', '>(gzip > p.json.gz)', '--format', 'json', 'app.rb')}; wait"
    _, err, status = Open3.capture3("bash", "-c", command, chdir: @dir)
    assert status.success?, err
    assert_match(%r{tracegraph: wrote /dev/fd/\d+ \(json\)}, err)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 30
    sleep 0.05 until gzip_complete?(File.join(@dir, "p.json.gz")) || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
    assert_equal 3, Tracegraph::Profile.load_json(File.join(@dir, "p.json.gz"))["Object#work"].calls
  end

  def test_character_devices
    _, err, status = tracegraph("-o", "/dev/null", "--format", "json", "app.rb")
    assert status.success?, err
    assert_includes err, "tracegraph: wrote /dev/null (json)\n"

    # A full disk: the output fails, the run says so and exits 1.
    skip "no /dev/full here" unless File.chardev?("/dev/full")
    _, err, status = tracegraph("-o", "/dev/full", "--format", "json", "-o", "kept.json", "app.rb")
    assert_equal 1, status.exitstatus, err
    assert_includes err, "tracegraph: cannot write /dev/full: No space left on device\n"
    assert File.file?(File.join(@dir, "kept.json")), "the other output is written"
  end

  # `| head`: the reader leaving early is its choice, not a failure.
  def test_a_reader_that_leaves_early
    # Far more than a pipe holds (64 KiB), so the writer meets the closed end.
    write_script("many.rb", "5000.times { |i| define_method(:\"m\#{i}_\#{'x' * 200}\") { i } }\n" \
                            "5000.times { |i| send(:\"m\#{i}_\#{'x' * 200}\") }\n")
    command = "#{shell_command('-o', '-', '--format', 'folded', 'many.rb')} 2> err.txt | head -1; " \
              "echo \"${PIPESTATUS[0]}\""
    out, _, = Open3.capture3("bash", "-c", command, chdir: @dir)
    first, code = out.lines
    assert_match(/\A\S.* \d+\n\z/, first)
    assert_equal "0\n", code, "the script's status stands: #{File.read(File.join(@dir, 'err.txt'))}"
    assert_includes File.read(File.join(@dir, "err.txt")), "(folded; cut short: its reader closed it)"
  end

  def test_a_trailing_slash_means_a_directory
    out, err, status = tracegraph("-o", "out/p.json/", "app.rb")
    assert_equal [2, ""], [status.exitstatus, out]
    assert_equal "tracegraph: cannot write out/p.json/: a name ending in / names a directory " \
                 "(as in the shell's `> out/p.json/`)\n", err
    refute File.exist?(File.join(@dir, "out"))
  end

  def test_messages_show_paths_as_typed
    skip "Graphviz's dot is not installed" unless system("command -v dot > /dev/null 2>&1")
    FileUtils.mkdir_p(File.join(@dir, "graphs"))
    _, err, status = tracegraph("-o", "graphs/call_graph.svg", "app.rb")
    assert status.success?, err
    assert_equal "tracegraph: wrote graphs/call_graph.dot, graphs/call_graph.svg\n", err.lines.last
    _, err, = tracegraph("-o", "missing/x.json", "app.rb")
    assert_equal "tracegraph: cannot write missing/x.json: directory missing does not exist\n", err
  end

  def test_gzip_names_are_written_gzipped_and_read_back
    _, err, status = tracegraph("-o", "p.json.gz", "-o", "p.folded.gz", "app.rb")
    assert status.success?, err
    assert_includes err, "tracegraph: wrote p.json.gz\n"
    assert_folded_with_leaf(Zlib.gunzip(File.binread(File.join(@dir, "p.folded.gz"))), "Object#work")

    # render, merge and diff read .json.gz as they read .json
    out, err, status = tracegraph("render", "p.json.gz", "-o", "-", "--format", "json")
    assert status.success?, err
    assert_equal 3, Tracegraph::Profile.parse_json(out)["Object#work"].calls
    _, err, status = tracegraph("merge", "p.json.gz", "p.json.gz", "-o", "sum.json")
    assert status.success?, err
    assert_equal 6, Tracegraph::Profile.load_json(File.join(@dir, "sum.json"))["Object#work"].calls
    out, err, status = tracegraph("diff", "p.json.gz", "sum.json", "-o", "-", "--format", "dot")
    assert status.success?, err
    assert out.start_with?("digraph"), out[0, 40]
  end

  # One rule: a profile or report goes to stdout only where asked; with
  # -o -, the flat table and diff's text move to stderr.
  def test_the_flat_table_and_diff_text_make_way_for_the_profile
    tracegraph("-o", "p.json", "app.rb")
    out, err, status = tracegraph("render", "p.json", "--flat")
    assert status.success?, err
    assert_match(/Object#work/, out)
    out, err, status = tracegraph("render", "p.json", "--flat", "-o", "-", "--format", "json")
    assert status.success?, err
    assert_equal 3, Tracegraph::Profile.parse_json(out)["Object#work"].calls
    assert_match(/self.*Object#work/m, err)
    out, err, status = tracegraph("diff", "p.json", "p.json", "--text", "-o", "-", "--format", "dot")
    assert status.success?, err
    assert out.start_with?("digraph"), out[0, 40]
    refute_empty err
  end

  # A real reader at the other end of the pipe: speedscope's own importer
  # reads the profile from its standard input.
  def test_speedscope_reads_the_profile_from_a_pipe
    require_npm_package!("speedscope", "speedscope's npm package")
    importer = ConsumersHelper::SPEEDSCOPE_IMPORTER
    write_script("busy.rb", "def work = 200_000.times { |i| i * i }\nwork\n")
    command = "#{shell_command('-o', '-', '--format', 'speedscope', 'busy.rb')} | node #{Shellwords.escape(importer)} /dev/stdin"
    out, err, status = Open3.capture3("bash", "-o", "pipefail", "-c", command, chdir: @dir)
    assert status.success?, err
    frames = JSON.parse(out)["profiles"].flat_map { |profile| profile["heaviest"].map(&:first) }
    assert_includes frames, "Object#work"
  end

  private

  # Well-formed folded stacks ("a;b;c 123" per line) in which name is a leaf.
  def assert_folded_with_leaf(text, name)
    refute_empty text
    text.each_line { |line| assert_match(/\A\S.* \d+\n\z/, line) }
    assert(text.lines.any? { |line| line.split(";").last.start_with?("#{name} ") }, "#{name} is a leaf")
  end

  def shell_command(*args)
    [RbConfig.ruby, "-I#{LIB}", EXE, *args].map { |a| a.start_with?(">(") ? a : Shellwords.escape(a) }.join(" ")
  end

  def gzip_complete?(path)
    Zlib.gunzip(File.binread(path))
    true
  rescue Zlib::Error, SystemCallError
    false
  end
end

require_relative "../test_helper"
require "tmpdir"
require "tracegraph/output/output_naming"

class TestOutputNaming < Minitest::Test
  def setup
    @dir = Dir.mktmpdir("tracegraph-naming")
    @path = File.join(@dir, "g.json")
    @run_start = Tracegraph::OutputNaming.now_ns
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def naming(first_pid: Process.pid) = Tracegraph::OutputNaming.new(first_pid: first_pid, run_start_ns: @run_start)

  def mine(suffix = "") = File.join(@dir, "g.#{Process.pid}#{suffix}.json")

  # A file last written a minute before the run began.
  def leave_from_an_earlier_run(path)
    File.write(path, "old")
    File.utime(Time.now - 60, Time.now - 60, path)
  end

  def test_the_first_process_writes_the_path_asked_for_replacing_an_earlier_runs_file
    assert_equal @path, naming.path_for(@path)
    leave_from_an_earlier_run(@path)
    assert_equal @path, naming.path_for(@path)
  end

  def test_the_first_process_never_replaces_a_file_written_during_the_run
    File.write(@path, "this run")
    assert_equal mine, naming.path_for(@path)
  end

  def test_other_processes_write_their_pid_then_a_count
    other = naming(first_pid: Process.pid + 1)
    assert_equal mine, other.path_for(@path)
    File.write(mine, "an earlier program of this process, before exec")
    assert_equal mine(".2"), other.path_for(@path)
    File.write(mine(".2"), "and another")
    assert_equal mine(".3"), other.path_for(@path)
    leave_from_an_earlier_run(mine)
    assert_equal mine, other.path_for(@path), "a file of an earlier run with our pid is replaced"
  end

  def test_callgrind_and_compound_names_get_the_pid_where_their_format_survives
    other = naming(first_pid: Process.pid + 1)
    callgrind = File.join(@dir, "callgrind.out.app")
    assert_equal "#{callgrind}.#{Process.pid}", other.path_for(callgrind)
    File.write("#{callgrind}.#{Process.pid}", "this run")
    assert_equal "#{callgrind}.#{Process.pid}.2", other.path_for(callgrind)
    dotted = File.join(@dir, "run.v2.json")
    assert_equal File.join(@dir, "run.v2.#{Process.pid}.json"), other.path_for(dotted)
  end

  def test_the_first_process_of_a_run_exports_it_and_the_rest_read_it
    env = {}
    first = Tracegraph::OutputNaming.from_env(env)
    assert_equal "#{Process.pid}:#{first.run_start_ns}", env["TRACEGRAPH_RUN"]
    assert_equal @path, first.path_for(@path)

    env = {"TRACEGRAPH_RUN" => "#{Process.pid + 1}:#{@run_start}"}
    later = Tracegraph::OutputNaming.from_env(env)
    assert_equal @run_start, later.run_start_ns
    assert_equal mine, later.path_for(@path)
    assert_equal "#{Process.pid + 1}:#{@run_start}", env["TRACEGRAPH_RUN"], "left as it was"

    env = {"TRACEGRAPH_RUN" => "garbage"}
    assert_equal @path, Tracegraph::OutputNaming.from_env(env).path_for(@path), "not a run: this one is the first"
    assert_match(/\A#{Process.pid}:\d+\z/, env["TRACEGRAPH_RUN"])
  end

  def test_a_pdf_name_keeps_its_extension_last
    assert_equal File.join(@dir, "graphs.v2.#{Process.pid}.pdf"),
                 naming(first_pid: 0).path_for(File.join(@dir, "graphs.v2.pdf"))
  end
end

require_relative "test_helper"
require_relative "cli_helper"
require_relative "../../bench/footprint/callgrind_costs"

# bench/footprint.rb (rake bench:footprint) counts, under callgrind, what
# an event costs the VM, tracegraph's hook, and the code around it. What
# the counts are is the bench's to say; here, that it counts the runs it
# means to (the loop's events, exactly) and that its reading of
# callgrind's files adds up.
class TestFootprintBench < Minitest::Test
  include CliHelper

  BENCH = File.join(CliHelper::ROOT, "bench/footprint.rb")
  COUNT = /\A-?\d+\.\d\z/

  def setup
    @dir = Dir.mktmpdir("tracegraph-footprint")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # A callgrind file as valgrind writes it: names compressed, a called
  # object first named in cob=, trailing zero costs left out, and a call's
  # inclusive cost (after calls=) that is not the caller's own.
  def test_costs_are_summed_by_object_without_the_calls_inclusive_costs
    path = File.join(@dir, "callgrind.out")
    File.write(path, <<~OUT)
      # callgrind format
      events: Ir I1mr Bcm
      summary: 175 9 4

      ob=(1) /usr/lib/libruby.so
      fl=(1) ???
      fn=(1) vm_exec
      0 100 5 3
      cob=(2) /work/lib/tracegraph/tracegraph.so
      cfi=(2) event_hook.c
      cfn=(2) on_call
      calls=10 0
      0 50 3 1
      +2 10
      ob=(2)
      fl=(2)
      fn=(2)
      0 50 3 1
      ob=(1)
      fn=(1)
      -1 15 1
    OUT
    costs = CallgrindCosts.by_object(path)
    assert_equal({"libruby.so" => {"Ir" => 125, "I1mr" => 6, "Bcm" => 3},
                  "tracegraph.so" => {"Ir" => 50, "I1mr" => 3, "Bcm" => 1}}, costs)
    File.write(path, "not callgrind\n")
    assert_raises(ArgumentError) { CallgrindCosts.by_object(path) }
  end

  def skip_without_valgrind
    skip "valgrind is not installed" unless system("valgrind", "--version", out: File::NULL, err: File::NULL)
    skip "valgrind cannot run a process that preloads ASan" if ENV["LD_PRELOAD"].to_s.include?("asan")
  end

  def test_the_loop_is_counted_with_its_exact_events
    skip_without_valgrind
    out_file = File.join(@dir, "FOOTPRINT.md")
    out, err, status = ruby(BENCH, env: {"QUICK" => "1", "WORKLOADS" => "loop", "FOOTPRINT_OUT" => out_file})
    assert status.success?, "bench failed:\n#{err}"
    assert_equal out, File.read(out_file), "the report written is the one printed"
    row = out.lines.grep(/\A\| loop /).first
    refute_nil row, out
    _, events, *parts = row.split("|").map(&:strip).reject(&:empty?)
    assert_equal 2 * 20_000 + 2, Integer(events), "each call and return, and the loop's block"
    assert_equal 3, parts.size
    assert_counted parts
  end

  # A row's cells of four counts each: every count a number, and
  # instructions in the first two (the VM's side, then the hook).
  def assert_counted(cells)
    counts = cells.map { |cell| cell.delete("*").split(" / ") }
    counts.flatten.each { |count| assert_match COUNT, count }
    vm, hook, = counts.map { |cell| Float(cell.first) }
    assert_operator vm, :>, 50, "the VM runs instructions for every event"
    assert_operator hook, :>, 50, "and so does the hook"
  end

  # A kind of call's loop, per event tracegraph records: a plain method's
  # loop records four a call (the block's call and return, the method's).
  def test_a_kind_of_call_is_counted_per_recorded_event
    skip_without_valgrind
    out_file = File.join(@dir, "FOOTPRINT.md")
    env = {"QUICK" => "1", "WORKLOADS" => "kinds", "CALL_KINDS" => "plain_calls", "FOOTPRINT_OUT" => out_file}
    out, err, status = ruby(BENCH, env: env)
    assert status.success?, "bench failed:\n#{err}"
    refute_match(/\| workload \|/, out, "no program was asked for")
    rows = out.lines.grep(/\A\| \w+_calls /)
    assert_equal 1, rows.size, out
    kind, per_call, *parts = rows.first.split("|").map(&:strip).reject(&:empty?)
    assert_equal ["plain_calls", "4.0"], [kind, per_call]
    assert_equal 2, parts.size
    assert_counted parts
  end

  def test_a_kind_it_has_no_loop_for_is_named_before_anything_runs
    skip_without_valgrind
    _, err, status = ruby(BENCH, env: {"WORKLOADS" => "kinds", "CALL_KINDS" => "plain_calls,nosuch",
                                       "FOOTPRINT_OUT" => File.join(@dir, "FOOTPRINT.md")})
    refute status.success?
    assert_match(/CALL_KINDS: no loop nosuch \(the loops: plain_calls, /, err)
    refute_match(/bench: footprint of/, err, "nothing ran")
  end
end

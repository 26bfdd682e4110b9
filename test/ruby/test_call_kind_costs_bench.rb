require_relative "test_helper"
require_relative "cli_helper"

# bench/call_kind_costs.rb (rake bench:call_kinds) runs and prints a row
# per kind of call whose numbers parse. How much it leaves in is the
# bench's to say: nothing here bounds it.
class TestCallKindCostsBench < Minitest::Test
  include CliHelper

  BENCH = File.join(CliHelper::ROOT, "bench/call_kind_costs.rb")
  NUMBER = /[+-]?\d+\.\d/
  CELL = /\A\**(#{NUMBER}) \((#{NUMBER}) to (#{NUMBER})\)\**\z/

  def setup
    @dir = Dir.mktmpdir("tracegraph-call-kinds")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_one_quick_process_prints_a_row_per_kind
    out_file = File.join(@dir, "CALL_KINDS.md")
    out, err, status = ruby(BENCH, env: {"QUICK" => "1", "PROCESSES" => "1", "CALL_KINDS_OUT" => out_file})
    assert status.success?, "bench failed:\n#{err}"
    assert_equal out, File.read(out_file), "the report written is the one printed"
    rows = out.lines.grep(/\A\| CallKinds\./).map { |line| line.split("|")[1..].map(&:strip) }
    kinds = %w[plain define_method send public_send method_missing super attr_reader c_yield new last_match]
    assert_equal kinds.map { |k| "CallKinds.#{k}_calls" }, rows.map(&:first)
    assert_match(/^Per call of the kind \(40000 calls a loop/, out)
    rows.each do |kind, plain, removed, left|
      [plain, removed, left].each { |cell| assert_match CELL, cell, kind }
      median, low, high = left.match(CELL).captures.map { |v| Float(v) }
      assert_equal [median] * 2, [low, high], "one process: its own range (#{kind})"
      assert_operator Float(plain[CELL, 1]), :>, 0, kind
      assert_operator Float(removed[CELL, 1]), :>, 0, "#{kind}: the profile took something out"
    end
  end
end

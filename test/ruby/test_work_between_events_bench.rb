require_relative "test_helper"
require_relative "cli_helper"

# bench/work_between_events.rb (rake bench:work_between_events) runs and
# prints a row per loop whose cells parse. How much the hook slows the
# work is the bench's to say: nothing here bounds it, but the empty loop
# is each difference's zero, exactly.
class TestWorkBetweenEventsBench < Minitest::Test
  include CliHelper

  BENCH = File.join(CliHelper::ROOT, "bench/work_between_events.rb")
  SIGNED = /\A\**[+-]\d+\.\d\**\z/

  def setup
    @dir = Dir.mktmpdir("tracegraph-work-between")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_one_quick_process_prints_a_row_per_loop
    out_file = File.join(@dir, "WORK_BETWEEN_EVENTS.md")
    out, err, status = ruby(BENCH, env: {"QUICK" => "1", "PROCESSES" => "1", "WORK_BETWEEN_OUT" => out_file})
    assert status.success?, "bench failed:\n#{err}"
    assert_equal out, File.read(out_file), "the report written is the one printed"
    rows = out.lines.grep(/\A\| Work#/).map { |line| line.split("|")[1..].map(&:strip).reject(&:empty?) }
    assert_equal %w[empty last_match match_p upcase allocate].map { |l| "Work##{l}" }, rows.map(&:first)
    assert_match(/^ns a call \(20000 calls a loop/, out)
    rows.each do |loop, plain, *cells|
      assert_operator Float(plain), :>, 0, loop
      assert_equal 6, cells.size, loop
      cells.each { |cell| assert_match SIGNED, cell, loop }
    end
    _, _, _, _, own, _, own_no_gc, = rows.first
    assert_equal ["**+0.0**", "+0.0"], [own, own_no_gc], "the empty loop is the zero of what the hook adds to work"
  end
end

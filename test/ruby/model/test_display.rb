require_relative "../test_helper"
require "json"
require "open3"
require_relative "../consumers_helper"

# One duration format for every output: the graph's C (tg_format.c), the
# Ruby library's text (Tracegraph.human_time calls it) and the HTML pages'
# JavaScript (page_kit.js, the same rule), each checked against the one
# table of cases, test/fixtures/durations.txt (test/c/test_format.c reads
# it too).
class TestDisplay < Minitest::Test
  include ConsumersHelper

  TABLE = File.expand_path("../../fixtures/durations.txt", __dir__)
  PAGE_KIT = File.expand_path("../../../lib/tracegraph/formats/html/page_kit.js", __dir__)
  FORMAT_JS = File.expand_path("../../consumers/duration_format.js", __dir__)

  def cases
    File.readlines(TABLE, chomp: true, encoding: "UTF-8").reject { |l| l.start_with?("#") || l.empty? }
        .map { |l| ns, text = l.split("\t"); [Integer(ns), text] }
  end

  def test_the_table_has_the_cases_that_disagreed
    assert_includes cases, [999_999, "1.00 ms"]
    assert_includes cases, [9_995, "10.0 µs"]
    assert_operator cases.size, :>=, 20
  end

  def test_ruby_writes_every_duration_as_the_table_does
    cases.each { |ns, text| assert_equal text, Tracegraph.human_time(ns), "#{ns} ns" }
    assert_equal "1.60 ms", Tracegraph.human_time(1.6e6), "a Float is rounded to the nanosecond"
  end

  def test_the_html_pages_write_every_duration_as_the_table_does
    require_node!
    out, err, status = capture_node(FORMAT_JS, PAGE_KIT, *cases.map { |ns, _| ns.to_s })
    assert status.success?, err
    assert_equal cases.map(&:last), JSON.parse(out)
  end
end

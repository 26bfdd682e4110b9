require_relative "../test_helper"
require "json"
require "open3"
require_relative "../consumers_helper"

# The router both HTML pages route by (formats/html/page_kit.js): the
# URL's fragment chooses the view, so a view can be shared and a bookmark
# opens it again. Run outside a browser (test/consumers/page_kit_routes.js)
# on the fragments the pages write, and on some they never write, as the
# report routes (a method's key, then the threads and waiting chosen) and
# as the diff report does (a method's name alone). The browser tests
# (test_html.rb, test_diff_html.rb) drive the pages through it.
class TestHtmlPageKit < Minitest::Test
  include ConsumersHelper

  PAGE_KIT = File.expand_path("../../../lib/tracegraph/formats/html/page_kit.js", __dir__)
  ROUTES = File.join(ConsumersHelper::CONSUMERS, "page_kit_routes.js")

  # What the router opened for each of hashes, in turn: mode is
  # "method-query" (the report) or "method-only" (the diff report).
  def routes(mode, *hashes)
    require_node!
    out, err, status = capture_node(ROUTES, PAGE_KIT, mode, *hashes)
    assert status.success?, err
    JSON.parse(out)
  end

  def test_a_view_opens_with_its_parameters_and_its_nav_link_marked
    table, graph = routes("method-query", "#table?sort=calls&q=a%20b%3Fc", "#graph?q=area")
    assert_equal ["table", [%w[sort calls], ["q", "a b?c"]], ["nav-table"]], table.values_at("view", "params", "current")
    assert_equal ["graph", [%w[q area]], ["nav-graph"]], graph.values_at("view", "params", "current")
    [table, graph].each do |r|
      assert r["emptied"], "main is emptied before the view is drawn"
      assert_equal [0, 0], r["scrolled"], "the page scrolls to its top"
      assert_equal({"view" => r["view"], "name" => nil}, r["before"], "before() sees what the fragment asks")
    end
  end

  def test_an_empty_or_unknown_fragment_opens_home
    %w[# #nosuch?x=1 #method #Graph].unshift("").zip(routes("method-query", "", "#", "#nosuch?x=1", "#method", "#Graph")) do |hash, r|
      assert_equal ["graph", ["nav-graph"]], r.values_at("view", "current"), hash.inspect
    end
    assert_equal [%w[x 1]], routes("method-only", "#nosuch?x=1").first["params"], "the parameters go to home's view"
  end

  def test_the_report_reads_a_methods_key_then_its_parameters
    plain, chosen, amp = routes("method-query", "#method=Shape%23area", "#method=Shape%23%26&thread=2&idle=hide",
                                "#method=a%26b")
    assert_equal ["method", "Shape#area", [], []], plain.values_at("view", "name", "params", "current")
    assert_equal ["Shape#&", [%w[thread 2], %w[idle hide]]], chosen.values_at("name", "params")
    assert_equal "a&b", amp["name"], "an & the page wrote (encoded) is the name's"
    assert_equal({"view" => "method", "name" => "Shape#&"}, chosen["before"])
  end

  def test_the_diff_reads_a_methods_name_alone
    encoded, typed = routes("method-only", "#method=Shape%23%26", "#method=Shape#&")
    assert_equal ["method", "Shape#&", []], encoded.values_at("view", "name", "params")
    assert_equal ["Shape#&", []], typed.values_at("name", "params"), "an & typed unencoded stays in the name"
    assert_equal "Shape#", routes("method-query", "#method=Shape#&").first["name"], "where the report's parameters begin"
  end

  def test_a_key_that_does_not_decode_is_taken_as_written
    assert_equal "100%", routes("method-only", "#method=100%").first["name"]
  end

  def test_the_search_box_reaches_the_view_shown
    graph, table, back = routes("method-query", "#graph", "#table", "#graph?q=x")
    assert graph["searched"], "the graph takes the search"
    refute table["searched"], "a view that returns nothing takes none"
    assert back["searched"]
  end
end

require_relative "../test_helper"
require "json"

# Profile#titled (the Rack middleware's request title): a new profile
# built through Profile.new that differs from its source in the title
# alone, whatever the source is: a recording with a call tree, the median
# of runs, a grouping.
class TestTitled < TracegraphTest
  def work(n) = n < 2 ? n : work(n - 1) + work(n - 2)

  def json_without_title(profile) = JSON.parse(profile.to_json).tap { |h| h.delete("title") }

  def assert_only_the_title_changes(profile, title = "GET /posts 200")
    titled = profile.titled(title)
    refute_same profile, titled
    assert_equal title, titled.title
    assert_nil profile.title, "the source keeps its own title"
    assert_equal json_without_title(profile), json_without_title(titled)
    assert_equal profile.grouping, titled.grouping
    # A grouping's methods are its source's; an ungrouped profile is its own.
    assert_same(profile.grouping == :method ? titled : profile.ungrouped, titled.ungrouped)
    assert_kept profile.runs, titled.runs
    assert_kept profile.call_tree, titled.call_tree
    titled
  end

  # The very object, or nil on both sides (minitest refuses assert_same nil).
  def assert_kept(source, copy) = source.nil? ? assert_nil(copy) : assert_same(source, copy)

  def test_a_recording_with_its_call_tree
    profile = Tracegraph.profile(call_tree: true) { work(8) }
    titled = assert_only_the_title_changes(profile)
    assert_equal profile.view(threads: ["main"]).methods.size, titled.view(threads: ["main"]).methods.size
  end

  def test_the_median_of_runs_keeps_its_samples
    runs = Array.new(3) { Tracegraph.profile { work(6) } }
    median = Tracegraph::Profile.median(runs)
    titled = assert_only_the_title_changes(median)
    assert_equal median.runs.self_times("TestTitled#work"), titled.runs.self_times("TestTitled#work")
  end

  def test_a_grouping_keeps_what_its_boxes_stand_for
    grouped = Tracegraph.profile { work(6) }.group_by(:class)
    titled = assert_only_the_title_changes(grouped)
    assert_equal :class, titled.grouping
    assert_equal grouped.group_members("TestTitled"), titled.group_members("TestTitled")
  end

  def test_a_title_that_is_not_a_string_is_refused
    error = assert_raises(ArgumentError) { Tracegraph.profile { work(3) }.titled(:home) }
    assert_includes error.message, "title must be a String or nil, not Symbol"
  end
end

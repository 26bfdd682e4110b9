require_relative "torture_helper"

# Wrong calls get a clear Ruby exception, and the profiler works after.
class TestMisuseTorture < TortureTest
  def leaf = :leaf

  def assert_still_usable
    refute Tracegraph.running?
    profile = Tracegraph.profile { 2.times { leaf } }
    assert_equal 2, method_named(profile, "TestMisuseTorture#leaf").calls
    assert_sane profile
  end

  def test_unknown_options_and_clocks
    [{bogus: 1}, {clock: :sundial}, {clock: "nope"}, {clock: 3}, {clock: nil}, {c_calls: "yes"},
     {clock: :wall, c_calls: nil}].each do |options|
      error = assert_raises(ArgumentError, options.inspect) { Tracegraph.start(**options) }
      assert_match(/allowed|true or false|true, false or :all/, error.message)
      refute Tracegraph.running?
    end
    assert_raises(ArgumentError) { Tracegraph.profile(clock: :sundial) { leaf } }
    assert_raises(ArgumentError) { Tracegraph.profile }
    assert_still_usable
  end

  def test_stop_twice_and_stop_before_start
    assert_raises(Tracegraph::Error) { Tracegraph.stop }
    Tracegraph.start
    leaf
    assert_equal 1, method_named(Tracegraph.stop, "TestMisuseTorture#leaf").calls
    assert_raises(Tracegraph::Error) { Tracegraph.stop }
    assert_still_usable
  end

  # The nested start fails; the outer session goes on and ends normally.
  def test_start_inside_a_profiled_block
    error = assert_raises(Tracegraph::Error) do
      Tracegraph.profile { leaf; Tracegraph.start }
    end
    assert_match(/already started/, error.message)
    profile = Tracegraph.last_profile
    assert_equal 1, method_named(profile, "TestMisuseTorture#leaf").calls
    assert_sane profile
    assert_raises(Tracegraph::Error) { Tracegraph.profile { Tracegraph.profile { leaf } } }
    assert_still_usable
  end

  def test_stop_inside_a_profiled_block_from_a_fiber_and_a_thread
    Tracegraph.profile { Fiber.new { Tracegraph.stop }.resume; leaf }
    assert_sane Tracegraph.last_profile
    Tracegraph.profile { Thread.new { Tracegraph.stop }.join; leaf }
    assert_sane Tracegraph.last_profile
    assert_still_usable
  end

  def test_writing_to_bad_paths
    profile = Tracegraph.profile { leaf }
    Dir.mktmpdir do |dir|
      missing = File.join(dir, "no/such/dir/graph.dot")
      [dir, missing, "", "/proc/self/no-such-entry/x.dot"].each do |path|
        assert_raises(Tracegraph::Error, path) { profile.write_dot(path) }
        assert_raises(Tracegraph::Error, path) { profile.write_json(path) }
      end
      assert_raises(Tracegraph::Error) { profile.write_dot(nil) }
      assert_raises(Tracegraph::Error) { profile.write_dot(42) }
      # A path nobody may write, even root: /proc files refuse new content.
      assert_raises(Tracegraph::Error) { profile.write_json("/proc/version") }
      path = profile.write_dot(File.join(dir, "ok.dot"))
      assert_match(/\Adigraph/, File.read(path))
    end
    assert_still_usable
  end
end

require_relative "test_helper"

class TestApi < TracegraphTest
  def test_start_twice_and_stop_twice_raise_and_leave_the_profiler_usable
    Tracegraph.start
    error = assert_raises(Tracegraph::Error) { Tracegraph.start }
    assert_match(/already started/, error.message)
    assert Tracegraph.running?
    Tracegraph.stop
    error = assert_raises(Tracegraph::Error) { Tracegraph.stop }
    assert_match(/not started/, error.message)
    assert_equal 1, Tracegraph.profile { Integer("1") }.methods.count { |m| m.name == "Kernel#Integer" }
  end

  # Stop names anonymous classes by calling Ruby, where another thread may
  # run: here one waits inside that naming (Tracegraph.working_dir_prefix)
  # while another starts. The start is refused with an error that says
  # why, the stop's profile is whole, and the profiler works afterwards.
  # (Before, the start cleared the session under the stop, and the stop
  # then freed the new session's tables with its hook installed.)
  def test_a_start_while_another_thread_stops_is_refused
    anonymous = Class.new { def work = 1 }
    reached = Queue.new
    go_on = Queue.new
    original = Tracegraph.method(:working_dir_prefix)
    Tracegraph.define_singleton_method(:working_dir_prefix) do
      reached << true
      go_on.pop
      original.call
    end
    Tracegraph.start
    3.times { anonymous.new.work }
    stopper = Thread.new { Tracegraph.stop }
    reached.pop
    error = assert_raises(Tracegraph::Error) { Tracegraph.start }
    assert_match(/another thread is stopping the profiler: start again once its Tracegraph\.stop returns/, error.message)
    go_on << true
    profile = stopper.value
    assert_equal 3, profile.methods.find { |m| m.name.end_with?("#work") && m.name.start_with?("#<Class:") }.calls
    assert_equal 1, Tracegraph.profile { Integer("1") }.methods.count { |m| m.name == "Kernel#Integer" }
  ensure
    Tracegraph.singleton_class.send(:remove_method, :working_dir_prefix) rescue nil
    Tracegraph.define_singleton_method(:working_dir_prefix, original) if original
    Tracegraph.stop if Tracegraph.running?
  end

  def test_start_inside_a_profiled_block_raises
    assert_raises(Tracegraph::Error) { Tracegraph.profile { Tracegraph.start } }
    refute Tracegraph.running?
  end

  def test_unknown_options_and_clocks_name_the_bad_value_and_the_allowed_ones
    error = assert_raises(ArgumentError) { Tracegraph.start(clok: :wall) }
    assert_match(/unknown option :clok \(allowed: :clock, :c_calls, :blocks, :call_tree, :max_call_tree_nodes, :exact_clock, :threads, :gc, :allocations, :raw_times\)/, error.message)
    error = assert_raises(ArgumentError) { Tracegraph.start(clock: :gpu) }
    assert_match(/unknown clock :gpu \(allowed: :wall, :cpu, :thread_cpu\)/, error.message)
    error = assert_raises(ArgumentError) { Tracegraph.start(c_calls: "yes") }
    assert_match(/c_calls must be true, false or :all, not "yes"/, error.message)
    error = assert_raises(ArgumentError) { Tracegraph.start(blocks: nil) }
    assert_match(/blocks must be true or false, not nil/, error.message)
    refute Tracegraph.running?
  end

  def test_clock_can_be_a_string
    assert_equal :cpu, Tracegraph.profile(clock: "cpu") { 1 + 1 }.clock
  end

  def test_profile_needs_a_block
    assert_raises(ArgumentError) { Tracegraph.profile }
  end

  def test_stop_returns_and_remembers_the_profile
    Tracegraph.start
    [1, 2].sum
    profile = Tracegraph.stop
    assert_same profile, Tracegraph.last_profile
    assert_equal 1, profile["Array#sum"].calls
    assert profile.complete?
  end

  def test_an_empty_profile
    profile = Tracegraph.profile { nil }
    assert_empty profile.methods
    assert_empty profile.edges
    assert_equal 0, profile.total_time
  end

  def test_start_stop_many_times
    1000.times { Tracegraph.start; 1.to_s; Tracegraph.stop }
    assert_equal 1, Tracegraph.last_profile["Integer#to_s"].calls
  end
end

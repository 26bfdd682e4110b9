require_relative "test_helper"
require "objspace"

# Ruby 3.1 sends every allocation down its slow path while any collector
# event is hooked (gc: true, the default); tracegraph clears the flag that
# does it when no hook wants the allocation event (newobj_fast_path.c).
# What must hold: the fast path while we record, the slow one whenever
# someone (us with allocations: true, or objspace) counts allocations, and
# every collector event still seen.
class TestNewobjFastPath < TracegraphTest
  def ruby31? = RUBY_VERSION.start_with?("3.1")

  def teardown
    Tracegraph.stop if Tracegraph.running?
    ObjectSpace.trace_object_allocations_stop
    super
  end

  def test_allocations_take_the_fast_path_while_a_profile_hooks_the_collector
    Tracegraph.start
    kept = Tracegraph._newobj_fast_path
    Tracegraph.stop
    unless ruby31?
      assert_nil kept, "Ruby #{RUBY_VERSION} checks for an allocation hook only: nothing to keep"
      return
    end
    assert_equal true, kept, "the probe found the heap's flags on Ruby #{RUBY_VERSION}"
    assert_equal true, Tracegraph._newobj_fast_path, "no hook after stop: Ruby's own value"
  end

  def test_counting_allocations_keeps_the_slow_path_that_fires_their_event
    skip "Ruby #{RUBY_VERSION} needs no fast path kept" unless ruby31?
    Tracegraph.start(allocations: true)
    slow = Tracegraph._newobj_fast_path
    objects = Array.new(10) { Object.new }
    profile = Tracegraph.stop
    assert_equal false, slow
    assert_equal 10, objects.size
    row = profile.methods.find { |m| m.name == "Class#new" }
    refute_nil row, "Class#new recorded"
    assert_operator row.allocations, :>=, 10, "each Object.new counted"
  end

  def allocated_here = Object.new

  # Someone else's allocation hook, before the profile or added during
  # it, gets every allocation: the flag is set again, as Ruby computes it.
  def test_another_allocation_hook_still_sees_every_allocation
    skip "Ruby #{RUBY_VERSION} needs no fast path kept" unless ruby31?
    # The first start probes, and cannot while another hook has the
    # collector's events: a profile before objspace's hook lets it.
    Tracegraph.start(c_calls: false)
    Tracegraph.stop
    ObjectSpace.trace_object_allocations_start
    Tracegraph.start(c_calls: false)
    before = allocated_here
    assert_equal false, Tracegraph._newobj_fast_path, "objspace's hook wants the allocation event"
    Tracegraph.stop
    ObjectSpace.trace_object_allocations_stop

    # Without C calls: a hook added while they are traced makes Ruby
    # rewrite its operators into calls (vm_event_flags.c), beside the point.
    Tracegraph.start(c_calls: false)
    assert_equal true, Tracegraph._newobj_fast_path
    ObjectSpace.trace_object_allocations_start
    during = allocated_here
    assert_equal false, Tracegraph._newobj_fast_path, "objspace's hook, added while recording"
    Tracegraph.stop
    line = method(:allocated_here).source_location.last
    assert_equal [__FILE__, line], [ObjectSpace.allocation_sourcefile(before), ObjectSpace.allocation_sourceline(before)]
    assert_equal [__FILE__, line], [ObjectSpace.allocation_sourcefile(during), ObjectSpace.allocation_sourceline(during)]
  end

  def churn(n) = Array.new(n) { |i| "s#{i}" * 2 }

  # The collections that allocations start come through the fast path's
  # end (the slab runs out), and each is one run in the profile.
  def test_collections_started_by_allocations_are_each_seen
    GC.start
    runs = nil
    # Counted inside: building the profile at stop may collect too.
    profile = Tracegraph.profile do
      before = GC.count
      4.times { churn(300_000) }
      runs = GC.count - before
    end
    assert_operator runs, :>, 0, "the churn collected"
    assert_equal runs, profile.gc.runs
  end
end

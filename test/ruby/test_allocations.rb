require_relative "test_helper"
require "stringio"

# allocations: true: the objects each method and each call allocated, on
# the same graph as time, and exactly what Ruby itself counts
# (GC.stat(:total_allocated_objects)). The workloads allocate in their own
# bytecode (string and array literals) or in one C method each, so the
# expected numbers are exact on every Ruby. Each is profiled once before
# it is measured: a call site's first call allocates the VM's inline
# cache for it, and with call hooks on Ruby calls `<<` and `+` as methods
# at sites that had no cache before (their inlined forms need none).
class TestAllocations < TracegraphTest
  # Nothing else allocates while a test measures: minitest's worker
  # threads, started at load, have reached their queue, GC.stat has made
  # its symbols (its first call allocates them) and `allocated` has the
  # caches of its call sites.
  def setup
    Thread.pass until Thread.list.all? { |t| t.equal?(Thread.current) || t.stop? }
    allocated { nil }
  end

  # n string literals and the array that holds them: n + 1 objects, all in
  # this method's own bytecode (`while`, not a block: no frame between).
  def build_strings(n)
    list = []
    i = 0
    while i < n
      list << "tracegraph"
      i += 1
    end
    list
  end

  # n calls of a C method that allocates one string each: booked as
  # pending leaves, never given a frame.
  def upcase_many(text, n)
    i = 0
    while i < n
      text.upcase
      i += 1
    end
  end

  # One string per level, `depth + 1` levels.
  def nest(depth)
    _level = "level"
    nest(depth - 1) if depth.positive?
  end

  def ten_strings = build_strings(10)
  def twenty_strings = build_strings(20)

  # Objects Ruby allocated while the block ran.
  def allocated
    before = GC.stat(:total_allocated_objects)
    yield
    GC.stat(:total_allocated_objects) - before
  end

  def profile_allocations(**options, &block)
    warm(&block)
    Tracegraph.profile(allocations: true, **options, &block)
  end

  # Runs the block profiled and not, so its call sites have their caches.
  def warm(&block)
    Tracegraph.profile(allocations: true, &block)
    block.call
  end

  def test_a_method_s_own_allocations_are_exactly_what_it_allocates_unprofiled
    work = -> { build_strings(1000) }
    warm(&work)
    assert_equal 1001, allocated(&work)
    profile = Tracegraph.profile(allocations: true, &work)
    build = method_named(profile, "TestAllocations#build_strings")
    assert_equal 1001, build.self_allocations
    assert_equal 1001, build.allocations
    # list << x runs inline (no call) unless something in this process
    # traced C calls the usual way before (a test oracle's TracePoint):
    # then it is a call of Array#<<, which allocates nothing itself.
    push = profile["Array#<<"]
    assert_equal 0, push.allocations if push
    assert_predicate profile, :allocations?
    assert_equal 1001, profile.total_allocations
  end

  def test_the_profile_s_total_is_what_ruby_counted_while_it_recorded
    work = lambda do
      build_strings(300)
      nest(5)
      upcase_many(+"abc", 40)
      ten_strings.size + twenty_strings.size
    end
    inner = profile = nil
    2.times do # the first run warms the call sites
      profile = Tracegraph.profile(allocations: true) do
        inner = allocated(&work)
      end
    end
    assert_equal allocated(&work), inner # the same work, unprofiled
    assert_equal inner, profile.total_allocations
    assert_equal profile.total_allocations, profile.methods.sum(&:self_allocations)
  end

  # Stopping builds the result (hundreds of objects) with the stack still
  # open: none of it is counted, as none of what a pause and a resume do.
  def test_what_tracegraph_allocates_itself_is_not_counted
    stop_inside = lambda do
      build_strings(10)
      Tracegraph.stop
    end
    2.times do # the first run warms the call sites
      Tracegraph.start(allocations: true)
      stop_inside.call
    end
    block = Tracegraph.last_profile.methods.find { |m| m.name.start_with?("block in") }
    assert_equal 11, block.allocations
    assert_equal 0, block.self_allocations

    pausing = lambda do
      build_strings(10)
      Tracegraph.pause
      build_strings(100)
      Tracegraph.resume
      build_strings(20)
    end
    profile = nil
    2.times { profile = Tracegraph.profile(allocations: true) { pausing.call } }
    block = profile.methods.find { |m| m.name.start_with?("block in") }
    assert_equal 32, block.allocations
    assert_equal 0, block.self_allocations
    assert_equal [2, 32], [method_named(profile, "TestAllocations#build_strings").calls, profile.total_allocations]
  end

  def test_recursion_counts_each_allocation_once_in_totals
    profile = profile_allocations { nest(4) }
    nest = method_named(profile, "TestAllocations#nest")
    assert_equal 5, nest.calls
    assert_equal 5, nest.allocations
    assert_equal 5, nest.self_allocations
    recursion = edge_named(profile, "TestAllocations#nest", "TestAllocations#nest")
    assert_equal 4, recursion.allocations # its outermost call: nest(3) and below
    assert_equal 4, recursion.self_allocations
  end

  def test_each_edge_has_its_caller_s_share
    profile = profile_allocations do
      ten_strings
      twenty_strings
      twenty_strings
    end
    assert_equal 11, edge_named(profile, "TestAllocations#ten_strings", "TestAllocations#build_strings").allocations
    edge = edge_named(profile, "TestAllocations#twenty_strings", "TestAllocations#build_strings")
    assert_equal [2, 42, 42], [edge.calls, edge.allocations, edge.self_allocations]
    build = method_named(profile, "TestAllocations#build_strings")
    assert_equal [53, 53], [build.allocations, build.self_allocations]
    assert_equal [42, 0], [method_named(profile, "TestAllocations#twenty_strings").allocations,
                           method_named(profile, "TestAllocations#twenty_strings").self_allocations]
  end

  def test_a_c_method_s_allocations_are_its_own_without_a_frame
    text = +"abc"
    work = -> { upcase_many(text, 100) }
    warm(&work)
    assert_equal 100, allocated(&work)
    profile = Tracegraph.profile(allocations: true, &work)
    upcase = method_named(profile, "String#upcase")
    assert_equal [100, 100, 100], [upcase.calls, upcase.allocations, upcase.self_allocations]
    assert_equal 100, edge_named(profile, "TestAllocations#upcase_many", "String#upcase").allocations
    assert_equal [100, 0], [method_named(profile, "TestAllocations#upcase_many").allocations,
                            method_named(profile, "TestAllocations#upcase_many").self_allocations]
  end

  def test_another_thread_s_allocations_are_its_own
    work = lambda do
      Thread.new { build_strings(300) }.join
      build_strings(100)
    end
    profile = profile_allocations(&work)
    build = method_named(profile, "TestAllocations#build_strings")
    assert_equal [2, 402], [build.calls, build.allocations]
    thread_block = profile.edges.find { |e| e.callee.equal?(build) && e.caller.name.start_with?("block") }
    assert_equal 301, thread_block.allocations
    # The main thread waited while the other allocated.
    assert_equal 0, method_named(profile, "Thread#join").allocations
  end

  def test_a_fiber_s_allocations_are_its_own
    drive = lambda do |fiber|
      fiber.resume
      build_strings(5)
      fiber.resume
    end
    new_fiber = lambda do
      Fiber.new do
        build_strings(50)
        Fiber.yield
        build_strings(70)
      end
    end
    warm { drive.call(new_fiber.call) }
    fiber = new_fiber.call
    profile = Tracegraph.profile(allocations: true) { drive.call(fiber) }
    assert_equal 0, method_named(profile, "Fiber#resume").allocations
    assert_equal 6, edge_named(profile, profile.methods.find { |m| m.name.start_with?("block in") }.name,
                               "TestAllocations#build_strings").allocations
    build = method_named(profile, "TestAllocations#build_strings")
    assert_equal [3, 128], [build.calls, build.allocations]
  end

  def test_garbage_collection_allocates_nothing_and_stress_changes_no_count
    collect = lambda do
      build_strings(5)
      GC.start
      build_strings(5)
    end
    profile = profile_allocations(&collect)
    assert_equal 0, method_named(profile, Tracegraph::Profile::GC_NODE).allocations
    assert_equal 12, profile.total_allocations

    warm { build_strings(50) }
    begin
      GC.stress = true
      profile = Tracegraph.profile(allocations: true) { build_strings(50) }
    ensure
      GC.stress = false
    end
    assert_operator method_named(profile, Tracegraph::Profile::GC_NODE).calls, :>=, 50
    assert_equal [51, 51], [method_named(profile, "TestAllocations#build_strings").allocations, profile.total_allocations]
  end

  def test_the_hook_is_installed_only_while_counting
    refute Tracegraph._allocation_hook?
    Tracegraph.start
    refute Tracegraph._allocation_hook?, "allocations are off by default: no hook"
    profile = Tracegraph.stop
    refute_predicate profile, :allocations?
    assert_nil profile.total_allocations
    profile.methods.each { |m| assert_nil m.allocations, m.name }

    Tracegraph.start(allocations: true)
    assert Tracegraph._allocation_hook?
    Tracegraph.pause
    refute Tracegraph._allocation_hook?
    Tracegraph.resume
    assert Tracegraph._allocation_hook?
    Tracegraph.stop
    refute Tracegraph._allocation_hook?
  end

  def test_threads_current_counts_the_calling_thread_only
    profile = profile_allocations(threads: :current) do
      Thread.new { build_strings(300) }.join
      build_strings(100)
    end
    assert_equal 101, method_named(profile, "TestAllocations#build_strings").allocations
    assert_equal 0, method_named(profile, "Thread#join").allocations
  end

  def test_the_option_is_checked
    error = assert_raises(ArgumentError) { Tracegraph.start(allocations: 1) }
    assert_match(/allocations/, error.message)
    refute Tracegraph.running?
  end
end

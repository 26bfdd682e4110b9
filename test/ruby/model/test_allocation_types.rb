require_relative "../test_helper"

# Allocations by type (allocations: true): each method's own objects by
# the type Ruby made them as, adding up exactly to its self allocations.
# The workloads allocate in their own bytecode (literals) or in one C
# method each, with shapes that are the same on Ruby 3.1, 3.3 and 3.4:
# Range#each is a C method on all three; Array#each is C before 3.4 and
# Ruby after, and either way the block is a frame of its own that makes
# the objects. Each workload is profiled once before it is measured, so
# its call sites have their caches (see test_allocations.rb).
class TestAllocationTypes < TracegraphTest
  FIVE_HUNDRED = Array.new(500) { |i| i }.freeze
  Pair = Struct.new(:left, :right)

  def setup
    Thread.pass until Thread.list.all? { |t| t.equal?(Thread.current) || t.stop? }
    allocated { nil } # GC.stat's first call makes its symbols
  end

  # Per block call two string literals and the array literal holding
  # them: 1,000 strings and 500 arrays in the block's own bytecode.
  def strings_by_range = (1..500).each { ["tracegraph", "tracegraph"] }
  def strings_by_array = FIVE_HUNDRED.each { ["tracegraph", "tracegraph"] }

  # Per turn a hash literal and an array literal of this method's own,
  # and an object, a struct and a lambda, each made by a C method.
  def one_of_each(n)
    i = 0
    kept = nil
    while i < n
      kept = [{i => i}, Object.new, Pair.new(i, i), lambda { i }]
      i += 1
    end
    kept
  end

  def allocated
    before = GC.stat(:total_allocated_objects)
    yield
    GC.stat(:total_allocated_objects) - before
  end

  def profile_allocations(**options, &block)
    Tracegraph.profile(allocations: true, **options, &block)
    block.call
    Tracegraph.profile(allocations: true, **options, &block)
  end

  # Every method's types add up to its self allocations, and the
  # profile's to its total.
  def assert_types_add_up(profile)
    profile.methods.each do |m|
      assert_equal m.self_allocations, m.allocations_by_type.values.sum, m.name
      assert m.allocations_by_type.values.all?(&:positive?), "#{m.name}: a zero type is left out"
    end
    assert_equal profile.total_allocations, profile.allocations_by_type.values.sum
  end

  def test_a_block_s_thousand_strings_and_five_hundred_arrays_are_counted_exactly
    {"strings_by_range" => -> { strings_by_range }, "strings_by_array" => -> { strings_by_array }}.each do |name, work|
      profile_allocations(&work)
      assert_equal 1500, allocated(&work), "#{name}, unprofiled"
      profile = Tracegraph.profile(allocations: true, &work)
      block = method_named(profile, "block in TestAllocationTypes##{name}")
      assert_equal 500, block.calls
      assert_equal({"String" => 1000, "Array" => 500}, block.allocations_by_type, name)
      assert_equal 1500, block.self_allocations
      assert_equal [["String", 1000], ["Array", 500]], block.allocations_by_type.to_a, "biggest first"
      assert_equal({}, method_named(profile, "TestAllocationTypes##{name}").allocations_by_type)
      assert_equal({"String" => 1000, "Array" => 500}, profile.allocations_by_type)
      assert_types_add_up(profile)
    end
  end

  def test_without_block_frames_the_iterator_running_the_block_has_them
    profile = profile_allocations(blocks: false) { strings_by_range }
    assert_equal({"String" => 1000, "Array" => 500}, method_named(profile, "Range#each").allocations_by_type)
    assert_types_add_up(profile)
  end

  def test_each_kind_of_object_has_its_type
    profile = profile_allocations { one_of_each(100) }
    assert_equal({"Array" => 100, "Hash" => 100},
                 method_named(profile, "TestAllocationTypes#one_of_each").allocations_by_type)
    whole = profile.allocations_by_type
    assert_equal [100, 100, 100], [whole["Object"], whole["Struct"], whole["Proc"]], whole.inspect
    assert_types_add_up(profile)
  end

  def test_objects_outside_any_method_belong_to_no_type_as_to_no_method
    profile = nil
    2.times do
      profile = Tracegraph.profile(allocations: true) do
        _top = ["at", "the", "top"]
        strings_by_range
      end
    end
    assert_equal({"String" => 1000, "Array" => 500}, profile.allocations_by_type)
    assert_types_add_up(profile)
  end

  def test_threads_fibers_and_collections_keep_them_adding_up
    work = lambda do
      fiber = Fiber.new do
        one_of_each(10)
        Fiber.yield
        strings_by_array
      end
      fiber.resume
      Thread.new { strings_by_range }.join
      fiber.resume
      GC.start
    end
    profile = profile_allocations(&work)
    assert_types_add_up(profile)
    assert_operator profile.allocations_by_type["String"], :>=, 2000

    begin
      GC.stress = true
      profile = Tracegraph.profile(allocations: true) { one_of_each(20) }
    ensure
      GC.stress = false
    end
    assert_types_add_up(profile)
    assert_equal({}, method_named(profile, Tracegraph::Profile::GC_NODE).allocations_by_type)
  end

  def test_a_profile_without_allocations_has_no_types
    profile = Tracegraph.profile { strings_by_range }
    assert_nil profile.allocations_by_type
    profile.methods.each { |m| assert_nil m.allocations_by_type, m.name }
  end
end

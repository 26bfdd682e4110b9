require_relative "test_helper"

# Exceptions, throw/catch, break and stack overflows unwind several frames
# at once; the shadow stack must stay in step.
class TestUnwinding < TracegraphTest
  def raiser(depth) = depth.zero? ? raise(ArgumentError, "deep") : raiser(depth - 1)

  def rescuer
    raiser(100)
  rescue ArgumentError
    after_rescue
  end

  def after_rescue = :ok

  def test_exception_through_100_frames
    profile = Tracegraph.profile(c_calls: false) { 3.times { rescuer } }
    assert_equal 303, method_named(profile, "TestUnwinding#raiser").calls
    assert_equal 3, edge_named(profile, "TestUnwinding#rescuer", "TestUnwinding#after_rescue").calls
    assert_nil profile.edge("TestUnwinding#raiser", "TestUnwinding#after_rescue")
    assert_consistent profile
  end

  def thrower = [1, 2, 3].each { |i| throw :done, i if i == 2 }
  def catcher = catch(:done) { thrower }
  def breaker = [1, 2, 3].map { |i| break i if i == 2 }
  def nexter = [1, 2, 3].map { |i| next i * 2 }
  def returner
    3.times { |i| return i if i == 1 }
  end

  def ensurer
    raise "boom"
  ensure
    after_rescue
  end

  def test_throw_break_next_return_and_ensure_across_c_methods
    profile = Tracegraph.profile do
      5.times do
        catcher
        breaker
        nexter
        returner
        begin
          ensurer
        rescue RuntimeError
          nil
        end
        after_rescue
      end
    end
    %w[catcher thrower breaker nexter returner ensurer].each do |name|
      assert_equal 5, method_named(profile, "TestUnwinding##{name}").calls, name
    end
    # after_rescue is called from ensurer's ensure and from the block.
    outer = "block (2 levels) in TestUnwinding#test_throw_break_next_return_and_ensure_across_c_methods"
    assert_equal 5, edge_named(profile, "TestUnwinding#ensurer", "TestUnwinding#after_rescue").calls
    assert_equal 5, edge_named(profile, "Integer#times", outer).calls
    assert_equal 5, edge_named(profile, outer, "TestUnwinding#after_rescue").calls
    assert_equal 5, edge_named(profile, "TestUnwinding#thrower", "Array#each").calls
    # Each block is left by its own kind of exit, and counted exactly: it
    # runs until i == 2 (throw, break, return at i == 1), or 3 times (next).
    assert_equal 5, edge_named(profile, "Kernel#catch", "block in TestUnwinding#catcher").calls
    assert_equal 5, edge_named(profile, "block in TestUnwinding#catcher", "TestUnwinding#thrower").calls
    assert_equal 10, edge_named(profile, "Array#each", "block in TestUnwinding#thrower").calls
    assert_equal 10, edge_named(profile, "Array#map", "block in TestUnwinding#breaker").calls
    assert_equal 15, edge_named(profile, "Array#map", "block in TestUnwinding#nexter").calls
    assert_equal 10, edge_named(profile, "Integer#times", "block in TestUnwinding#returner").calls
    assert_equal 5, edge_named(profile, "block in TestUnwinding#thrower", "Kernel#throw").calls
    assert_consistent profile
  end

  def recurse_forever(n) = recurse_forever(n + 1) + 1
  def after_overflow = :ok
  def overflow_then_work
    recurse_forever(0)
  rescue SystemStackError
    after_overflow
  end

  def test_system_stack_error_resynchronises
    profile = Tracegraph.profile do
      overflow_then_work
      2.times { after_overflow }
    end
    assert_operator method_named(profile, "TestUnwinding#recurse_forever").calls, :>, 1000
    assert_equal 1, edge_named(profile, "TestUnwinding#overflow_then_work", "TestUnwinding#after_overflow").calls
    block = "block (2 levels) in TestUnwinding#test_system_stack_error_resynchronises"
    assert_equal 2, edge_named(profile, "Integer#times", block).calls
    assert_equal 2, edge_named(profile, block, "TestUnwinding#after_overflow").calls
    assert_nil profile.edge("TestUnwinding#recurse_forever", "TestUnwinding#after_overflow")
    assert_consistent profile
  end

  def overflow_with_ensure
    recurse_forever(0)
  ensure
    after_overflow
  end

  def test_system_stack_error_through_ensure_without_c_calls
    profile = Tracegraph.profile(c_calls: false) do
      begin
        overflow_with_ensure
      rescue SystemStackError
        nil
      end
      after_overflow
    end
    assert_equal 2, method_named(profile, "TestUnwinding#after_overflow").calls
    assert_equal 1, edge_named(profile, "TestUnwinding#overflow_with_ensure", "TestUnwinding#after_overflow").calls
    # The second call is a bottom frame: nothing stale is left to be its caller.
    assert_equal 1, profile.edges.count { |e| e.callee.name == "TestUnwinding#after_overflow" }
    assert_consistent profile
  end

  def test_an_exception_in_the_block_propagates_and_keeps_the_profile
    error = assert_raises(ArgumentError) { Tracegraph.profile { rescuer; raiser(3) } }
    assert_equal "deep", error.message
    refute Tracegraph.running?
    profile = Tracegraph.last_profile
    assert_equal 1, method_named(profile, "TestUnwinding#rescuer").calls
    assert_equal 105, method_named(profile, "TestUnwinding#raiser").calls
    assert_consistent profile
  end
end

require_relative "test_helper"

# Classes are hash keys in the profiler: they must survive (and not move
# under) compaction, and GC.stress must find every object it keeps marked.
class TestGC < TracegraphTest
  class Shape
    def area = 1
  end

  def make_classes(n)
    Array.new(n) do |i|
      klass = Class.new(Shape) { define_method(:area) { i } }
      klass.new.area
      klass
    end
  end

  def churn = Array.new(200) { |i| "s#{i}" * 3 }

  def test_gc_compact_during_profiling_keeps_names
    profile = Tracegraph.profile do
      churn
      Shape.new.area
      GC.compact
      churn
      Shape.new.area
      GC.compact
    end
    assert_equal 2, method_named(profile, "TestGC::Shape#area").calls
    assert_equal 2, method_named(profile, "TestGC#churn").calls
    assert_equal 2, method_named(profile, "GC.compact").calls
    assert_consistent profile
  end

  def test_verify_compaction_references
    skip "needs GC.verify_compaction_references" unless GC.respond_to?(:verify_compaction_references)
    profile = Tracegraph.profile do
      make_classes(20)
      GC.verify_compaction_references(double_heap: true, toward: :empty)
      Shape.new.area
    end
    assert_equal 1, method_named(profile, "TestGC::Shape#area").calls
    assert_equal 1, method_named(profile, "TestGC#make_classes").calls
    anonymous = profile.methods.select { |m| m.name.match?(/\A#<Class:.+:\d+>#area\z/) }
    assert_equal 20, anonymous.size
    assert_consistent profile
  end

  # The thread-filtered hook and the paused one keep their thread and
  # stacks through GC.stress and compaction; the pause's classes were
  # first seen before it.
  def test_gc_stress_and_compact_with_threads_current_and_a_pause
    profile = nil
    begin
      GC.stress = true
      profile = Tracegraph.profile(threads: :current) do
        make_classes(3)
        Tracegraph.pause
        churn
        GC.compact if GC.respond_to?(:compact)
        Tracegraph.resume
        churn
      end
    ensure
      GC.stress = false
    end
    assert_equal 1, method_named(profile, "TestGC#make_classes").calls
    assert_equal 1, method_named(profile, "TestGC#churn").calls
    assert_nil profile["GC.compact"]
    assert_consistent profile
  end

  def test_gc_stress_while_defining_classes_and_methods
    profile = nil
    begin
      GC.stress = true
      profile = Tracegraph.profile { make_classes(5); churn }
    ensure
      GC.stress = false
    end
    assert_equal 1, method_named(profile, "TestGC#make_classes").calls
    assert_equal 5, profile.methods.count { |m| m.name.end_with?("#area") && m.name.start_with?("#<Class:") }
    assert_consistent profile
  end

  def test_classes_dropped_while_profiling_keep_their_names
    profile = Tracegraph.profile { 3.times { make_classes(100) }; GC.start }
    assert_equal 300, profile.methods.count { |m| m.name.start_with?("#<Class:") && m.name.end_with?("#area") }
    assert_consistent profile
  end

  # Blocks are keyed by their instruction sequences: compiled code that is
  # dropped while profiling (eval'd, then unreachable) keeps its blocks'
  # names and lines through compaction and GC.stress, and no other block
  # takes their place.
  def eval_blocks(n)
    Array.new(n) do |i|
      code = "def self.block_#{i} = [#{i}].map { |x| x + 1 }\nblock_#{i}"
      Object.new.instance_eval(code, "evaluated_#{i}.rb", 10 + i)
    end
  end

  def test_blocks_of_dropped_code_survive_compaction_and_stress
    profile = nil
    begin
      GC.stress = true
      profile = Tracegraph.profile do
        eval_blocks(5)
        GC.compact if GC.respond_to?(:compact)
        eval_blocks(5)
      end
    ensure
      GC.stress = false
    end
    blocks = profile.methods.select { |m| m.name.start_with?("block in ") && m.name.include?(".block_") }
    # Each eval compiles its code afresh: ten blocks, two of each name.
    assert_equal 10, blocks.size, profile.methods.map(&:name).inspect
    blocks.each do |m|
      i = m.name[/block_(\d+)/, 1].to_i
      assert_equal ["evaluated_#{i}.rb", 10 + i, 1], [m.file, m.line, m.calls]
    end
    assert_consistent profile
  end
end

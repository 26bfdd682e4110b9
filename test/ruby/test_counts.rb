require_relative "test_helper"

# The seed program: exact call and edge counts.
class SeedProgram
  # Range#each, not Integer#times: it is a C method on every Ruby we
  # support (Integer#times is written in Ruby since 3.3, and calls
  # Integer#< and Integer#succ), so the expected numbers hold on all.
  def main
    (1..3).each do
      find_many_square_roots
      find_many_squares
    end
  end

  def find_many_square_roots
    (0...5000).each { |i| Math.sqrt(i) }
  end

  def find_many_squares
    (0...5000).each { |i| i**2 }
  end
end

class TestCounts < TracegraphTest
  # blocks: false, the method-only view: Range#each runs the blocks' work.
  def test_seed_program_counts_are_exact_without_blocks
    program = SeedProgram.new
    profile = Tracegraph.profile(blocks: false) { program.main }

    assert_equal 1, method_named(profile, "SeedProgram#main").calls
    assert_equal 3, method_named(profile, "SeedProgram#find_many_square_roots").calls
    assert_equal 3, method_named(profile, "SeedProgram#find_many_squares").calls
    assert_equal 15_000, method_named(profile, "Math.sqrt").calls
    assert_equal 15_000, method_named(profile, "Integer#**").calls
    assert_equal 7, method_named(profile, "Range#each").calls

    assert_equal 1, edge_named(profile, "SeedProgram#main", "Range#each").calls
    assert_equal 3, edge_named(profile, "Range#each", "SeedProgram#find_many_square_roots").calls
    assert_equal 3, edge_named(profile, "SeedProgram#find_many_square_roots", "Range#each").calls
    assert_equal 15_000, edge_named(profile, "Range#each", "Math.sqrt").calls
    assert_equal 15_000, edge_named(profile, "Range#each", "Integer#**").calls
    assert_equal 6, program_methods(profile).size, profile.methods.map(&:name).inspect
    assert_equal 7, program_edges(profile).size
    assert_consistent profile
  end

  # Blocks as frames (the default): each block is a method of its own,
  # between Range#each and what the block calls, with its file and first
  # line.
  def test_seed_program_counts_are_exact
    program = SeedProgram.new
    profile = Tracegraph.profile(threads: :current) { program.main }
    main_block = "block in SeedProgram#main"
    roots_block = "block in SeedProgram#find_many_square_roots"
    squares_block = "block in SeedProgram#find_many_squares"

    assert_equal 3, method_named(profile, main_block).calls
    assert_equal 15_000, method_named(profile, roots_block).calls
    assert_equal 15_000, method_named(profile, squares_block).calls
    assert_equal 7, method_named(profile, "Range#each").calls
    assert_equal [__FILE__, 9], [method_named(profile, main_block).file, method_named(profile, main_block).line]
    assert_equal 16, method_named(profile, roots_block).line

    assert_equal 1, edge_named(profile, "SeedProgram#main", "Range#each").calls
    assert_equal 3, edge_named(profile, "Range#each", main_block).calls
    assert_equal 3, edge_named(profile, main_block, "SeedProgram#find_many_square_roots").calls
    assert_equal 3, edge_named(profile, main_block, "SeedProgram#find_many_squares").calls
    assert_equal 3, edge_named(profile, "SeedProgram#find_many_square_roots", "Range#each").calls
    assert_equal 15_000, edge_named(profile, "Range#each", roots_block).calls
    assert_equal 15_000, edge_named(profile, roots_block, "Math.sqrt").calls
    assert_equal 15_000, edge_named(profile, "Range#each", squares_block).calls
    assert_equal 15_000, edge_named(profile, squares_block, "Integer#**").calls
    # Not the block given to Tracegraph.profile: main is still the root.
    assert_equal 9, profile.methods.size, profile.methods.map(&:name).inspect
    assert_equal 10, profile.edges.size
    assert_consistent profile
  end

  class Made
    define_method(:made) { [1, 2].map { |x| x * 2 } }
  end

  # A define_method method is one method, with its name; the blocks in its
  # body count their levels from it.
  def test_define_method_keeps_its_name_with_blocks
    object = Made.new
    profile = Tracegraph.profile(threads: :current) { 2.times { object.made } }
    assert_equal 2, method_named(profile, "TestCounts::Made#made").calls
    assert_equal 4, method_named(profile, "block in TestCounts::Made#made").calls
    assert_equal 2, edge_named(profile, "TestCounts::Made#made", "Array#map").calls
    assert_equal 4, edge_named(profile, "Array#map", "block in TestCounts::Made#made").calls
    assert_equal 2, edge_named(profile, "block (2 levels) in TestCounts#test_define_method_keeps_its_name_with_blocks",
                               "TestCounts::Made#made").calls
    assert profile.methods.none? { |m| m.name.include?("<class:") }, profile.methods.map(&:name).inspect
    assert_consistent profile
  end

  def test_locations_of_ruby_methods_and_none_for_c
    profile = Tracegraph.profile { SeedProgram.new.main }
    main = method_named(profile, "SeedProgram#main")
    assert_equal __FILE__, main.file
    assert_equal SeedProgram.instance_method(:main).source_location.last, main.line
    refute main.c_method?
    sqrt = method_named(profile, "Math.sqrt")
    assert sqrt.c_method?
    assert_nil sqrt.file
  end

  def test_without_c_calls_only_ruby_methods_are_recorded
    profile = Tracegraph.profile(c_calls: false) { SeedProgram.new.main }
    assert_equal ["SeedProgram#find_many_square_roots", "SeedProgram#find_many_squares", "SeedProgram#main",
                  "block in SeedProgram#find_many_square_roots", "block in SeedProgram#find_many_squares",
                  "block in SeedProgram#main"],
                 program_methods(profile).map(&:name).sort
    # Range#each is not recorded: the blocks hang from the methods they are in.
    assert_equal 3, edge_named(profile, "SeedProgram#main", "block in SeedProgram#main").calls
    assert_equal 3, edge_named(profile, "block in SeedProgram#main", "SeedProgram#find_many_squares").calls
    assert_equal 15_000,
                 edge_named(profile, "SeedProgram#find_many_squares", "block in SeedProgram#find_many_squares").calls
    assert_consistent profile
  end

  def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

  def test_recursion_counts_calls_exactly_and_time_once
    profile = Tracegraph.profile(c_calls: false) { fib(20) }
    fib = method_named(profile, "TestCounts#fib")
    assert_equal 21_891, fib.calls
    assert_equal 21_890, edge_named(profile, "TestCounts#fib", "TestCounts#fib").calls
    # The whole profile is fib: its total is the outermost call, not a sum over depths.
    assert_equal profile.total_time, fib.total_time
    assert_equal fib.total_time, fib.self_time
    assert_operator edge_named(profile, "TestCounts#fib", "TestCounts#fib").total_time, :<, fib.total_time
    assert_consistent profile
  end

  def test_profile_block_and_tracegraph_methods_are_not_in_the_profile
    profile = Tracegraph.profile { SeedProgram.new.main }
    names = profile.methods.map(&:name)
    assert names.none? { |n| n.start_with?("Tracegraph") }, names.inspect
    program = SeedProgram.new
    Tracegraph.start
    program.find_many_squares
    profile = Tracegraph.stop
    assert_equal ["Integer#**", "Range#each", "SeedProgram#find_many_squares", "block in SeedProgram#find_many_squares"],
                 program_methods(profile).map(&:name).sort
    assert profile.edges.none? { |e| e.caller.name.start_with?("Tracegraph") }
  end

  def test_a_thread_bottom_frame_has_no_caller_edge
    profile = Tracegraph.profile(c_calls: false) { SeedProgram.new.main }
    assert profile.edges.none? { |e| e.callee.name == "SeedProgram#main" }
  end

  class Redefined
    def greet = :first
    def match?(text) = text =~ /b+/ ? $~[0] : nil   # leaves $~ in its frame
    def call_both = [greet, match?("abba")]
  end

  # A method redefined mid-profile gets a new method entry (how the hook
  # recognises Ruby methods), but it is the same method by class and name.
  # A method that sets $~ keeps it where the entry usually sits.
  def test_redefined_methods_and_methods_using_backrefs_count_once_by_name
    object = Redefined.new
    # Method-only: the three blocks here would be methods too.
    profile = Tracegraph.profile(c_calls: false, blocks: false) do
      [1, 2, 3].each { object.call_both }
      Redefined.class_eval { def greet = :second }
      [1, 2, 3].each { object.call_both }
    end
    assert_equal 6, method_named(profile, "TestCounts::Redefined#greet").calls
    assert_equal 6, method_named(profile, "TestCounts::Redefined#match?").calls
    assert_equal 6, edge_named(profile, "TestCounts::Redefined#call_both", "TestCounts::Redefined#match?").calls
    expected = %w[TestCounts::Redefined#call_both TestCounts::Redefined#greet TestCounts::Redefined#match?]
    expected.unshift("Array#each") if ruby_array_each?
    assert_equal expected, program_methods(profile).map(&:name).sort
    assert_consistent profile
  ensure
    Redefined.class_eval { def greet = :first }
  end
end

require_relative "test_helper"
require "open3"
require "rbconfig"

# After Tracegraph.stop the program runs as before start: Ruby's
# instructions are plain again (ext/tracegraph/binding/iseq_untrace.c), so
# that YJIT can compile them, and the next profile traces them again.
class TestUntrace < TracegraphTest
  def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

  def each_twice(items) = items.each { |x| x.to_s }.each { |x| x + 1 }

  def setup
    skip "TRACEGRAPH_NO_UNTRACE is set" if ENV["TRACEGRAPH_NO_UNTRACE"]
  end

  def iseq_of(name) = RubyVM::InstructionSequence.of(method(name))

  def test_the_probe_trusts_this_ruby
    assert_nil Tracegraph._untrace_unsure, "iseq_untrace.c's probe rejected #{RUBY_DESCRIPTION}"
  end

  def test_what_ran_in_a_profile_is_plain_after_it_and_counted_exactly_in_the_next
    2.times do |round|
      profile = Tracegraph.profile { fib(15) + each_twice([1, 2, 3]).size }
      assert_equal 1973, method_named(profile, "TestUntrace#fib").calls, "round #{round}"
      # each_twice's two blocks, on one line, are named by their columns;
      # through the public API they are one node (one_node_per_line?).
      blocks = profile.methods.select { |m| m.name.start_with?("block in TestUntrace#each_twice") }
      assert_equal by_path([3, 3], [3 + 3]), blocks.map(&:calls), "round #{round}"
      assert_equal 0, Tracegraph._traced_instructions(iseq_of(:fib)), "fib stays traced after round #{round}"
      assert_equal 0, Tracegraph._traced_instructions(iseq_of(:each_twice))
    end
  end

  def test_blocks_and_c_calls_are_counted_again_after_an_untrace
    Tracegraph.profile { each_twice([1]) }
    profile = Tracegraph.profile { each_twice([1, 2, 3, 4]) }
    assert_equal 4, method_named(profile, "Integer#to_s").calls
    assert_equal 1, method_named(profile, "TestUntrace#each_twice").calls
    blocks = profile.methods.select { |m| m.name.start_with?("block in TestUntrace#each_twice") }
    assert_equal by_path([4, 4], [4 + 4]), blocks.map(&:calls)
  end

  def test_code_compiled_after_a_profile_is_not_traced
    Tracegraph.profile { fib(3) }
    later = Class.new { def later(x) = x + 1 }
    assert_equal 0, Tracegraph._traced_instructions(RubyVM::InstructionSequence.of(later.instance_method(:later)))
  end

  def test_code_compiled_during_a_profile_is_plain_after_it
    klass = nil
    Tracegraph.profile { klass = Class.new { def during(x) = [x].map { |y| y * 2 } } }
    assert_equal 0, Tracegraph._traced_instructions(RubyVM::InstructionSequence.of(klass.instance_method(:during)))
  end

  def test_after_gc_compact_the_next_profile_is_exact
    skip "GC.compact is not supported here" unless GC.respond_to?(:compact)
    Tracegraph.profile { fib(10) }
    GC.compact
    profile = Tracegraph.profile { fib(12) }
    assert_equal 465, method_named(profile, "TestUntrace#fib").calls
    assert_equal 0, Tracegraph._traced_instructions(iseq_of(:fib))
  end

  # Each in a fresh process: the warning is said once per process.
  def run_ruby(script)
    Open3.capture3(RbConfig.ruby, "-I", File.expand_path("../../lib", __dir__), "-e", script)
  end

  def test_another_tracepoint_keeps_the_instructions_traced_and_says_so_once
    out, err, status = run_ruby(<<~'RUBY')
      require "tracegraph"
      def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
      lines = 0
      tp = TracePoint.new(:line) { |t| lines += 1 if t.method_id == :fib }
      tp.enable
      2.times { Tracegraph.profile { fib(5) } }
      before = lines
      fib(3)
      tp.disable
      puts "lines #{lines - before}"
      puts "traced #{Tracegraph._traced_instructions(RubyVM::InstructionSequence.of(method(:fib))) > 0}"
      Tracegraph.profile { fib(5) } # alone now: untraced
      puts "alone #{Tracegraph._traced_instructions(RubyVM::InstructionSequence.of(method(:fib)))}"
    RUBY
    assert status.success?, err
    assert_equal ["lines 5", "traced true", "alone 0"], out.lines.map(&:chomp)
    warnings = err.lines.grep(/stay traced/)
    assert_equal 1, warnings.size, err
    assert_match(/another event hook wants line events \(a TracePoint, a debugger or coverage\)/, warnings.first)
  end

  def test_a_targeted_tracepoint_keeps_its_method_traced_and_firing
    out, err, status = run_ruby(<<~'RUBY')
      require "tracegraph"
      def watched(x) = x + 1
      def other(x) = x * 2
      calls = 0
      tp = TracePoint.new(:call) { calls += 1 }
      tp.enable(target: method(:watched))
      Tracegraph.profile { watched(1); other(2) }
      watched(3)
      puts "calls #{calls}"
      puts "other #{Tracegraph._traced_instructions(RubyVM::InstructionSequence.of(method(:other)))}"
      tp.disable
    RUBY
    assert status.success?, err
    assert_equal ["calls 2", "other 0"], out.lines.map(&:chomp)
    assert_empty err.lines.grep(/stay traced/)
  end

  def test_coverage_keeps_the_instructions_traced_and_says_why
    _, err, status = run_ruby(<<~'RUBY')
      require "coverage"
      require "tracegraph"
      Coverage.start(lines: true)
      eval("def covered(x) = x + 1\ncovered(1)\n")
      Tracegraph.profile { covered(2) }
      Coverage.result
    RUBY
    assert status.success?, err
    assert_match(/stay traced after this profile: (coverage|another event hook wants coverage)/, err)
  end

  def test_at_the_end_of_the_command_nothing_is_untraced
    # The process ends after its profile: stop_if_running leaves the
    # instructions as they are rather than walk the heap for nothing.
    out, err, status = run_ruby(<<~'RUBY')
      require "tracegraph"
      def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
      Tracegraph.start
      fib(5)
      Tracegraph.stop_if_running
      puts Tracegraph._traced_instructions(RubyVM::InstructionSequence.of(method(:fib))) > 0
    RUBY
    assert status.success?, err
    assert_equal "true", out.chomp
  end

  def test_under_yjit_repeated_profiles_do_not_fill_its_code_memory
    skip "YJIT is not on (rake test:rubies runs this under 3.4-yjit)" unless defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?
    pages = lambda do
      300.times { fib(14) } # warm: YJIT compiles fib again
      RubyVM::YJIT.runtime_stats[:live_page_count]
    end
    Tracegraph.profile { fib(10) }
    first = pages.call
    200.times { Tracegraph.profile { fib(10) } }
    assert_operator pages.call, :<=, first + 4, "YJIT's live code pages grew with the profiles"
    assert_equal 0, Tracegraph._traced_instructions(iseq_of(:fib))
  end
end

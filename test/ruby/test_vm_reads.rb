require_relative "test_helper"
require_relative "cli_helper"

# The hook reads a few VM internals (ext/tracegraph/ruby_vm.h), trusted
# only after the probe at the first start checked them. Without them it
# uses Ruby's public API alone, and call counts must stay exact.
class TestVmReads < TracegraphTest
  include CliHelper

  def test_the_probe_trusts_the_vm_reads_on_this_ruby
    skip "TRACEGRAPH_NO_VM_READS is set" if ENV["TRACEGRAPH_NO_VM_READS"]
    Tracegraph.profile { nil }
    assert Tracegraph._vm_reads?, "the probe rejected this Ruby's VM layout (#{RUBY_DESCRIPTION})"
    assert_operator Tracegraph._frame_size, :>, 0
  end

  # In a child process, where the probe has not run yet: counts recorded
  # through the public API alone equal a TracePoint's count of the same run.
  COUNTING_SCRIPT = <<~'RUBY'
    require "tracegraph"
    require "json"
    class Shape
      attr_accessor :size
      def self.build(n) = Array.new(n) { |i| new(i) }
      def initialize(size) = @size = size
      def area = size * size
      define_method(:double) { area * 2 }
      def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
    end
    def name_of(klass, mid)
      return nil unless klass
      if klass.singleton_class?
        owner = ObjectSpace.each_object(klass).find { |o| o.singleton_class == klass rescue false }
        owner.is_a?(Module) && owner.name ? "#{owner.name}.#{mid}" : nil
      else
        klass.name && "#{klass.name}##{mid}"
      end
    end
    counts = Hash.new(0)
    tp = TracePoint.new(:call, :c_call) { |t| counts[[t.defined_class, t.method_id]] += 1 }
    profile = Tracegraph.profile do
      tp.enable
      shapes = Shape.build(50)
      shapes.each { |s| s.double; s.size = s.area % 7 }
      shapes.first.fib(12)
      [3, 1, 2].sort.map(&:to_s).join(",")
      begin
        Integer("zz")
      rescue ArgumentError
        nil
      end
      tp.disable
    end
    expected = counts.to_h { |(k, m), n| [name_of(k, m), n] }
    expected.delete(nil)
    expected.reject! { |name, _| name.start_with?("Tracegraph.", "TracePoint#") }
    got = profile.methods.to_h { |m| [m.name, m.calls] }.slice(*expected.keys)
    puts JSON.generate("vm_reads" => Tracegraph._vm_reads?, "expected" => expected, "got" => got)
  RUBY

  def run_counting_script(env)
    out, err, status = ruby("-e", COUNTING_SCRIPT, chdir: ROOT, env: env)
    assert status.success?, err
    JSON.parse(out.lines.last)
  end

  def test_public_api_fallback_keeps_counts_exact
    result = run_counting_script("TRACEGRAPH_NO_VM_READS" => "1")
    refute result["vm_reads"], "TRACEGRAPH_NO_VM_READS must turn the VM reads off"
    assert_operator result["expected"].size, :>=, 10
    assert_equal result["expected"], result["got"]
    assert_equal 50, result["got"]["Shape#double"]
    assert_equal 465, result["got"]["Shape#fib"]
  end

  def test_vm_reads_give_the_same_counts
    skip "TRACEGRAPH_NO_VM_READS is set" if ENV["TRACEGRAPH_NO_VM_READS"]
    result = run_counting_script({})
    assert result["vm_reads"]
    assert_equal result["expected"], result["got"]
  end
end

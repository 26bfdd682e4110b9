require_relative "test_helper"
require_relative "cli_helper"

# The hook reads a few VM internals (ext/tracegraph/binding/ruby_vm.h), trusted
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

  # Methods that match a regexp (setting $~, which moves the method entry
  # in their frame into an svar) are found at their return from that
  # frame, as any other: before, each such return asked Ruby the slow way,
  # several hundred ns inside the method's own time (coderay's scanner
  # took it at one event in 32).
  def matches(text) = (/b/ =~ text)
  def sets_last_match(text) = text.sub(/b/, "c")

  def test_a_method_that_set_last_match_is_found_at_its_return_without_asking_ruby
    skip "TRACEGRAPH_NO_VM_READS is set" if ENV["TRACEGRAPH_NO_VM_READS"]
    calls = 5_000
    args = Tracegraph.send(:parse_start_options, {c_calls: false, blocks: false}, hide_next_call: false)
    Tracegraph._start(args.merge(hide_next_block: false, event_costs: nil))
    i = 0
    while i < calls
      matches("abc")
      sets_last_match("abc")
      i += 1
    end
    raw = Tracegraph._stop
    assert Tracegraph._vm_reads?
    counts = raw[:methods].to_h { |name, _file, _line, _c, n| [name, n] }
    assert_equal calls, counts["#{self.class}#matches"]
    assert_equal calls, counts["#{self.class}#sets_last_match"]
    slow = raw.dig(:tracing, :slow_lookups)
    assert_operator slow, :<, 20, "events that missed the hook's method cache, of #{4 * calls}"
  ensure
    Tracegraph._stop if Tracegraph.running?
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

  # Blocks through the public API too: each block's calls equal
  # TracePoint's b_call count at its first line (define_method bodies,
  # which are their methods, left out), one-line methods with blocks
  # included. (Two blocks of one method on one line would share a node
  # there; this program has none.)
  BLOCKS_SCRIPT = <<~'RUBY'
    require "tracegraph"
    require "json"
    class Orders
      def total(lines) = lines.sum { |l| l * 2 }
      def each_line(lines)
        lines.each { |l| yield l }
      end
      def count(lines)
        n = 0
        each_line(lines) do |l|
          n += 1 if l.odd?
        end
        n
      end
      define_method(:made) { |lines| lines.map { |l| l + 1 } }
      def recurse(n, &blk) = n.zero? ? yield : recurse(n - 1) { blk.call }
    end
    o = Orders.new
    counts = Hash.new(0)
    body = Orders.instance_method(:made).source_location.last
    # A define_method body fires b_call too, at its line, once per call.
    tp = TracePoint.new(:b_call, :call) do |t|
      next unless t.path == __FILE__
      counts[t.lineno] += t.event == :b_call ? 1 : (t.method_id == :made ? -1 : 0)
    end
    profile = Tracegraph.profile do
      tp.enable
      3.times do
        o.total([1, 2, 3])
        o.count([1, 2, 3, 4])
        o.made([1, 2])
        o.recurse(3) { :done }
      end
      tp.disable
    end
    expected = counts.reject { |_, n| n.zero? }
    got = profile.methods.select { |m| m.name.start_with?("block ") && m.file == __FILE__ }.to_h { |m| [m.line, m.calls] }
    names = profile.methods.map(&:name)
    puts JSON.generate("vm_reads" => Tracegraph._vm_reads?, "expected" => expected, "got" => got, "names" => names)
  RUBY

  def run_blocks_script(env)
    out, err, status = ruby("-e", BLOCKS_SCRIPT, chdir: ROOT, env: env)
    assert status.success?, err
    JSON.parse(out.lines.last)
  end

  def test_blocks_through_the_public_api_are_counted_exactly
    [{"TRACEGRAPH_NO_VM_READS" => "1"}, {}].each do |env|
      result = run_blocks_script(env)
      assert_equal env.empty? && !ENV["TRACEGRAPH_NO_VM_READS"], result["vm_reads"]
      assert_operator result["expected"].size, :>=, 6
      assert_equal result["expected"], result["got"], env.inspect
      assert_includes result["names"], "Orders#made"
      assert_includes result["names"], "block in Orders#made"
      refute result["names"].any? { |n| n.include?("<class:Orders>") }, result["names"].inspect
    end
  end
  # The one thing the public API cannot tell apart: two blocks of one
  # method that start on one line (Ruby answers the same method entry and
  # line for both). They are one node with their calls added up, and
  # docs/rubies.md says so; with the VM reads they are two.
  ONE_LINE_SCRIPT = <<~'RUBY'
    require "tracegraph"
    require "json"
    class Job
      def work = 1
      def run = catch(:done) { [1, 2].each { work } }
    end
    profile = Tracegraph.profile { Job.new.run }
    blocks = profile.methods.select { |m| m.name.start_with?("block") }
    puts JSON.generate(blocks.to_h { |m| [m.name, m.calls] })
  RUBY

  def test_blocks_on_one_line_are_one_node_through_the_public_api
    one_line = ->(env) do
      out, err, status = ruby("-e", ONE_LINE_SCRIPT, chdir: ROOT, env: env)
      assert status.success?, err
      JSON.parse(out.lines.last)
    end
    assert_equal({"block in Job#run" => 1 + 2}, one_line.({"TRACEGRAPH_NO_VM_READS" => "1"}))
    assert_equal({"block in Job#run" => 1, "block (2 levels) in Job#run" => 2}, one_line.({"TRACEGRAPH_NO_VM_READS" => "0"}))
    doc = File.read(File.join(ROOT, "docs/rubies.md"))
    section = doc[/^### Blocks that start on one line\n.*?(?=^#)/m]
    refute_nil section, "docs/rubies.md states the limit in its own section"
    assert_includes section.gsub(/\s+/, " "), "are one node, named after the outermost of them, with their calls added up"
  end
end

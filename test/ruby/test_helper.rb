# No minitest plugins: where Rails 7 is installed (Debian's ruby-rails in
# the 3.3 and 3.4 chroots), its minitest/rails_plugin.rb is found and
# loads ActiveSupport into every test process, whose
# ActiveSupport::EachTimeWithZone is prepended to Range: then every
# profile of `(1..n).each` holds that frame too, and exact counts fail.
# Minitest reads this when it runs, after every test file has loaded.
ENV["MT_NO_PLUGINS"] = "1"
require "minitest/autorun"
require "tracegraph"

# No pool of idle threads: minitest starts one thread per processor just
# before the first test, for parallelize_me!, which no test calls. In a
# process that runs one file (as rake test:ruby runs each), its first
# tests ran while those threads were still starting, and a profile of
# every thread recorded them: test_concurrency.rb counted 7 threads, not
# 5, in 3 runs of 30 on a busy machine.
Minitest.parallel_executor = Minitest::Parallel::Executor.new(0)

module ProfileAssertions
  MS = 1_000_000

  # Whether Array#each is written in Ruby here (<internal:array>): Ruby 3.4
  # defines it so when YJIT is on. It is then a frame with c_calls: false too.
  def ruby_array_each? = !Array.instance_method(:each).source_location.nil?

  # What the VM probe must find in this run (Tracegraph._vm_probe_verdict):
  # TRACEGRAPH_NO_VM_READS turns the reads off, and every Ruby we test
  # has a layout it recognises.
  def expected_probe_verdict
    off = ENV.fetch("TRACEGRAPH_NO_VM_READS", "")
    off.empty? || off == "0" ? :checked : :turned_off
  end

  # Through the public API (TRACEGRAPH_NO_VM_READS, or a Ruby whose layout
  # the probe does not recognise) the blocks of one method that start on
  # one line are one node, named after the outermost of them, with their
  # calls added up: Ruby reports the same method entry and the same line
  # for each (docs/rubies.md, "Blocks that start on one line"). Tests of
  # such blocks state what each path records.
  def one_node_per_line?
    expected_probe_verdict != :checked
  end

  # Tests that hold a profile's times to a bound run on the VM-reads path
  # only: through the public API each event costs 1.7 to 2.9 times as much
  # (docs/rubies.md), and what is left of it after the correction can
  # pass the bound a test holds the VM path's times to. Counts and stacks
  # are held exact on both paths.
  def skip_time_bound_on_public_path
    return if expected_probe_verdict == :checked

    skip "a time bound of the VM-reads path; through the public API the times are less sure (docs/rubies.md)"
  end

  # What a test expects with the VM reads, or through the public API.
  def by_path(vm_reads, public_api)
    one_node_per_line? ? public_api : vm_reads
  end

  # Invariants every profile must keep, whatever the program did.
  def assert_consistent(profile)
    profile.methods.each do |m|
      assert_operator m.self_time, :<=, m.total_time, "#{m.name}: self > total"
      assert_operator m.calls, :>, 0, "#{m.name} recorded with no calls"
    end
    profile.edges.each do |e|
      assert_operator e.self_time, :<=, e.total_time, "#{e.caller.name} -> #{e.callee.name}: self > total"
    end
    assert_equal profile.methods.sum(&:self_time), profile.total_time,
                 "self times must add up to the threads' profiled time"
  end

  # The program's own methods and calls: without garbage collection's
  # nodes, which appear whenever the collector happened to run.
  def program_methods(profile) = profile.methods.reject { |m| Tracegraph::Profile::GC_NODES.include?(m.name) }
  def program_edges(profile) = profile.edges.reject { |e| Tracegraph::Profile::GC_NODES.include?(e.callee.name) }

  def method_named(profile, name)
    profile[name] || flunk("#{name} not in profile: #{profile.methods.map(&:name).sort.inspect}")
  end

  def edge_named(profile, caller, callee)
    profile.edge(caller, callee) || flunk("no edge #{caller} -> #{callee}")
  end

  # Burns CPU for about `seconds` of this thread's CPU time.
  # Our heaviest stack in a thread (what the stack outputs' readers are
  # held to): from the bottom, the child with the
  # most total time at each step, as [name, total, self].
  def heaviest(profile, thread)
    children = profile.call_tree.nodes.group_by(&:parent)
    stack = []
    level = children.fetch(nil).select { |n| n.thread.equal?(thread) }
    until level.nil? || level.empty?
      node = level.max_by(&:total_time)
      stack << [node.method.name, node.total_time, node.self_time]
      level = children[node]
    end
    stack
  end

  def burn_cpu(seconds)
    finish = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) + seconds
    x = 0
    x += 1 while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) < finish
    x
  end
end

class TracegraphTest < Minitest::Test
  include ProfileAssertions

  def teardown
    Tracegraph.stop if Tracegraph.running?
  end
end

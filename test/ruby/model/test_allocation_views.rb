require_relative "../test_helper"

# Views of a profile with allocations (allocations: true): the call tree
# keeps each path's objects, so one thread's view has exactly the counts a
# profile of that thread alone has, and hiding waiting takes the waiting
# methods' objects out of every caller's total. The workloads allocate
# known counts (checked against GC.stat(:total_allocated_objects)) with
# shapes that are the same on Ruby 3.1, 3.3 and 3.4: Range#each (a C
# method everywhere), not Integer#times (Ruby code from 3.3).
class TestAllocationViews < TracegraphTest
  # As in TestAllocations: nothing else allocates while a test measures.
  def setup
    Thread.pass until Thread.list.all? { |t| t.equal?(Thread.current) || t.stop? }
    allocated { nil }
  end

  # n strings, in the block, and the Range and the Array, in the method:
  # n + 2 objects.
  def build_strings(n)
    list = []
    (1..n).each { list << "s" }
    list
  end

  # One string per level, depth + 1 levels.
  def nest(depth)
    _level = "level"
    nest(depth - 1) if depth.positive?
  end

  def main_work
    build_strings(1000)
    nest(4)
  end

  def worker_work = build_strings(300)

  # A worker thread and the main thread, each allocating its own.
  def two_threads
    worker = Thread.new do
      Thread.current.name = "worker"
      worker_work
    end
    worker.join
    main_work
  end

  def allocated
    before = GC.stat(:total_allocated_objects)
    yield
    GC.stat(:total_allocated_objects) - before
  end

  # Runs the block profiled and not, so its call sites have their caches.
  def warm(&block)
    Tracegraph.profile(allocations: true, call_tree: true, &block)
    block.call
  end

  # name => [calls, allocations, self_allocations], and the same for each
  # "caller -> callee", without garbage collection's nodes.
  def counts(profile)
    methods = program_methods(profile).to_h { |m| [m.name, [m.calls, m.allocations, m.self_allocations]] }
    edges = program_edges(profile).to_h do |e|
      ["#{e.caller.name} -> #{e.callee.name}", [e.calls, e.allocations, e.self_allocations]]
    end
    [methods, edges]
  end

  def test_the_workloads_allocate_what_we_say
    warm { main_work }
    assert_equal 1002, allocated { build_strings(1000) }
    assert_equal 5, allocated { nest(4) }
  end

  def test_one_thread_s_view_has_the_counts_of_that_thread_profiled_alone
    warm { two_threads }
    whole = Tracegraph.profile(allocations: true, call_tree: true) { two_threads }
    alone = Tracegraph.profile(allocations: true, threads: :current) { two_threads }
    main = whole.view(threads: "main")

    assert_predicate main, :allocations?
    assert_equal counts(alone), counts(main)
    assert_equal alone.total_allocations, main.total_allocations

    # The numbers themselves: the main thread's, exactly.
    assert_equal [1, 1007, 0], counts(main)[0].fetch("TestAllocationViews#main_work")
    assert_equal [1, 1002, 2], counts(main)[0].fetch("TestAllocationViews#build_strings")
    assert_equal [1000, 1000, 1000], counts(main)[0].fetch("block in TestAllocationViews#build_strings")
    assert_equal [5, 5, 5], counts(main)[0].fetch("TestAllocationViews#nest"), "recursion counted once"
    assert_equal [4, 4, 4], counts(main)[1].fetch("TestAllocationViews#nest -> TestAllocationViews#nest")
    assert_nil main["TestAllocationViews#worker_work"]

    worker = whole.view(threads: "worker")
    assert_equal [1, 302, 0], counts(worker)[0].fetch("TestAllocationViews#worker_work")
    assert_equal [1, 302, 2], counts(worker)[0].fetch("TestAllocationViews#build_strings")
    assert_equal [1, 302, 2],
                 counts(worker)[1].fetch("TestAllocationViews#worker_work -> TestAllocationViews#build_strings")

    # The whole is the two threads' sum.
    assert_equal [2, 1304, 4], counts(whole)[0].fetch("TestAllocationViews#build_strings")
    both = whole.view(threads: %w[main worker])
    assert_equal main.total_allocations + worker.total_allocations, both.total_allocations
  end

  def test_a_view_of_a_view_and_its_json_keep_the_counts
    warm { two_threads }
    whole = Tracegraph.profile(allocations: true, call_tree: true) { two_threads }
    main = whole.view(threads: %w[main worker]).view(threads: "main")
    assert_equal counts(whole.view(threads: "main")), counts(main)

    saved = Tracegraph::Profile.parse_json(whole.to_json)
    assert_predicate saved.call_tree, :allocations?
    assert_equal counts(main), counts(saved.view(threads: "main"))
    node = saved.call_tree.nodes.find do |n|
      n.method.name == "block in TestAllocationViews#build_strings" && n.thread.name == "main"
    end
    assert_equal [1000, 1000], [node.allocations, node.self_allocations]
  end

  # IO#read waits (Tracegraph::WAITING_METHODS) and returns a new string.
  def read_pipe(reader) = reader.read(4)

  def test_hiding_waiting_takes_its_objects_out_of_every_caller
    reader, writer = IO.pipe
    writer.write("abcd" * 4)
    work = lambda do
      read_pipe(reader)
      build_strings(10)
    end
    warm(&work)
    whole = Tracegraph.profile(allocations: true, call_tree: true, &work)
    shown = whole.view(threads: "main")
    hidden = whole.view(threads: "main", idle: :hide)

    read = edge_named(shown, "TestAllocationViews#read_pipe", "IO#read")
    assert_operator read.allocations, :>, 0, "IO#read returns a new string"
    assert_nil hidden["IO#read"]
    caller = method_named(hidden, "TestAllocationViews#read_pipe")
    assert_equal method_named(shown, "TestAllocationViews#read_pipe").allocations - read.allocations, caller.allocations
    assert_equal method_named(shown, "TestAllocationViews#read_pipe").self_allocations, caller.self_allocations
    assert_equal shown.total_allocations - read.allocations, hidden.total_allocations
    assert_equal [1, 12, 2], counts(hidden)[0].fetch("TestAllocationViews#build_strings")
  ensure
    reader&.close
    writer&.close
  end

  def test_a_saved_tree_without_counts_has_no_view
    whole = Tracegraph.profile(allocations: true, call_tree: true) { two_threads }
    data = whole.to_h
    data["call_tree"]["nodes"].each { |n| n.delete("allocations") && n.delete("self_allocations") }
    old = Tracegraph::Profile.parse_json(JSON.generate(data))
    assert_predicate old, :allocations?
    refute_predicate old.call_tree, :allocations?
    error = assert_raises(Tracegraph::Error) { old.view(threads: "main") }
    assert_match(/cannot show some threads only .* in this profile with allocations: its call tree, /, error.message)
    assert_match(/has no allocation counts/, error.message)
  end
end

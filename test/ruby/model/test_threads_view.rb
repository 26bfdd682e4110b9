require_relative "../test_helper"
require "open3"

# Profile#view: one thread or several, and waiting left out, rebuilt from
# the call tree with exact numbers; the legend's word on threads, thread
# time and wall time; waiting drawn grey.
class TestThreadsView < TracegraphTest
  class Work
    def a = [1, 2].each { |x| x.to_s }
    def b = [3].each { |x| x.to_s }

    def depth(n) = n.zero? ? a : depth(n - 1)

    def nap(seconds)
      sleep(seconds)
      a
    end
  end

  # main: a x3 and depth(3) (a once more); "worker": b x5, a x2.
  def two_threads
    work = Work.new
    Tracegraph.profile(call_tree: true) do
      worker = Thread.new do
        Thread.current.name = "worker"
        5.times { work.b }
        2.times { work.a }
      end
      3.times { work.a }
      work.depth(3)
      worker.join
    end
  end

  def test_each_thread_has_its_own_exact_counts
    # Only our two: another thread of the test process may have run too.
    profile = two_threads.view(threads: %w[main worker])
    main = profile.view(threads: "main")
    worker = profile.view(threads: "worker")
    assert_equal 4, method_named(main, "TestThreadsView::Work#a").calls
    assert_nil main["TestThreadsView::Work#b"]
    assert_equal 4, method_named(main, "TestThreadsView::Work#depth").calls
    assert_equal 2, method_named(worker, "TestThreadsView::Work#a").calls
    assert_equal 5, method_named(worker, "TestThreadsView::Work#b").calls
    assert_equal 3, edge_named(main, "TestThreadsView::Work#depth", "TestThreadsView::Work#depth").calls
    assert_equal 7, edge_named(worker, "TestThreadsView::Work#b", "Array#each").calls +
                    edge_named(worker, "TestThreadsView::Work#a", "Array#each").calls
    [main, worker].each { |view| assert_consistent(view) }

    # The two views add up to the whole: counts, self times, and totals of
    # methods each thread ran alone (recursion counted once).
    key = ->(m) { [m.name, m.file, m.line] } # blocks of one method share a name
    parts = [main, worker].flat_map(&:methods).group_by(&key)
    program_methods(profile).each do |m|
      assert_equal m.calls, parts.fetch(key[m]).sum(&:calls), m.name
      assert_equal m.self_time, parts.fetch(key[m]).sum(&:self_time), m.name
    end
    assert_equal method_named(profile, "TestThreadsView::Work#depth").total_time,
                 method_named(main, "TestThreadsView::Work#depth").total_time
    assert_equal profile.total_time, main.total_time + worker.total_time
    assert_equal ["main"], main.threads.map(&:name)
    assert_equal profile.recorded_threads, main.recorded_threads
  end

  def test_a_view_of_a_view_is_the_view_of_both_choices
    profile = two_threads
    direct = profile.view(threads: "worker", idle: :hide)
    stepwise = profile.view(idle: :hide).view(threads: "worker")
    numbers = ->(p) { p.methods.map { |m| [m.name, m.line, m.calls, m.total_time, m.self_time] }.sort }
    assert_equal numbers[direct], numbers[stepwise]
    assert_equal direct.total_time, stepwise.total_time
    assert_equal direct.to_folded, stepwise.to_folded
  end

  def test_threads_are_chosen_by_name_glob_id_regexp_or_several
    profile = two_threads
    worker_id = profile.threads.find { |t| t.name == "worker" }.id
    assert_equal ["worker"], profile.view(threads: worker_id).threads.map(&:name)
    assert_equal ["worker"], profile.view(threads: worker_id.to_s).threads.map(&:name)
    assert_equal ["worker"], profile.view(threads: "work*").threads.map(&:name)
    assert_equal ["worker"], profile.view(threads: /ork/).threads.map(&:name)
    # (Other threads of the test process may have run too: compare names.)
    assert_equal %w[main worker], profile.view(threads: %w[worker main]).threads.map(&:name).sort
    assert_same profile, profile.view(threads: profile.threads.map(&:id))
    assert_same profile, profile.view(threads: :all)
    error = assert_raises(Tracegraph::Error) { profile.view(threads: "nobody") }
    assert_includes error.message, "no thread matches \"nobody\""
    assert_includes error.message, "\"worker\""
    assert_raises(ArgumentError) { profile.view(threads: []) }
    assert_raises(ArgumentError) { profile.view(idle: :maybe) }
  end

  def test_a_view_needs_the_call_tree_unless_nothing_is_left_out
    work = Work.new
    profile = Tracegraph.profile { Thread.new { work.a }.join }
    error = assert_raises(Tracegraph::Error) { profile.view(threads: "main") }
    assert_includes error.message, "call_tree: true"
    assert_includes error.message, "--call-tree"
    assert_raises(Tracegraph::Error) { profile.view(idle: :hide) }
    alone = Tracegraph.profile { work.a }
    assert_same alone, alone.view(threads: "main"), "all of its threads: the profile itself"
  end

  def test_idle_hide_leaves_waiting_out_of_every_total
    work = Work.new
    # threads: :current: minitest's idle worker threads may start waiting meanwhile.
    profile = Tracegraph.profile(call_tree: true, threads: :current) { work.nap(0.03) }
    sleeping = method_named(profile, "Kernel#sleep")
    assert sleeping.waiting?
    assert_operator profile.waiting_time, :>=, 30 * MS

    busy = profile.view(idle: :hide)
    assert_nil busy["Kernel#sleep"]
    assert_nil busy.edge("TestThreadsView::Work#nap", "Kernel#sleep")
    assert_equal sleeping.total_time, busy.hidden_waiting
    assert_equal profile.total_time - sleeping.self_time, busy.total_time
    nap = method_named(profile, "TestThreadsView::Work#nap")
    assert_equal nap.total_time - sleeping.total_time, method_named(busy, "TestThreadsView::Work#nap").total_time
    assert_equal nap.self_time, method_named(busy, "TestThreadsView::Work#nap").self_time
    assert_equal 0, busy.waiting_time
    assert_consistent(busy)
    assert_same busy, busy.view(idle: :hide), "nothing left to hide"
  end

  def test_the_legend_says_what_the_total_is
    profile = two_threads.view(threads: %w[main worker]) # not minitest's own threads
    dot = profile.to_dot
    legend = dot.gsub("\\l    ", " ") # a legend line longer than 60 characters goes on indented
    assert_match(/2 threads( of \d+)? \(main, worker\), [\d.]+ .?s of thread time in [\d.]+ .?s of wall time/, legend)
    worker = profile.to_dot(threads: "worker")
    assert_match(/1 thread of #{profile.recorded_threads} \(worker\), /, worker)
    assert_no_dot_warnings(dot)
    assert_no_dot_warnings(worker)
  end

  def test_waiting_is_grey_and_reported_apart_from_working
    work = Work.new
    profile = Tracegraph.profile(call_tree: true, threads: :current) { work.nap(0.02) }
    dot = profile.to_dot(node_fraction: 0, edge_fraction: 0)
    sleep_node = dot.lines.find { |l| l.include?("label=\"Kernel#sleep") } || flunk(dot)
    assert_includes sleep_node, "fillcolor=\"#e4e4e4\""
    assert_includes sleep_node, "waiting: blocks its thread"
    assert_match(/Waiting [\d.]+ ms \(\d+(\.\d)?%, grey boxes\) in Kernel#sleep\\l    · working /, dot)
    assert_includes dot, "\\lGrey = waiting (sleep, join, locks, I/O waits)\\l"
    hidden = profile.to_dot(idle: :hide, node_fraction: 0, edge_fraction: 0)
    refute_includes hidden, "label=\"Kernel#sleep"
    assert_match(/Waiting hidden: [\d.]+ ms in 1 thread, Kernel#sleep · --idle\\l    show draws it\\l/, hidden)
    assert_no_dot_warnings(hidden)

    flat = StringIO.new
    profile.print_flat(flat)
    assert_match(/Kernel#sleep \(waiting\)/, flat.string)
    assert_match(/^Waiting: [\d.]+ ms \([\d.]+%\) in Kernel#sleep; working /, flat.string)
  end

  # A worker blocked on a Queue while the main thread works: hidden, the
  # waiting is one line that says how much, in how many threads, and in
  # which methods, most time first.
  def test_waiting_left_out_says_how_much_and_where
    queue = Queue.new
    work = Work.new
    profile = Tracegraph.profile(call_tree: true) do
      worker = Thread.new { queue.pop }
      Thread.pass until worker.status == "sleep"
      finish = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 0.02
      (work.a; work.b) while Process.clock_gettime(Process::CLOCK_MONOTONIC) < finish
      queue << 1
      worker.join
    end
    # What hiding leaves out: the waiting methods with what they call
    # (Ruby 3.4's Queue#pop is Ruby code), neither waiting inside the other.
    waited = %w[Thread::Queue#pop Thread#join].sum { |name| profile[name].total_time }
    hidden = profile.view(idle: :hide)
    assert_equal waited, hidden.hidden_waiting
    assert_equal "in 2 threads, Thread::Queue#pop, Thread#join", hidden.waiting_where
    flat = StringIO.new
    hidden.print_flat(flat)
    assert_includes flat.string, "\nWaiting: #{Tracegraph.human_time(waited)} in 2 threads, Thread::Queue#pop, " \
                                 "Thread#join, left out (--idle show shows it)\n"
    refute_match(/\(waiting\)/, flat.string)
    assert_includes hidden.to_dot, "Waiting hidden: #{Tracegraph.human_time(waited)} in 2 threads,"
    assert_equal "in Thread::Queue#pop, Thread#join", profile.waiting_where

    # Where it was is part of what the view is made from (its ViewOrigin),
    # so every profile derived from the view keeps it: the graph's copy
    # with hubs split (Array#each, whose blocks are a's and b's), a focus,
    # a view of the view.
    origin = hidden.view_origin
    assert_equal [hidden.recorded_threads, waited, 2, %w[Thread::Queue#pop Thread#join]],
                 origin.to_a, "the view's origin holds the waiting's threads and names"
    main = hidden.threads.find { |t| t.name == "main" } || hidden.threads.first
    derived = [hidden.split_hubs.first, hidden.focus_paths(/Work#a/).first,
               hidden.view(threads: [main.id])]
    derived.each_with_index do |d, i|
      refute_same hidden, d, "derived #{i}"
      assert_equal [waited, "in 2 threads, Thread::Queue#pop, Thread#join"], [d.hidden_waiting, d.waiting_where]
    end
    # And Profile.new takes it as it takes the rest of the origin.
    rebuilt = Tracegraph::Profile.new(clock: hidden.clock, threads: hidden.threads, methods: hidden.methods,
                                      edges: hidden.edges, viewed_from: origin)
    assert_equal "in 2 threads, Thread::Queue#pop, Thread#join", rebuilt.waiting_where
  end

  def test_wall_time_is_the_time_recorded_less_pauses
    profile = Tracegraph.profile do
      sleep 0.02
      Tracegraph.pause
      sleep 0.2
      Tracegraph.resume
    end
    assert_operator profile.wall_time, :>=, 20 * MS
    assert_operator profile.wall_time, :<, 200 * MS, "the pause is not recorded time"
  end

  def test_stack_outputs_and_json_of_a_view_keep_only_its_threads
    profile = two_threads
    worker = profile.view(threads: "worker")
    folded = worker.to_folded
    assert_includes folded, "TestThreadsView::Work#b"
    refute_includes folded, "TestThreadsView::Work#depth"
    refute_match(/^thread: main/, folded)

    again = Tracegraph::Profile.parse_json(worker.to_json)
    assert_equal ["worker"], again.threads.map(&:name)
    assert_equal profile.recorded_threads, again.recorded_threads
    assert_equal 5, method_named(again, "TestThreadsView::Work#b").calls
    assert_equal worker.call_tree.size, again.call_tree.size
    assert_equal worker.to_folded, again.to_folded
  end

  def assert_no_dot_warnings(dot)
    _, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
    assert status.success?, err
    assert_empty err
  end
end

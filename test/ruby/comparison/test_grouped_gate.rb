require_relative "../test_helper"
require "stringio"

# The gate of tracegraph diff at a coarser grain (--group-by): groups'
# per-run samples are their methods' summed run by run, so the noise
# between runs is measured for groups as for methods. Synthetic, exact.
class TestGroupedGate < Minitest::Test
  MS = 1_000_000

  # One run: Object#main calls Worker#work and Worker#tidy; times in ms.
  def run_profile(work:, tidy: 100)
    main = Tracegraph::MethodStats.new(name: "Object#main", file: "/app/main.rb", line: 1, calls: 1,
                                       total_time: (work + tidy + 1) * MS, self_time: 1 * MS, c_method: false)
    w = Tracegraph::MethodStats.new(name: "Worker#work", file: "/app/worker.rb", line: 5, calls: 100,
                                    total_time: work * MS, self_time: work * MS, c_method: false)
    t = Tracegraph::MethodStats.new(name: "Worker#tidy", file: "/app/worker.rb", line: 9, calls: 10,
                                    total_time: tidy * MS, self_time: tidy * MS, c_method: false)
    edges = [w, t].map do |m|
      Tracegraph::EdgeStats.new(caller: main, callee: m, calls: m.calls, total_time: m.total_time, self_time: m.self_time)
    end
    Tracegraph::Profile.new(clock: :cpu, methods: [main, w, t], edges: edges,
                            threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: main.total_time)])
  end

  def runs(works) = Tracegraph::Profile.median(works.map { |w| run_profile(work: w) })

  def gate(base, head)
    g = Tracegraph::DiffGate.new(base.group_by(:class).diff(head.group_by(:class)), time: {default: 3.0, methods: {}})
    io = StringIO.new
    g.report(io)
    [g, io.string]
  end

  def test_a_group_keeps_its_methods_runs_summed
    grouped = runs([100, 90, 110, 95, 105]).group_by(:class)
    assert_equal 5, grouped.runs.count
    assert_equal [200, 190, 210, 195, 205].map { |t| t * MS }, grouped.runs.self_times("Worker")
    assert_equal [110] * 5, grouped.runs.calls("Worker")
    assert_equal 110, grouped["Worker"].calls
    assert_equal 200 * MS, grouped["Worker"].self_time
    again = Tracegraph::Profile.parse_json(grouped.to_json)
    assert_equal grouped.runs.self_times("Worker"), again.runs.self_times("Worker")
  end

  # The diff graph's boxes are groups, and its legend says so, as the call graph's does.
  def test_the_grouped_diff_graph_says_how_it_is_grouped
    base = runs([100, 90, 110])
    head = runs([120, 110, 130])
    dot = base.group_by(:class).diff(head.group_by(:class)).to_dot
    assert_includes dot, "\\lGrouped by class: 3 methods in 2 classes\\l"
    assert_equal %w[Object Worker], dot.scan(/^  N\d+ \[label="(\w+)\\n/).flatten.sort
    refute_includes base.diff(head).to_dot, "Grouped by"
  end

  def test_the_gate_judges_groups_against_the_noise_between_runs
    base = runs([100, 60, 140, 80, 120])
    g, report = gate(base, runs([108, 68, 148, 88, 128])) # Worker +4%: above 3%, within its noise
    refute g.failed?, report
    g, report = gate(base, runs([200, 160, 240, 180, 220])) # Worker +50%
    assert g.failed?, report
    assert_match(/: 1 class check, 1 failed \(5 and 5 runs\)/, report, "the rows are classes")
    assert_match(%r{cpu time of Worker against the rest of the run \(its self time / the rest's, in the fastest quarter of the runs\): 170 ms / 1\.00 ms -> 270 ms / 1\.00 ms, \+58\.8% ± }, report)
    refute_match(/of Worker#work/, report)
    assert_match(/; most of the change: Worker#work, self 100 ms -> 200 ms$/, report, "the method that moved")
  end

  # A C method is in the group of the code that called it, and a failing
  # group's row names it: Worker#work's Array#sort grew.
  def test_a_failing_groups_row_names_the_c_method_that_changed
    profile = lambda do |sort|
      main = Tracegraph::MethodStats.new(name: "Object#main", file: "/app/main.rb", line: 1, calls: 1,
                                         total_time: (sort + 101) * MS, self_time: 1 * MS, c_method: false)
      work = Tracegraph::MethodStats.new(name: "Worker#work", file: "/app/worker.rb", line: 5, calls: 10,
                                         total_time: (sort + 100) * MS, self_time: 100 * MS, c_method: false)
      c_sort = Tracegraph::MethodStats.new(name: "Array#sort", file: nil, line: nil, calls: 10,
                                           total_time: sort * MS, self_time: sort * MS, c_method: true)
      edge = ->(from, to) { Tracegraph::EdgeStats.new(caller: from, callee: to, calls: to.calls, total_time: to.total_time, self_time: to.self_time) }
      Tracegraph::Profile.new(clock: :cpu, methods: [main, work, c_sort], edges: [edge.(main, work), edge.(work, c_sort)],
                              threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: main.total_time)])
    end
    g, report = gate(profile.(10), profile.(50))
    assert g.failed?, report
    assert_nil profile.(10).group_by(:class)["Array"], "no box of its own"
    assert_match(%r{cpu time of Worker against the rest of the run \(its self time / the rest's\): 110 ms / 1\.00 ms -> 150 ms / 1\.00 ms, .*FAILED; most of the change: Array#sort \(C\), self 10\.0 ms -> 50\.0 ms$},
                 report)
  end

  # The collector's time moves with the heap's state from one measurement
  # to the next: its nodes, and the GC group, are time-gated only when
  # named, by method and by group alike. Named, the group is gated where
  # one of its steps (each under the 5% floor here) would be by method.
  def test_the_gc_group_is_gated_only_when_named_and_as_a_step_would_be
    profile = lambda do |marking, sweeping|
      gc_total = marking + sweeping + 1
      main = Tracegraph::MethodStats.new(name: "Object#main", file: "/app/main.rb", line: 1, calls: 1,
                                         total_time: (100 + gc_total) * MS, self_time: 100 * MS, c_method: false)
      step = Tracegraph::MethodStats.new(name: Tracegraph::Profile::GC_NODE, file: nil, line: nil, calls: 20,
                                         total_time: gc_total * MS, self_time: 1 * MS, c_method: false)
      mark = Tracegraph::MethodStats.new(name: Tracegraph::Profile::GC_MARKING_NODE, file: nil, line: nil, calls: 20,
                                         total_time: marking * MS, self_time: marking * MS, c_method: false)
      sweep = Tracegraph::MethodStats.new(name: Tracegraph::Profile::GC_SWEEPING_NODE, file: nil, line: nil,
                                          calls: 20, total_time: sweeping * MS, self_time: sweeping * MS,
                                          c_method: false)
      edge = ->(from, to) { Tracegraph::EdgeStats.new(caller: from, callee: to, calls: to.calls, total_time: to.total_time, self_time: to.self_time) }
      Tracegraph::Profile.new(clock: :cpu, methods: [main, step, mark, sweep],
                              edges: [edge.(main, step), edge.(step, mark), edge.(step, sweep)],
                              threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: main.total_time)])
    end
    gc = Tracegraph::Profile::GC_NODE
    grouped_gate = lambda do |base, head, methods = {}|
      g = Tracegraph::DiffGate.new(base.group_by(:class).diff(head.group_by(:class)), time: {default: 3.0, methods: methods})
      io = StringIO.new
      g.report(io)
      [g, io.string]
    end
    # Marking at 10 ms of 115 (8.7%), +50%: not gated unless named.
    base, head = profile.(10, 4), profile.(15, 4)
    method_gate = Tracegraph::DiffGate.new(base.diff(head), time: {default: 3.0, methods: {}})
    assert_empty method_gate.checks.select { |c| c.name.start_with?("(garbage") }, "by method, not gated unless named"
    g, report = grouped_gate.(base, head)
    assert_nil g.checks.find { |c| c.name == gc }, report
    refute g.failed?, report
    named = Tracegraph::DiffGate.new(base.diff(head), time: {default: 3.0, methods: {Tracegraph::Profile::GC_MARKING_NODE => 3.0}})
    assert named.failed?, "named, marking is gated by method"
    g, report = grouped_gate.(base, head, {gc => 3.0})
    assert g.failed?, report
    assert_match(/most of the change: \(garbage collection: marking\), self 10\.0 ms -> 15\.0 ms$/, report)
    # Named, but 4 + 4 ms of 109: each step 3.7% (the group 8.3%), under
    # the floor as the method-level gate judges them: not gated.
    g, report = grouped_gate.(profile.(4, 4), profile.(5, 5), {gc => 3.0})
    assert_equal 11 * MS, profile.(5, 5).group_by(:class)[gc].self_time, "the group holds them"
    assert_nil g.checks.find { |c| c.name == gc }, report
  end

  # Counts are exact per method and gated per method in a grouped diff.
  # Head's runs call Array#sort 20, 26 and 26 times: its median, 26, is
  # more than its edges' medians (12 + 12), so grouping gives the C
  # method's 2 calls "from no caller" to the "(C) methods" group, which
  # base has not: by group that failed as new, though by method the change
  # is within the variation between runs. A real change fails, naming the
  # method and its group.
  def test_counts_are_gated_per_method_in_a_grouped_diff
    run = lambda do |from_reader, from_writer|
      main = Tracegraph::MethodStats.new(name: "Object#main", file: "/app/main.rb", line: 1, calls: 1,
                                         total_time: 121 * MS, self_time: 1 * MS, c_method: false)
      sort = Tracegraph::MethodStats.new(name: "Array#sort", file: nil, line: nil, calls: from_reader + from_writer,
                                         total_time: 20 * MS, self_time: 20 * MS, c_method: true)
      reader, writer = %w[Reader#read Writer#write].map do |name|
        Tracegraph::MethodStats.new(name: name, file: "/app/#{name[/\w+/].downcase}.rb", line: 1, calls: 1,
                                    total_time: 60 * MS, self_time: 50 * MS, c_method: false)
      end
      edge = ->(from, to, calls) { Tracegraph::EdgeStats.new(caller: from, callee: to, calls: calls, total_time: 10 * MS, self_time: 10 * MS) }
      Tracegraph::Profile.new(clock: :cpu, methods: [main, reader, writer, sort],
                              edges: [edge.(main, reader, 1), edge.(main, writer, 1), edge.(reader, sort, from_reader),
                                      edge.(writer, sort, from_writer)],
                              threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 121 * MS)])
    end
    median = ->(pairs) { Tracegraph::Profile.median(pairs.map { |r, w| run.(r, w) }) }
    calls_gate = lambda do |base, head, methods = {}|
      g = Tracegraph::DiffGate.new(base.group_by(:class).diff(head.group_by(:class)), calls: {default: 0.0, methods: methods})
      io = StringIO.new
      g.report(io)
      [g, io.string]
    end
    base = median.([[10, 10]] * 3)
    head = median.([[10, 10], [12, 14], [14, 12]])
    assert_equal [26, 24], [head["Array#sort"].calls, head.edges.select { |e| e.callee.name == "Array#sort" }.sum(&:calls)]
    assert head.group_by(:class)["(C) methods"], "the C method's calls from no caller"
    g, report = calls_gate.(base, head)
    refute g.failed?, report
    assert_match(/: 4 method checks of counts \(each method in its class\), 0 failed \(3 and 3 runs\); 1 method varied/, report)
    changed = median.([[12, 12]] * 3)
    g, report = calls_gate.(base, changed)
    assert g.failed?, report
    assert_match(/calls of Array#sort \(in (Reader|Writer)\) 20 -> 24, \+20\.0%: more than the allowed ±0%: FAILED$/, report)
    group = report[/calls of Array#sort \(in (\w+)\)/, 1]
    g, report = calls_gate.(base, changed, {group => 25.0})
    refute g.failed?, "a limit given for the group applies to its methods: #{report}"
  end
end

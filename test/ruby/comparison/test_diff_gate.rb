require_relative "../test_helper"
require "stringio"

# The statistics of --runs and the gate of tracegraph diff, on synthetic
# profiles whose noise is known: exact, no timing.
class TestDiffGate < Minitest::Test
  MS = 1_000_000

  # One run's profile: main calls work and other; times in ms.
  def run_profile(work:, other:, work_calls: 100, clock: :cpu)
    main = Tracegraph::MethodStats.new(name: "Object#main", file: "app.rb", line: 1, calls: 1,
                                       total_time: (work + other + 1) * MS, self_time: 1 * MS, c_method: false)
    w = Tracegraph::MethodStats.new(name: "Object#work", file: "app.rb", line: 5, calls: work_calls,
                                    total_time: work * MS, self_time: work * MS, c_method: false)
    o = Tracegraph::MethodStats.new(name: "Object#other", file: "app.rb", line: 9, calls: 10,
                                    total_time: other * MS, self_time: other * MS, c_method: false)
    edges = [w, o].map { |m| Tracegraph::EdgeStats.new(caller: main, callee: m, calls: m.calls, total_time: m.total_time, self_time: m.self_time) }
    Tracegraph::Profile.new(clock: clock, methods: [main, w, o], edges: edges,
                            threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: main.total_time)])
  end

  # The median profile of runs whose work took these times (ms).
  def runs(works, other: 100, **kw)
    Tracegraph::Profile.median(works.map { |w| run_profile(work: w, other: other, **kw) })
  end

  def gate(base, head, **options)
    g = Tracegraph::DiffGate.new(base.diff(head), **options)
    io = StringIO.new
    g.report(io)
    [g, io.string]
  end

  def test_median_and_robust_spread
    assert_equal 3, Tracegraph::RunStats.median([5, 1, 3])
    assert_equal 2.5, Tracegraph::RunStats.median([4, 1, 3, 2])
    # One wild value moves neither: MAD of [10, 10, 11, 9, 100] is 1.
    assert_in_delta 1.4826, Tracegraph::RunStats.robust_sigma([10, 10, 11, 9, 100]), 1e-9
    assert_in_delta Math.sqrt(Math::PI / 2) * 1.4826 / Math.sqrt(5), Tracegraph::RunStats.median_error([10, 10, 11, 9, 100]), 1e-9
    assert_nil Tracegraph::RunStats.median_error([1, 2])
  end

  def test_median_profile_keeps_each_run
    profile = runs([100, 102, 98, 101, 200]) # one run slowed by a busy machine
    assert_equal 101 * MS, profile["Object#work"].self_time
    assert_equal 100, profile["Object#work"].calls
    assert_equal 5, profile.runs.count
    assert_equal [100, 102, 98, 101, 200].map { |w| w * MS }, profile.runs.self_times("Object#work")
    assert_equal [100] * 5, profile.runs.calls("Object#work")
    assert_equal 202 * MS, profile.total_time
    assert_equal 101 * MS, profile.edge("Object#main", "Object#work").total_time

    again = Tracegraph::Profile.parse_json(profile.to_json)
    assert_equal profile.runs.self_times("Object#work"), again.runs.self_times("Object#work")
    assert_equal profile.runs.total_times, again.runs.total_times
    assert_nil Tracegraph::Profile.parse_json(run_profile(work: 1, other: 1).to_json).runs
  end

  def test_hostile_runs_are_refused_with_the_field
    data = JSON.parse(runs([1, 2, 3]).to_json)
    bad = [
      [->(d) { d["runs"]["count"] = 0 }, /runs.count must be a positive integer/],
      [->(d) { d["runs"]["total_time"] = [1, 2] }, /runs.total_time must be an array of 3 non-negative integers/],
      [->(d) { d["runs"]["self_time"].pop }, /runs.self_time must be an array of one row per method/],
      [->(d) { d["runs"]["calls"][1] = [1, -2, 3] }, /runs.calls\[1\] must be an array of 3/],
      [->(d) { d["runs"] = [] }, /runs must be an object/]
    ]
    bad.each do |change, message|
      copy = JSON.parse(JSON.generate(data))
      change.(copy)
      error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.parse_json(JSON.generate(copy)) }
      assert_match message, error.message
    end
  end

  # Noise wider than the limit: a slowdown of the limit's size would hide
  # in it, so the gate neither passes nor fails (tracegraph diff: status 4).
  def test_noise_wider_than_the_limit_cannot_tell
    base = runs([100, 90, 110, 95, 105])
    head = runs([104, 94, 114, 99, 109]) # +4%, noise about 10%
    g, report = gate(base, head, time: {default: 3.0, methods: {}})
    refute g.failed?, report
    assert g.undecided?
    work = g.undecided.first
    assert_equal "Object#work", work.name
    # The fastest quarter (2 of 5 runs): 92.5 -> 96.5 ms against the same
    # 101 ms of the rest, the numbers the change is of.
    assert_in_delta 100.0 * (96.5 / 92.5 - 1), work.change, 1e-9
    assert_operator work.margin, :>, 3.0
    assert_includes report, format("tracegraph diff: cpu time of Object#work against the rest of the run (its self " \
                                   "time / the rest's, in the fastest quarter of the runs): 92.5 ms / 101 ms -> " \
                                   "96.5 ms / 101 ms, +4.3%% ± %.1f%% (the noise between runs): cannot tell: the " \
                                   "noise between runs (± %.1f%%) is wider than the allowed +3%%; record with more " \
                                   "--runs, or on a quieter machine\n", work.margin, work.margin)
    assert_includes report, "2 method checks, 0 failed, 1 could not tell (5 and 5 runs)"
    # A fall the noise cannot reach up to the limit from can tell: passes.
    g, = gate(base, runs([60, 54, 66, 57, 63]), time: {default: 3.0, methods: {}})
    faster = g.checks.find { |c| c.name == "Object#work" }
    assert_operator faster.change + faster.margin, :<, 3.0
    refute faster.undecided?
    refute faster.failed?
  end

  # The medians fell (60 -> 50 ms) while the fastest quarters rose (40.5
  # -> 50 ms): the line gives the numbers compared, so it cannot read
  # "fell but +23%".
  def test_the_line_states_the_numbers_it_compared
    base = runs([40, 41, 60, 60, 60])
    head = runs([50, 50, 50, 50, 50])
    assert_equal [60 * MS, 50 * MS], [base["Object#work"].self_time, head["Object#work"].self_time]
    g, report = gate(base, head, time: {default: 10.0, methods: {}})
    work = g.checks.find { |c| c.name == "Object#work" }
    assert_in_delta 100.0 * (50 / 40.5 - 1), work.change, 1e-9
    assert_equal [[40.5 * MS, 101 * MS], [50 * MS, 101 * MS]], work.compared
    assert_includes report, "cpu time of Object#work against the rest of the run (its self time / the rest's, in the " \
                            "fastest quarter of the runs): 40.5 ms / 101 ms -> 50.0 ms / 101 ms, +23.5% ± "
  end

  def test_a_real_slowdown_beyond_the_noise_fails_with_its_uncertainty
    base = runs([100, 99, 101, 100, 102])
    head = runs([120, 119, 121, 120, 122]) # +20%, noise about 1%
    g, report = gate(base, head, time: {default: 10.0, methods: {}}, total: 20.0)
    assert g.failed?
    assert_equal ["Object#work"], g.failures.map(&:name)
    # The fastest quarter (2 of 5 runs): 99.5 -> 119.5 ms against the
    # same 101 ms; the margin is SIGMAS bootstrap standard errors of that ratio.
    pairs = ->(works) { works.map { |w| [w * MS, (w + 101) * MS] } }
    stat = Tracegraph::DiffGate::AGAINST_REST
    errors = [[99.5, [100, 99, 101, 100, 102]], [119.5, [120, 119, 121, 120, 122]]].map do |best, works|
      Tracegraph::RunStats.bootstrap_error(pairs.(works), &stat) / (best / 101.0)
    end
    margin = 100 * Tracegraph::DiffGate::SIGMAS * Math.sqrt(errors.sum { |e| e**2 }) * 119.5 / 99.5
    change = 100.0 * (119.5 / 99.5 - 1)
    assert_in_delta margin, g.failures.first.margin, 1e-9
    assert_in_delta change, g.failures.first.change, 1e-9
    assert_includes report, format("cpu time of Object#work against the rest of the run (its self time / the rest's, " \
                                   "in the fastest quarter of the runs): 99.5 ms / 101 ms -> 120 ms / 101 ms, " \
                                   "%+.1f%% ± %.1f%% (the noise between runs): more than the allowed +10%% and the " \
                                   "noise: FAILED\n", change, margin)
    # Fastest quarters' totals: 200.5 -> 220.5 ms, rounded half up (tg_format.c).
    assert_match(/total cpu time \(fastest quarter of the runs\) 201 ms -> 221 ms, \+10\.0% ± \d\.\d% \(the noise between runs\): within the allowed \+20%/, report)
    assert_match(/2 method checks, 1 failed \(5 and 5 runs\)/, report)
  end

  def test_a_machine_slower_for_a_whole_measurement_is_no_regression
    base = runs([100, 99, 101, 100, 102])
    # Everything twice as slow (main's own 1 ms and other's 100 ms: 202 ms).
    head = Tracegraph::Profile.median([200, 198, 202, 200, 204].map { |w| run_profile(work: w, other: 201) })
    g, report = gate(base, head, time: {default: 10.0, methods: {}})
    refute g.failed?, report
    work = g.checks.find { |c| c.name == "Object#work" }
    assert_in_delta 0.0, work.change, 1e-9, "medians 100 -> 200 ms against a rest of 101 -> 202 ms: +0.0%"
    g, = gate(base, head, total: 50.0)
    assert g.failed?, "the total is what it is: its gate is for machines that keep their speed"
  end

  # How often the collector runs is the heap's state, not the program's
  # calls (two unchanged Rails runs: (garbage collection) 2 -> 1): the
  # calls gate leaves the GC nodes out unless they are named.
  def test_the_calls_gate_leaves_garbage_collection_out_unless_named
    with_gc = lambda do |runs|
      profile = run_profile(work: 100, other: 100)
      gc = Tracegraph::MethodStats.new(name: "(garbage collection)", file: nil, line: nil, calls: runs,
                                       total_time: MS, self_time: MS, c_method: true)
      Tracegraph::Profile.new(clock: :cpu, methods: profile.methods + [gc], edges: profile.edges, threads: profile.threads)
    end
    g, report = gate(with_gc.(2), with_gc.(1), calls: {default: 0.0, methods: {}})
    refute g.failed?, report
    refute_includes g.checks.map(&:name), "(garbage collection)"
    assert_equal "tracegraph diff: 3 method checks, 0 failed (one run each: the noise is not measured; record with " \
                 "tracegraph --runs 10)\n", report
    g, report = gate(with_gc.(2), with_gc.(1), calls: {default: 0.0, methods: {"(garbage collection)" => 0.0}})
    assert_equal ["(garbage collection)"], g.failures.map(&:name)
    assert_includes report, "calls of (garbage collection) 2 -> 1, -50.0%: more than the allowed ±0%: FAILED\n"
  end

  def test_bootstrap_error_is_the_same_for_the_same_runs
    runs = [3, 1, 4, 1, 5, 9, 2, 6]
    one = Tracegraph::RunStats.bootstrap_error(runs, &:min)
    assert_equal one, Tracegraph::RunStats.bootstrap_error(runs.dup, &:min)
    assert one.positive?
    assert_equal 0.0, Tracegraph::RunStats.bootstrap_error([7, 7, 7], &:min)
    assert_nil Tracegraph::RunStats.bootstrap_error([1, 2], &:min)
  end

  def test_limits_per_method_min_share_and_ignores
    base = runs([100, 99, 101], other: 1)
    head = runs([120, 119, 121], other: 1) # other is under 1% of the total
    g, = gate(base, head, time: {default: 10.0, methods: {"Object#work" => 50.0}})
    refute g.failed?
    assert_equal %w[Object#work], g.checks.map(&:name), "Object#other (1%) and Object#main (under 1%) are not gated"
    g, = gate(base, head, time: {default: 10.0, methods: {}}, ignore: ["Object#w*"])
    refute g.failed?
    g, = gate(base, head, time: {default: 10.0, methods: {}}, min_share: 0.1)
    assert_equal %w[Object#work Object#main Object#other].sort, g.checks.map(&:name).sort
    assert_equal %w[Object#work], g.failures.map(&:name)
  end

  def test_one_run_each_uses_the_limit_alone_and_says_so
    g, report = gate(run_profile(work: 100, other: 100), run_profile(work: 104, other: 100), time: {default: 3.0, methods: {}})
    assert g.failed?
    assert_nil g.failures.first.margin
    assert_includes report, "cpu time of Object#work against the rest of the run (its self time / the rest's): " \
                            "100 ms / 101 ms -> 104 ms / 101 ms, +4.0% (noise not measured): more than the allowed +3%: FAILED\n"
    assert_match(/one run each: the noise is not measured/, report)
  end

  def test_call_counts_gate_either_way_with_limits_and_ignores
    base = runs([100, 100, 100])
    head = runs([100, 100, 100], work_calls: 90)
    g, report = gate(base, head, calls: {default: 0.0, methods: {}})
    assert_equal ["Object#work"], g.failures.map(&:name)
    assert_match(/calls of Object#work 100 -> 90, -10\.0%: more than the allowed ±0%: FAILED/, report)
    g, = gate(base, head, calls: {default: 0.0, methods: {"Object#work" => 10.0}})
    refute g.failed?, "a per-method limit of 10% allows -10%"
    g, = gate(base, head, calls: {default: 0.0, methods: {}}, ignore: ["Object#work"])
    refute g.failed?
  end

  def test_call_counts_that_vary_between_runs_must_move_more_than_that
    base = Tracegraph::Profile.median([98, 100, 102].map { |c| run_profile(work: 100, other: 1, work_calls: c) })
    head = Tracegraph::Profile.median([99, 101, 103].map { |c| run_profile(work: 100, other: 1, work_calls: c) })
    g, report = gate(base, head, calls: {default: 0.0, methods: {}})
    refute g.failed?, report
    head = Tracegraph::Profile.median([110, 111, 112].map { |c| run_profile(work: 100, other: 1, work_calls: c) })
    g, = gate(base, head, calls: {default: 0.0, methods: {}})
    assert_equal ["Object#work"], g.failures.map(&:name)
  end

  def test_times_of_different_clocks_are_not_compared
    error = assert_raises(ArgumentError) do
      Tracegraph::DiffGate.new(runs([1, 2, 3]).diff(runs([1, 2, 3], clock: :wall)), total: 10.0)
    end
    assert_match(/base was recorded with the cpu clock and head with wall/, error.message)
    g, = gate(runs([1, 2, 3]), runs([1, 2, 3], clock: :wall), calls: {default: 0.0, methods: {}})
    refute g.failed?, "call counts compare across clocks"
  end
end

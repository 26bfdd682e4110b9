require_relative "../test_helper"
require_relative "../cli_helper"
require "stringio"

# Comparing allocation counts: the diff's rows and text, and the gate of
# --fail-on-allocations, on hand-built profiles whose counts are known.
class TestDiffAllocations < Minitest::Test
  include CliHelper

  MS = 1_000_000

  def setup
    @dir = Dir.mktmpdir("tracegraph-diff-allocations")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # main calls work and other, and extra if given; self allocations as
  # given (main allocates 5 itself), or none recorded with allocations: false.
  def profile(work:, other:, extra: nil, allocations: true)
    stats = lambda do |name, self_allocs, time|
      Tracegraph::MethodStats.new(name: name, file: "app.rb", line: 1, calls: 1, total_time: time * MS,
                                  self_time: time * MS, c_method: false,
                                  allocations: allocations ? self_allocs : nil,
                                  self_allocations: allocations ? self_allocs : nil)
    end
    callees = [stats.("Object#work", work, 10), stats.("Object#other", other, 10)]
    callees << stats.("Object#extra", extra, 1) if extra
    all = 5 + callees.sum { |m| m.self_allocations.to_i }
    main = Tracegraph::MethodStats.new(name: "Object#main", file: "app.rb", line: 1, calls: 1,
                                       total_time: (1 + callees.sum(&:total_time) / MS) * MS, self_time: 1 * MS,
                                       c_method: false, allocations: allocations ? all : nil,
                                       self_allocations: allocations ? 5 : nil)
    edges = callees.map do |m|
      Tracegraph::EdgeStats.new(caller: main, callee: m, calls: 1, total_time: m.total_time, self_time: m.self_time,
                                allocations: m.allocations, self_allocations: m.self_allocations)
    end
    Tracegraph::Profile.new(clock: :cpu, methods: [main, *callees], edges: edges, allocations: allocations,
                            threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: main.total_time)])
  end

  def base = profile(work: 100, other: 50)
  def head = profile(work: 130, other: 40, extra: 7)

  def gate(base, head, **options)
    g = Tracegraph::DiffGate.new(base.diff(head), **options)
    io = StringIO.new
    g.report(io)
    [g, io.string]
  end

  def test_rows_and_changes_compare_each_method_s_own_allocations
    diff = base.diff(head)
    assert_predicate diff, :allocations?
    work = diff.rows.find { |r| r.name == "Object#work" }
    assert_equal [100, 130, 30], [work.base_allocations, work.head_allocations, work.allocations_delta]
    assert_in_delta 30.0, work.allocations_change_percent
    assert_equal [["Object#work", 30], ["Object#other", -10], ["Object#extra", 7]],
                 diff.allocation_changes.map { |r| [r.name, r.allocations_delta] }
    assert_nil diff.rows.find { |r| r.name == "Object#extra" }.allocations_change_percent

    plain = profile(work: 1, other: 1, allocations: false)
    assert_nil plain.diff(head).rows.first.base_allocations
    assert_empty plain.diff(head).allocation_changes
  end

  def test_the_text_adds_the_totals_and_a_table_of_allocation_changes
    io = StringIO.new
    base.diff(head).print_text(io, limit: 2)
    lines = io.string.lines.map(&:chomp)
    assert_equal "tracegraph diff (cpu): total 21.0 ms -> 22.0 ms (+4.8%), calls 3 -> 4, allocations 155 -> 182",
                 lines.first
    table = lines[lines.index("Allocations (a method's own objects): 3 changed")..]
    assert_equal ["Allocations (a method's own objects): 3 changed",
                  " base allocs   head allocs        change   change%  method",
                  "         100           130           +30    +30.0%  Object#work",
                  "          50            40           -10    -20.0%  Object#other",
                  "(1 more not shown)"], table

    io = StringIO.new
    base.diff(base).print_text(io)
    assert_equal "Allocations (a method's own objects): no change", io.string.lines.last.chomp

    io = StringIO.new
    profile(work: 1, other: 1, allocations: false).diff(head).print_text(io)
    assert_equal "Allocations: only head has allocation counts; record both with allocations: true " \
                 "(tracegraph --allocations) to compare them", io.string.lines.last.chomp
    refute_includes io.string.lines.first, "allocations"
  end

  def test_the_gate_fails_on_growth_above_the_limit_per_method
    g, report = gate(base, head, allocations: {default: 20.0, methods: {}})
    assert_equal %w[Object#extra Object#work], g.failures.map(&:name)
    assert_equal ["tracegraph diff: allocations of Object#extra 0 -> 7, from none: more than the allowed +20%: FAILED",
                  "tracegraph diff: allocations of Object#work 100 -> 130, +30.0%: more than the allowed +20%: FAILED",
                  "tracegraph diff: 4 method checks, 2 failed (one run each: the noise is not measured; " \
                  "record with tracegraph --runs 10)"], report.lines.map(&:chomp)
    assert_equal ["Object#main", "Object#other"], g.checks.reject(&:failed?).map(&:name).sort,
                 "main did not move; other shrank (-20%), which never fails"

    g, = gate(base, head, allocations: {default: 20.0, methods: {"Object#work" => 30.0}}, ignore: ["Object#ex*"])
    refute g.failed?, "30% is allowed for work, and extra is ignored"
    g, = gate(base, head, allocations: {default: 29.9, methods: {}}, ignore: ["Object#extra"])
    assert_equal %w[Object#work], g.failures.map(&:name)
    g, = gate(base, head, allocations: {default: nil, methods: {"Object#other" => 0.0}})
    assert_equal ["Object#other"], g.checks.map(&:name)
    refute g.failed?
  end

  def test_both_profiles_need_allocation_counts
    plain = profile(work: 1, other: 1, allocations: false)
    e = assert_raises(ArgumentError) { gate(plain, head, allocations: {default: 10.0, methods: {}}) }
    assert_equal "allocations cannot be compared: base has no allocation counts; record both with " \
                 "allocations: true (tracegraph --allocations)", e.message
    e = assert_raises(ArgumentError) { gate(plain, plain, allocations: {default: 10.0, methods: {}}) }
    assert_match(/: base and head have no allocation counts;/, e.message)
    g, = gate(plain, plain, calls: {default: 0.0, methods: {}})
    refute g.failed?, "the other gates need no allocations"
  end

  def test_the_command
    base_path = File.join(@dir, "base.json")
    head_path = File.join(@dir, "head.json")
    plain_path = File.join(@dir, "plain.json")
    base.write_json(base_path)
    head.write_json(head_path)
    profile(work: 1, other: 1, allocations: false).write_json(plain_path)

    out, err, status = tracegraph("diff", "--text", "--fail-on-allocations", "20",
                                  "--fail-on-allocations", "Object#work=30", base_path, head_path)
    assert_equal 3, status.exitstatus, err
    assert_includes out, "\n         100           130           +30    +30.0%  Object#work\n"
    # Work may grow by 30%; extra allocates from none, which no limit allows.
    assert_equal ["tracegraph diff: allocations of Object#extra 0 -> 7, from none: more than the allowed +20%: FAILED",
                  "tracegraph diff: 4 method checks, 1 failed (one run each: the noise is not measured; " \
                  "record with tracegraph --runs 10)"], err.lines.map(&:chomp)

    _, err, status = tracegraph("diff", "--text", "--fail-on-allocations", "30", "--exempt", "Object#extra",
                                base_path, head_path)
    assert_equal 0, status.exitstatus, err
    assert_equal "tracegraph diff: 3 method checks, 0 failed (one run each: the noise is not measured; " \
                 "record with tracegraph --runs 10)\n", err

    _, err, status = tracegraph("diff", "--text", "--fail-on-allocations", "10", plain_path, head_path)
    assert_equal 2, status.exitstatus
    assert_equal "tracegraph diff: allocations cannot be compared: base has no allocation counts; record both " \
                 "with allocations: true (tracegraph --allocations)\n", err

    _, err, status = tracegraph("diff", "--fail-on-allocations", "lots", base_path, head_path)
    assert_equal 2, status.exitstatus
    assert_match(/--fail-on-allocations needs PCT or NAME=PCT, not lots/, err)
  end
end

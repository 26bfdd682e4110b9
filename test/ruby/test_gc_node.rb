require_relative "test_helper"
require_relative "cli_helper"

# Garbage collection as a node: each step of the collector is a call of
# "(garbage collection)" from the method that was running, split into
# marking and sweeping below it.
class TestGCNode < TracegraphTest
  include CliHelper

  STEP = Tracegraph::Profile::GC_NODE
  MARKING = Tracegraph::Profile::GC_MARKING_NODE
  SWEEPING = Tracegraph::Profile::GC_SWEEPING_NODE

  def collect(n)
    i = 0
    while i < n
      GC.start
      i += 1
    end
  end

  def allocate(n) = Array.new(n) { |i| "s#{i}" * 2 }

  def in_main = GC.start
  def in_thread = GC.start
  def in_fiber = GC.start

  # With automatic GC off, nothing but GC.start collects, and GC.disable
  # finished any lazy sweep before recording: each GC.start is exactly one
  # run in one step that marks and sweeps.
  def without_automatic_gc
    GC.disable
    yield
  ensure
    GC.enable
  end

  def assert_gc_adds_up(profile)
    gc = profile.gc
    step = method_named(profile, STEP)
    assert_equal step.total_time, gc.total_time
    assert_operator gc.mark_time + gc.sweep_time, :<=, gc.total_time
    assert_operator gc.total_time, :<=, profile.total_time
    assert_nil step.file
    refute step.c_method?
    assert_consistent profile
  end

  def test_each_gc_start_is_one_run_and_one_step_under_it
    profile = without_automatic_gc { Tracegraph.profile { collect(5) } }
    gc = profile.gc
    assert_equal 5, gc.runs
    assert_equal 5, gc.entries
    assert_equal 5, edge_named(profile, "GC.start", STEP).calls
    assert_equal 5, edge_named(profile, STEP, MARKING).calls
    assert_equal 5, edge_named(profile, STEP, SWEEPING).calls
    assert_equal [STEP], profile.edges.select { |e| e.caller.name == "GC.start" }.map { |e| e.callee.name }
    assert_operator gc.mark_time, :>, 0
    assert_operator gc.sweep_time, :>, 0
    assert_gc_adds_up profile
  end

  def test_without_c_calls_too
    profile = without_automatic_gc { Tracegraph.profile(c_calls: false) { collect(3) } }
    assert_equal 3, profile.gc.runs
    assert_equal 3, edge_named(profile, "GC.start", STEP).calls
    assert_gc_adds_up profile
  end

  # Automatic GC: every collection GC.count counts inside the block is a
  # run, and no run is invented: at most what GC.count counts around the
  # whole profile call. (Not exactly the first: installing the hook drops
  # Ruby's call caches, and refilling them around the block allocates.)
  def assert_runs_between(profile, inside, around)
    assert_operator profile.gc.runs, :>=, inside
    assert_operator profile.gc.runs, :<=, around
  end

  def test_runs_match_gc_count_under_allocation
    before = after = nil
    start = GC.count
    profile = Tracegraph.profile do
      before = GC.count
      allocate(300_000)
      after = GC.count
    end
    assert_operator after, :>, before
    assert_runs_between profile, after - before, GC.count - start
    assert_operator profile.gc.entries, :>=, profile.gc.runs
    assert_operator profile.gc.total_time, :>, 0
    # Minor collections sweep lazily, in steps of their own after the one
    # that marked: more sweeping steps than marking ones.
    assert_operator method_named(profile, SWEEPING).calls, :>, method_named(profile, MARKING).calls
    assert_operator profile.gc.mark_time, :>, 0
    assert_operator profile.gc.sweep_time, :>, 0
    assert_gc_adds_up profile
    # The steps hang under methods that allocate: Array.new and its block's callees.
    callers = profile.edges.select { |e| e.callee.name == STEP }.map { |e| e.caller.name }
    refute_empty callers
    refute_includes callers, "TestGCNode#allocate"   # a Ruby method only calls; its callees allocate
  end

  def test_gc_false_records_no_gc
    profile = without_automatic_gc do
      Tracegraph.profile(gc: false) do
        collect(2)
        Tracegraph.pause
        Tracegraph.resume
        collect(1)
      end
    end
    assert_equal 3, method_named(profile, "GC.start").calls
    assert_nil profile[STEP]
    assert_equal 0, profile.gc.runs
    assert_consistent profile
  end

  # Recording that starts while a collection is still sweeping lazily
  # (GC.latest_gc_info(:state), read at start) books the steps that finish
  # it as sweeping: every step up to the next collection sweeps, that one
  # marks and starts sweeping, and each step after it sweeps. (On 3.1,
  # installing the hook often finishes the sweep itself: Ruby walks the
  # heap to retrace its code. Then there are no such steps to check.)
  def test_a_collection_unfinished_at_start_is_swept_in_sweeping
    keep = allocate(100_000)
    GC.start(immediate_sweep: false)
    count = GC.count
    profile = Tracegraph.profile { allocate(1000) while GC.count == count }
    skip "a major collection, which may mark in steps" if GC.latest_gc_info(:major_by)
    assert_equal 1, profile.gc.runs
    assert_equal 1, method_named(profile, MARKING).calls
    assert_equal profile.gc.entries, method_named(profile, SWEEPING).calls
    assert_gc_adds_up profile
    keep.size
  end

  def test_gc_disabled_means_no_node
    profile = without_automatic_gc { Tracegraph.profile { allocate(300_000) } }
    assert_nil profile[STEP]
    assert_nil profile[MARKING]
    assert_nil profile[SWEEPING]
    assert_equal Tracegraph::GCStats.new(runs: 0, entries: 0, total_time: 0, mark_time: 0, sweep_time: 0), profile.gc
    assert_consistent profile
  end

  def test_threads_and_fibers_are_charged_their_own_stacks
    profile = without_automatic_gc do
      Tracegraph.profile(call_tree: true) do
        in_main
        Thread.new { in_thread }.join
        Fiber.new { in_fiber }.resume
      end
    end
    assert_equal 3, profile.gc.runs
    paths = profile.call_tree.nodes.select { |n| n.method.name == STEP }.map { |n| n.stack.map(&:name).last(3) }
    assert_equal [%w[TestGCNode#in_fiber GC.start] << STEP, %w[TestGCNode#in_main GC.start] << STEP,
                  %w[TestGCNode#in_thread GC.start] << STEP], paths.sort
    assert_gc_adds_up profile
  end

  def test_threads_current_leaves_other_threads_gc_out
    profile = without_automatic_gc do
      Tracegraph.profile(threads: :current) do
        in_main
        Thread.new { in_thread }.join
      end
    end
    assert_equal 1, profile.gc.runs
    assert_equal 1, profile.gc.entries
    assert_equal 1, edge_named(profile, "GC.start", STEP).calls
    assert_gc_adds_up profile
  end

  def test_gc_while_paused_is_not_counted
    profile = without_automatic_gc do
      Tracegraph.profile do
        in_main
        Tracegraph.pause
        collect(2)
        Tracegraph.resume
        in_main
      end
    end
    assert_equal 2, profile.gc.runs
    assert_equal 2, profile.gc.entries
    assert_gc_adds_up profile
  end

  # GC time is on the profile's clock: CPU time for :cpu and :thread_cpu.
  def test_every_clock_measures_gc
    keep = allocate(200_000)
    %i[wall cpu thread_cpu].each do |clock|
      profile = without_automatic_gc { Tracegraph.profile(clock: clock) { collect(2) } }
      assert_equal 2, profile.gc.runs, clock
      assert_operator profile.gc.total_time, :>, 0, clock
      assert_operator profile.gc.mark_time, :>, 0, clock
      assert_gc_adds_up profile
    end
    keep.size
  end

  # GC.stress collects at every allocation: every one is counted, and the
  # profile stays as small as the program's methods.
  def test_gc_stress_is_counted_and_bounded
    before = after = start = around = nil
    profile = nil
    begin
      GC.stress = true
      start = GC.count
      profile = Tracegraph.profile do
        before = GC.count
        allocate(50)
        after = GC.count
      end
      around = GC.count - start
    ensure
      GC.stress = false
    end
    assert_operator after - before, :>=, 50
    assert_runs_between profile, after - before, around
    assert_operator profile.methods.size, :<, 20
    assert_gc_adds_up profile
  end

  def test_compaction_is_a_run
    skip "GC.compact is not supported here" unless GC.respond_to?(:compact)
    profile = without_automatic_gc { Tracegraph.profile { GC.compact } }
    assert_equal 1, profile.gc.runs
    assert_equal 1, edge_named(profile, "GC.compact", STEP).calls
    assert_gc_adds_up profile
  end

  def test_json_keeps_gc_and_reads_files_without_it
    profile = without_automatic_gc { Tracegraph.profile { collect(2) } }
    data = JSON.parse(profile.to_json)
    assert_equal profile.gc.to_h.transform_keys(&:to_s), data["gc"]
    loaded = Tracegraph::Profile.parse_json(profile.to_json)
    assert_equal profile.gc, loaded.gc
    data.delete("gc")
    old = Tracegraph::Profile.parse_json(JSON.generate(data))
    assert_equal 0, old.gc.runs
    assert_equal 2, old.gc.entries   # its nodes are still there
    data["gc"] = {"runs" => -1}
    error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.parse_json(JSON.generate(data)) }
    assert_match(/gc\.runs must be a non-negative integer/, error.message)
  end

  def test_merge_adds_runs
    profiles = Array.new(2) { without_automatic_gc { Tracegraph.profile { collect(2) } } }
    merged = Tracegraph::Profile.merge(profiles)
    assert_equal 4, merged.gc.runs
    assert_equal 4, merged.gc.entries
  end

  def test_legend_and_flat_table_report_gc
    profile = without_automatic_gc { Tracegraph.profile { collect(3) } }
    pct = format("%.1f%%", 100.0 * profile.gc.total_time / profile.total_time)
    flat = StringIO.new
    profile.print_flat(flat)
    assert_match(/^GC: 3 runs, 3 steps, \S+ \S+ \(#{Regexp.escape(pct)}\); marking \S+ \S+, sweeping \S+ \S+$/,
                 flat.string)
    assert_match(/\(garbage collection: marking\)$/, flat.string)
    assert_match(/\\lGC: 3 runs, 3 steps, [^\\]+ · marking [^\\]+(?: |\\l    )· sweeping [^\\]+\\l/, profile.to_dot)

    quiet = without_automatic_gc { Tracegraph.profile { allocate(10) } }
    flat = StringIO.new
    quiet.print_flat(flat)
    refute_match(/^GC:/, flat.string)
    refute_match(/GC:/, quiet.to_dot)
  end

  # Grouping puts the step, marking and sweeping in one box, but the
  # legend's GC line is the recording's: the same, to the character, at
  # every grain (it once said "marking 0 ns · sweeping 0 ns" when grouped),
  # in the DOT legend (which the HTML report draws too) and the flat table.
  def test_grouped_legend_keeps_the_gc_line
    profile = without_automatic_gc { Tracegraph.profile(call_tree: true) { collect(3) } }
    gc_line = ->(dot) { dot[/\\lGC: (?:[^\\]|\\l    )+\\l/] }
    method_line = gc_line.(profile.to_dot)
    assert_match(/marking (?!0 ns)/, method_line)
    assert_match(/sweeping (?!0 ns)/, method_line)
    %i[class file gem].each do |grouping|
      assert_equal method_line, gc_line.(profile.to_dot(group_by: grouping)), grouping
      grouped = profile.group_by(grouping)
      assert_equal profile.gc, grouped.gc, grouping
      # The graph's own copies (hubs split, chains folded) keep it too.
      assert_equal profile.gc, grouped.split_hubs.first.fold_chains.first.gc, grouping
      flat, grouped_flat = [profile, grouped].map { |p| StringIO.new.tap { |io| p.print_flat(io) }.string[/^GC: .*$/] }
      assert_equal flat, grouped_flat, grouping
    end
  end

  # The public-API build of the hook (no VM reads) records GC the same way.
  def test_without_vm_reads
    script = <<~'RUBY'
      require "tracegraph"
      def collect(n) = n.times { GC.start }
      GC.disable
      profile = Tracegraph.profile { collect(4) }
      raise "VM reads on" if Tracegraph._vm_reads?
      puts [profile.gc.runs, profile.gc.entries, profile.edge("GC.start", "(garbage collection)").calls].join(",")
    RUBY
    out, err, status = ruby("-e", script, chdir: Dir.pwd, env: {"TRACEGRAPH_NO_VM_READS" => "1"})
    assert status.success?, err
    assert_equal "4,4,4", out.strip
  end
end

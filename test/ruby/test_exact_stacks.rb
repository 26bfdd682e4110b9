require_relative "test_helper"
require_relative "stack_tracer"

# Issue #12, exact stacks through every non-local exit: a differential
# test. Every program in stack_programs/ runs once per setting of
# c_calls and of blocks (issue #13: blocks as frames, the default) with
# two tracers recording the same run: tracegraph (with its
# call tree) and StackTracer, a plain TracePoint tracer whose stacks are
# exact because TracePoint reports every return, also while exceptions,
# throw, break and Thread#kill unwind. Their caller->callee edges with
# counts, and their folded stacks with counts, must be identical. A
# wrong shadow stack shows up as a call charged to the wrong caller.
#
# Ruby reports no returns while a SystemStackError unwinds, to any hook,
# TracePoint included. The programs that overflow the stack (those that
# define RECURSIVE) are checked against expectations written by hand in
# the program itself instead.
#
# One test per program and setting: test_<program>__c_calls_on / _off,
# and __blocks_off for the method-only view.
class TestExactStacks < Minitest::Test
  PROGRAM_DIR = File.join(__dir__, "stack_programs")
  PROGRAM_FILES = Dir[File.join(PROGRAM_DIR, "*.rb")].sort
  PROGRAM_FILES.each { |path| require path }

  # [file name without .rb, its module]
  PROGRAMS = PROGRAM_FILES.map do |path|
    name = File.basename(path, ".rb")
    [name, StackPrograms.const_get(name.split("_").map(&:capitalize).join, false)]
  end.freeze

  # Lines of each kind a failure message shows.
  DIFF_LINES = 25

  # Runs the program with both tracers on the same run. The tracer starts
  # first and stops last, and records only while Tracegraph.running? (its
  # hook is installed and removed inside _start and _stop, with the GVL
  # held throughout), so in every thread both see the same events. In the
  # calling thread it also skips what Tracegraph's own singleton methods
  # do (tracegraph ignores those), and its own start and stop.
  def self.record_both(program, c_calls, call_tree: true, blocks: true)
    tracer = StackTracer.new(c_calls: c_calls, blocks: blocks, gate: -> { Tracegraph.running? },
                             one_name_per_line: -> { !Tracegraph._vm_reads? })
    profile = nil
    tracer.start
    Tracegraph.start(call_tree: call_tree, c_calls: c_calls, blocks: blocks)
    begin
      program.run
    ensure
      profile = Tracegraph.stop
      tracer.stop
    end
    [tracer, profile]
  end

  def self.record_tracegraph(program, c_calls, call_tree: true, blocks: true)
    Tracegraph.start(call_tree: call_tree, c_calls: c_calls, blocks: blocks)
    begin
      program.run
    ensure
      profile = Tracegraph.stop
    end
    profile
  end

  # Threads that were running before (minitest's, say) are left out: a
  # thread that first runs during one of the runs would make them differ.
  def self.record_tracer(program, c_calls, blocks: true)
    tracer = StackTracer.new(c_calls: c_calls, blocks: blocks, ignore_threads: Thread.list - [Thread.current])
    tracer.start
    begin
      program.run
    ensure
      tracer.stop
    end
    tracer
  end

  def self.overflows?(program) = program.const_defined?(:RECURSIVE, false)

  PROGRAMS.each do |name, program|
    [true, false].each do |blocks|
      { "on" => true, "off" => false }.each do |label, c_calls|
        define_method("test_#{name}__c_calls_#{label}#{'__blocks_off' unless blocks}") do
          if self.class.overflows?(program)
            check_against_expectations(name, program, c_calls, blocks)
          else
            check_against_tracer(name, program, c_calls, blocks)
          end
        end
      end
    end
  end

  def setup
    settle_other_threads
  end

  def teardown
    Tracegraph.stop if Tracegraph.running?
  end

  # Threads that exist before a test (minitest's parallel executor starts
  # a pool whose threads block in Queue#pop) must be blocked, or their
  # first calls land in whichever run they happen to run during: the
  # tracer would see them too, but the hand-checked expectations would not.
  def settle_other_threads
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 2
    until (Thread.list - [Thread.current]).all?(&:stop?)
      break if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline

      sleep 0.001
    end
  end

  # ---- the tracer checks itself ---------------------------------------------

  # The reference must be a reference: for every program that does not
  # overflow, two runs under the tracer alone give the same edges and
  # stacks, and its stacks stay balanced (every return matches its call).
  { "on" => true, "off" => false }.each do |label, c_calls|
    define_method("test_tracer_is_deterministic_and_balanced__c_calls_#{label}") do
      problems = []
      PROGRAMS.each do |name, program|
        next if self.class.overflows?(program)

        self.class.record_tracer(program, c_calls) # warm up: autoloads, caches
        first = self.class.record_tracer(program, c_calls)
        second = self.class.record_tracer(program, c_calls)
        [first, second].each { |t| problems << "#{name}: #{t.errors.first}" unless t.errors.empty? }
        problems << "#{name}: edges differ between runs" unless same_counts?(first.edges, second.edges)
        problems << "#{name}: stacks differ between runs" unless same_counts?(first.stacks, second.stacks)
        problems << "#{name}: recorded nothing" if first.edges.empty?
      end
      assert_empty problems
    end
  end

  # A hand-checked run: the tracer names, nests and counts as expected,
  # skipping Tracegraph.start/stop and itself. (Only methods written in
  # Ruby, and Kernel#raise and Module#===, which are C on every Ruby.)
  module Handmade
    def self.leaf = :leaf
    def self.twice = (yield; yield)
    def self.middle = twice { leaf }
    def self.fail_now = raise(ArgumentError)
    def self.run
      middle
      fail_now
    rescue ArgumentError
      leaf
    end
  end

  def test_tracer_against_a_hand_checked_run
    h = "TestExactStacks::Handmade"
    edges = { ["#{h}.run", "#{h}.middle"] => 1, ["#{h}.middle", "#{h}.twice"] => 1, ["#{h}.twice", "#{h}.leaf"] => 2,
              ["#{h}.run", "#{h}.fail_now"] => 1, ["#{h}.run", "#{h}.leaf"] => 1 }
    stacks = { "#{h}.run" => 1, "#{h}.run;#{h}.middle" => 1, "#{h}.run;#{h}.middle;#{h}.twice" => 1,
               "#{h}.run;#{h}.middle;#{h}.twice;#{h}.leaf" => 2, "#{h}.run;#{h}.fail_now" => 1,
               "#{h}.run;#{h}.leaf" => 1 }
    tracer, = self.class.record_both(Handmade, false, blocks: false)
    assert_equal edges, tracer.edges
    assert_equal stacks, tracer.stacks
    assert_empty tracer.errors

    # With blocks, middle's block is a frame between twice and leaf.
    b = "block in #{h}.middle"
    block_edges = edges.reject { |k, _| k == ["#{h}.twice", "#{h}.leaf"] }
                       .merge(["#{h}.twice", b] => 2, [b, "#{h}.leaf"] => 2)
    block_stacks = stacks.reject { |k, _| k == "#{h}.run;#{h}.middle;#{h}.twice;#{h}.leaf" }
                         .merge("#{h}.run;#{h}.middle;#{h}.twice;#{b}" => 2,
                                "#{h}.run;#{h}.middle;#{h}.twice;#{b};#{h}.leaf" => 2)
    tracer, = self.class.record_both(Handmade, false)
    assert_equal block_edges, tracer.edges
    assert_equal block_stacks, tracer.stacks
    assert_empty tracer.errors

    tracer, = self.class.record_both(Handmade, true, blocks: false)
    assert_equal 1, tracer.edges.fetch(["#{h}.fail_now", "Kernel#raise"])
    assert_equal 1, tracer.edges.fetch(["#{h}.run", "Module#==="])
    assert_equal edges, tracer.edges.select { |(_, callee), _| callee.start_with?(h) }
    assert_equal stacks, tracer.stacks.reject { |path, _| path.split(";").any? { |m| !m.start_with?(h) } }
    names = tracer.stacks.keys.flat_map { |k| k.split(";") }.uniq
    assert_empty names.grep(/Tracegraph|StackTracer|TracePoint/)
    assert_empty tracer.errors
  end

  # Why the programs that overflow the stack need hand-checked
  # expectations: TracePoint misses the returns of the frames a
  # SystemStackError unwinds, so the tracer's stack goes wrong.
  def test_tracepoint_misses_returns_while_a_stack_overflow_unwinds
    tracer = self.class.record_tracer(StackPrograms::StackOverflowRescuedByCaller, false)
    refute_empty tracer.errors
    assert_match(/unbalanced return of .*\.guarded with .*\.descend on top/, tracer.errors.first)
  end

  # ---- checks ---------------------------------------------------------------

  private

  # Equal but for the addresses in the names of anonymous classes and
  # singleton objects, which each run makes afresh.
  def same_counts?(a, b)
    normal = ->(h) { h.to_h { |k, v| [k.to_s.gsub(/0x\h+/, "0x"), v] } }
    normal[a] == normal[b]
  end

  # Timeout's timer thread (Ruby 3.4), made on the program's first run,
  # may first run during the next Tracegraph.start. Before commit 2477d66
  # the calibration for that recording's new options recorded every thread
  # and said running? true meanwhile, so the tracer's gate let the
  # thread's calls in while they went into the calibration's session, not
  # the profile (12 of 20 processes). The calibration now records its own
  # thread only; the run beforehand still makes the thread, and settling
  # waits until it is blocked, so that both recordings see the same
  # threads whenever it first runs.
  def warm_and_settle(program)
    program.run
    settle_other_threads
  end

  def check_against_tracer(name, program, c_calls, blocks)
    warm_and_settle(program)
    tracer, profile = self.class.record_both(program, c_calls, blocks: blocks)
    assert_empty tracer.errors, "#{name}: the reference tracer lost its balance (a TracePoint limitation?)"
    refute_empty tracer.edges, "#{name}: nothing recorded"
    assert profile.complete?, "#{name}: tracegraph dropped events"
    diffs = []
    diffs << count_diff("edges (caller -> callee)", tracer.edges, tracegraph_edges(profile)) { |k| k.join(" -> ") }
    diffs << count_diff("folded stacks", tracer.stacks, tracegraph_stacks(profile)) { |k| k }
    # Without the call tree, C methods that call nothing get no frame
    # (tg_profiler.h, pending leaves): the edges must not change.
    settle_other_threads
    tracer, profile = self.class.record_both(program, c_calls, call_tree: false, blocks: blocks)
    diffs << count_diff("edges without the call tree", tracer.edges, tracegraph_edges(profile)) { |k| k.join(" -> ") }
    diffs.compact!
    flunk(failure_message(name, c_calls, blocks, "TracePoint", diffs)) unless diffs.empty?
  end

  # Ruby's operators (n == 0, n - 1) are calls in a profile only while
  # Ruby runs them as calls: after the reference tracer's TracePoint(:c_call)
  # has made it, and until a Tracegraph.stop with no other hook on puts
  # them back (iseq_untrace.c). So whether these programs' own operators
  # are calls depends on what ran before in the process; the expectations
  # leave them out, and so does the comparison.
  INLINE_OPERATORS = %w[Integer#== Integer#-].freeze

  def check_against_expectations(name, program, c_calls, blocks)
    profile = self.class.record_tracegraph(program, c_calls, blocks: blocks)
    assert profile.complete?, "#{name}: tracegraph dropped events"
    recursive = program::RECURSIVE
    long_run = program::LONG_RUN
    edges = recursion_folded_edges(profile, recursive, long_run)
    stacks = tracegraph_stacks(profile, recursive, long_run).to_h do |path, calls|
      [path, path.split(";").include?("...") && calls >= long_run ? :many : calls]
    end
    edges.reject! { |(_, callee), _| INLINE_OPERATORS.include?(callee) }
    stacks.reject! { |path, _| INLINE_OPERATORS.include?(path.split(";").last) }
    diffs = []
    expected_edges = program.expected_edges(c_calls, blocks)
    diffs << count_diff("edges (caller -> callee)", expected_edges, edges) { |k| k.join(" -> ") }
    diffs << count_diff("folded stacks", program.expected_stacks(c_calls, blocks), stacks) { |k| k }
    without_tree = recursion_folded_edges(self.class.record_tracegraph(program, c_calls, call_tree: false, blocks: blocks),
                                          recursive, long_run)
    without_tree.reject! { |(_, callee), _| INLINE_OPERATORS.include?(callee) }
    diffs << count_diff("edges without the call tree", expected_edges, without_tree) { |k| k.join(" -> ") }
    diffs.compact!
    flunk(failure_message(name, c_calls, blocks, "the hand-checked expectations", diffs)) unless diffs.empty?
  end

  # Edges between recursive methods called long_run times or more count as :many.
  def recursion_folded_edges(profile, recursive, long_run)
    tracegraph_edges(profile).to_h do |(caller, callee), calls|
      many = recursive.include?(caller) && recursive.include?(callee) && calls >= long_run
      [[caller, callee], many ? :many : calls]
    end
  end

  # Garbage collection's nodes are tracegraph's own; TracePoint has no such calls.
  GC_NODES = Tracegraph::Profile::GC_NODES

  # TracePoint cannot tell apart two blocks that start on one line
  # (nothing it reports has their columns), which tracegraph names by
  # column (naming.c): compared here under the name they share.
  def shared_name(name) = name.sub(Tracegraph::Naming::BLOCK_PLACE, "")

  def tracegraph_edges(profile)
    edges = Hash.new(0)
    profile.edges.each do |e|
      edges[[shared_name(e.caller.name), shared_name(e.callee.name)]] += e.calls unless GC_NODES.include?(e.callee.name)
    end
    edges.to_h
  end

  # Folded stacks from the call tree: each node's path => its calls.
  # Paths are built from the parent's (nodes come after their parents),
  # not with CallTreeNode#stack, which would take time quadratic in the
  # depth of a stack overflow. GC nodes are left out. With recursive names, runs of more than
  # long_run consecutive frames of them fold into one "..." element.
  def tracegraph_stacks(profile, recursive = [], long_run = nil)
    state = {}.compare_by_identity # node => [prefix, run]: run is an Array of names, or :long
    stacks = Hash.new(0)
    profile.call_tree.nodes.each do |node|
      name = shared_name(node.method.name)
      next if GC_NODES.include?(name) # and so are its children, GC nodes too

      prefix, run = node.parent ? state.fetch(node.parent) : [nil, []]
      if recursive.include?(name)
        run = run == :long || run.size >= long_run ? :long : run + [name]
      else
        prefix = join_path(prefix, render_run(run), name)
        run = []
      end
      state[node] = [prefix, run]
      stacks[join_path(prefix, render_run(run))] += node.calls
    end
    stacks.to_h
  end

  def render_run(run) = run == :long ? "..." : (run.empty? ? nil : run.join(";"))
  def join_path(*parts) = parts.compact.join(";")

  # nil if equal, else a readable report: what tracegraph lacks, what it
  # has extra, and what it counts differently.
  def count_diff(title, expected, actual, &show)
    return nil if expected == actual

    missing = (expected.keys - actual.keys).sort_by(&show)
    extra = (actual.keys - expected.keys).sort_by(&show)
    different = (expected.keys & actual.keys).reject { |k| expected[k] == actual[k] }.sort_by(&show)
    lines = ["#{title}:"]
    section = lambda do |heading, keys, &line|
      return if keys.empty?

      lines << "  #{heading} (#{keys.size}):"
      keys.first(DIFF_LINES).each { |k| lines << "    #{line.call(k)}" }
      lines << "    ... #{keys.size - DIFF_LINES} more" if keys.size > DIFF_LINES
    end
    section.call("missing from tracegraph", missing) { |k| "#{show.call(k)}  x#{expected[k]}" }
    section.call("extra in tracegraph", extra) { |k| "#{show.call(k)}  x#{actual[k]}" }
    section.call("counted differently (expected / tracegraph)", different) do |k|
      "#{show.call(k)}  #{expected[k]} / #{actual[k]}"
    end
    lines.join("\n")
  end

  def failure_message(name, c_calls, blocks, reference, diffs)
    "#{name} (c_calls: #{c_calls}, blocks: #{blocks}): tracegraph disagrees with #{reference}\n#{diffs.join("\n")}"
  end
end

require_relative "../test_helper"
require_relative "../cli_helper"

# tracegraph --runs N keeps every figure a single run has: GC runs and
# steps, allocations, wall time, threads, and a view's recorded threads
# and hidden waiting, each the median over the runs.
class TestRunsKeepFigures < Minitest::Test
  include CliHelper

  # A heap big enough that only GC.start collects: 4 runs, 4 steps, every
  # run. Ruby 3.3 and later size each heap by its own variable (they ignore
  # RUBY_GC_HEAP_INIT_SLOTS), and 3.4 collected a fifth time without them.
  QUIET_GC = {"RUBY_GC_HEAP_INIT_SLOTS" => "2000000", "RUBY_GC_MALLOC_LIMIT" => "200000000",
              "RUBY_GC_OLDMALLOC_LIMIT" => "400000000",
              **(0..4).to_h { |i| ["RUBY_GC_HEAP_#{i}_INIT_SLOTS", "400000"] }}.freeze

  def setup
    @dir = Dir.mktmpdir("tracegraph-figures")
    write_script("figures.rb", <<~RUBY)
      def make(n) = Array.new(n) { |i| "s\#{i}" }
      def collect_garbage(n) = n.times { make(100); GC.start }
      worker = Thread.new do
        Thread.current.name = "worker"
        make(300)
      end
      worker.join
      collect_garbage(4)
      sleep 0.05
    RUBY
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def record(*args)
    _, err, status = tracegraph("--allocations", "--flat", *args, "figures.rb", env: QUIET_GC)
    assert status.success?, err
    err
  end

  def figures(profile)
    {gc_runs: profile.gc.runs, gc_steps: profile.gc.entries,
     allocations: profile.total_allocations, threads: profile.threads.map(&:name),
     methods: profile.methods.to_h { |m| [m.name, [m.calls, m.self_allocations, m.allocations]] }}
  end

  def test_each_figure_is_a_single_runs
    # Waiting shown in both: a single run's --flat would leave it out by
    # default, and a median of --runs has no call tree to do that with.
    one_flat = record("--idle", "show", "-o", "one.json")
    three_flat = record("--idle", "show", "--runs", "3", "-o", "three.json")
    one = Tracegraph::Profile.load_json(File.join(@dir, "one.json"))
    three = Tracegraph::Profile.load_json(File.join(@dir, "three.json"))
    assert_equal 3, three.runs.count
    assert_equal [4, 4], [one.gc.runs, one.gc.entries], "the script's GC is deterministic"
    assert_equal figures(one), figures(three)
    assert_equal 4, JSON.parse(File.read(File.join(@dir, "three.json")))["gc"]["runs"]
    assert_operator three.wall_time, :>=, 50_000_000, "the median run's wall time, its sleep in it"

    # The flat's lines: the same counts; times are each run's own.
    counts = lambda do |flat|
      flat.lines.grep(/\A(wall time,|Threads:|GC:)/).map { |l| l.gsub(/[\d.]+ (s|ms|µs|ns)\b|[\d.]+%/, "T") }
    end
    assert_equal 3, counts.(one_flat).size, one_flat
    assert_equal counts.(one_flat), counts.(three_flat)
    assert_match(/^GC: 4 runs, 4 steps, /, three_flat)
    assert_match(/^Threads: 2 \(main, worker\), /, three_flat)
  end

  def test_a_views_figures_are_a_single_runs
    one_flat = record("--thread", "worker", "-o", "one.json")
    three_flat = record("--runs", "3", "--thread", "worker", "-o", "three.json")
    one, three = %w[one three].map { |name| Tracegraph::Profile.load_json(File.join(@dir, "#{name}.json")) }
    assert_equal [2, ["worker"]], [three.recorded_threads, three.threads.map(&:name)]
    assert_equal figures(one), figures(three)
    [one_flat, three_flat].each { |flat| assert_match(/^Threads: 1 of 2 \(worker\), /, flat) }
  end

  # Profile.median: each figure the median of the runs'.
  def run_profile(gc_runs:, wall_time:, recorded:, hidden:)
    m = Tracegraph::MethodStats.new(name: "Object#main", file: "app.rb", line: 1, calls: 1,
                                    total_time: 10, self_time: 10, c_method: false)
    Tracegraph::Profile.new(clock: :wall, methods: [m], edges: [], gc_runs: gc_runs, wall_time: wall_time,
                            threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 10)],
                            viewed_from: Tracegraph::Profile::ViewOrigin.new(recorded_threads: recorded,
                                                                             hidden_waiting: hidden))
  end

  def test_median_of_each_figure
    profiles = [[3, 100, 2, 5], [9, 300, 2, 1], [4, 200, 3, 3]].map do |gc_runs, wall, recorded, hidden|
      run_profile(gc_runs: gc_runs, wall_time: wall, recorded: recorded, hidden: hidden)
    end
    median = Tracegraph::Profile.median(profiles)
    assert_equal [4, 200, 2, 3], [median.gc.runs, median.wall_time, median.recorded_threads, median.hidden_waiting]
    again = Tracegraph::Profile.parse_json(median.to_json)
    assert_equal [4, 200, 2, 3], [again.gc.runs, again.wall_time, again.recorded_threads, again.hidden_waiting]

    profiles[1] = run_profile(gc_runs: 9, wall_time: nil, recorded: 2, hidden: 1)
    assert_nil Tracegraph::Profile.median(profiles).wall_time, "a run without wall time (an old file): none"
  end
end

require_relative "test_helper"
require_relative "cli_helper"

# bench/accuracy.rb (rake bench:accuracy) runs and says something sane: a
# QUICK run of one small workload, as a user would start it, whose tables
# parse and hold shares between 0 and 1. How accurate the profile is, is
# the bench's to say, not a timed test's: nothing here compares the
# profile's shares with the truth.
class TestAccuracyBench < Minitest::Test
  include CliHelper

  BENCH = File.join(CliHelper::ROOT, "bench/accuracy.rb")
  TARGETS = %w[TinyCalls.many_tiny TinyCalls.few_big].freeze
  # A configuration no tracegraph takes: its column must be n/a, not a failure.
  REFUSED = "no_such_option: true".freeze
  CONFIGS = ["{}", "c_calls: false", REFUSED].freeze

  def setup
    @dir = Dir.mktmpdir("tracegraph-accuracy-test")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # Each table of a Markdown text, after the heading above it: {heading =>
  # [header cells, rows of cells]}.
  def tables(markdown)
    heading = nil
    found = {}
    markdown.each_line(chomp: true) do |line|
      if line.start_with?("#")
        heading = line
      elsif line.start_with?("|")
        cells = line.split("|")[1..].map(&:strip)
        table = (found[heading] ||= [])
        table << cells unless cells.all?("---")
      end
    end
    found.transform_values { |(head, *rows)| [head, rows] }
  end

  def share(cell)
    value = cell[/\A\**(\d+(?:\.\d+)?)%/, 1] or flunk("no share in #{cell.inspect}")
    Float(value) / 100
  end

  def test_quick_run_of_one_workload_prints_sane_tables
    out_file = File.join(@dir, "ACCURACY.md")
    # One stackprof process and two fresh profiles: the shape, not the numbers.
    env = {"QUICK" => "1", "WORKLOADS" => "tiny_calls", "CONFIGS" => CONFIGS.join("; "), "ACCURACY_OUT" => out_file,
           "SAMPLES" => "1", "SPREAD_PROCESSES" => "2"}
    out, err, status = ruby(BENCH, env: env)
    assert status.success?, "bench failed:\n#{err}"
    assert_equal out, File.read(out_file), "the report written is the one printed"
    assert_match(/^- Load average .* at start: [\d.]+ [\d.]+ [\d.]+; at end: [\d.]+ [\d.]+ [\d.]+$/, out)
    assert_match(/^- Ruby: #{Regexp.escape(RUBY_DESCRIPTION)}$/, out)

    all = tables(out)
    labels = CONFIGS.map { |c| "`#{c}`" }
    head, rows = all.fetch("### tiny_calls")
    assert_equal ["method", "calls a run", "true share (its range)", "same run", *labels], head
    assert_equal [*TARGETS, "**worst ratio**"], rows.map(&:first)
    rows.first(TARGETS.size).each do |method, calls, truth, same_run, default, no_c, refused|
      assert_operator Integer(calls), :>, 0, method
      assert_operator share(truth), :>, 0, "#{method}'s true share"
      # A round's share is its wrapped run's target time over another run's
      # whole (bench/accuracy_run.rb): on a busy machine it can pass 1
      # (1.165 under load 7, Ruby 3.3), but not by double.
      assert_operator share(truth), :<, 2, "#{method}'s true share"
      low, high = truth.scan(/(\d+\.\d)%/).drop(1).flatten.map { |s| Float(s) / 100 }
      assert_operator low, :<=, share(truth), "#{method}: range #{truth}"
      assert_operator high, :>=, share(truth), "#{method}: range #{truth}"
      assert_operator share(same_run), :>, 0, "#{method}'s share of its own wrapped run"
      assert_operator share(same_run), :<=, 1, "#{method}'s share of its own wrapped run"
      [default, no_c].each do |c|
        assert_match(/\A\d+\.\d% \(\d+\.\d\d×\)\z/, c, method)
        assert_operator share(c), :>, 0, "#{method}: #{c}"
        assert_operator share(c), :<=, 1, "#{method}: #{c}"
        assert_operator Float(c[/\((\d+\.\d+)×\)/, 1]), :>=, 1, "a ratio is >= 1 by construction: #{c}"
      end
      assert_equal "n/a", refused
    end

    head, rows = all.fetch("## Worst ratio against the wrapper's truth, targets only (reported ÷ true share, or its inverse)")
    assert_equal ["workload", *labels], head
    assert_equal 1, rows.size
    name, default, no_c, refused = rows.first
    assert_equal "tiny_calls", name
    [default, no_c].each { |c| assert_match(/\A\d+\.\d\d×\z/, c) }
    assert_equal "n/a", refused
    assert_match(/^- `#{REFUSED}`: n\/a, Tracegraph.profile refused it: unknown option :no_such_option/, out)

    assert_against_the_truth_that_fits(all, out)

    head, rows = all.fetch("## Slowdown (profiled ÷ unprofiled wall time)")
    assert_equal ["workload", "unprofiled", "`{}`: the profile's total ÷ unprofiled", *labels], head
    name, unprofiled, total, default, no_c, refused = rows.first
    assert_equal "tiny_calls", name
    assert_match(/\A\d+ ms\z/, unprofiled)
    assert_operator Float(total.delete_suffix("×")), :>, 0
    [default, no_c].each { |c| assert_operator Float(c.delete_suffix("×")), :>, 0 }
    assert_equal "n/a", refused
  end

  # call_kinds adds a table of residuals, one row per kind of call, not
  # inverted: a ratio around 1 either way, and what it leaves per call.
  def test_call_kinds_reports_a_residual_per_kind
    out_file = File.join(@dir, "ACCURACY.md")
    env = {"QUICK" => "1", "WORKLOADS" => "call_kinds", "CONFIGS" => "{}", "ACCURACY_OUT" => out_file,
           "SAMPLES" => "1", "SPREAD_PROCESSES" => "1", "TRUTH_RUNS" => "1", "PROFILE_RUNS" => "1"}
    out, err, status = ruby(BENCH, env: env)
    assert status.success?, "bench failed:\n#{err}"
    # the table after the words that open it, before the next heading
    head, residuals = tables(out.split("Per kind, the residual", 2).last).fetch(nil)
    assert_equal ["loop", "calls of its kind a run", "true share", "reported", "reported ÷ true", "left in per call"], head
    kinds = %w[plain define_method send public_send method_missing super attr_reader c_yield new last_match]
    assert_equal kinds.map { |k| "CallKinds.#{k}_calls" }, residuals.map(&:first)
    residuals.each do |kind, calls, true_share, reported, ratio, per_call|
      assert_equal 40_000, Integer(calls), kind
      assert_operator share(true_share), :>, 0, kind
      assert_operator share(reported), :>, 0, kind
      assert_match(/\A\d+\.\d\d\z/, ratio, kind)
      assert_match(/\A[+-]\d+\.\d ns\z/, per_call, kind)
    end
  end

  # The sampled truth's tables: a summary row, and a row per method with a
  # true share of 2% or more, the targets among them, each with its truth.
  def assert_against_the_truth_that_fits(all, out)
    configs = CONFIGS.map { |c| "`#{c}`, 3 in one process" }
    head, rows = all.fetch("## Against the truth that fits: every method with a true share of 2.0% or more")
    assert_equal ["workload", "methods compared", "samples (processes)", "`{}`: worst ratio, median of 2 fresh processes",
                  "largest spread, max ÷ min of the 2", "within 1.25× and 1.5×", *configs], head
    assert_equal 1, rows.size
    name, compared, samples, ratio, spread, met, default, no_c, refused = rows.first
    assert_equal "tiny_calls", name
    # Without stackprof for this Ruby (the 3.4 chroots), the row says so and names the package.
    unless system(RbConfig.ruby, "-e", "require 'stackprof'", %i[out err] => File::NULL)
      return assert_equal("skipped: stackprof is not installed (apt-get install ruby-stackprof)", compared)
    end

    assert_match(/\A\d+ \(\d+ timed\)\z/, compared)
    assert_match(/\A\d+ in 1\z/, samples)
    [ratio, spread].each { |c| assert_match(/\A\*\*\d+\.\d\d×\*\* \(\S+\)\z/, c) }
    assert_includes %w[yes no], met
    [default, no_c].each { |c| assert_match(/\A\d+\.\d\d×\z/, c) }
    assert_equal "n/a", refused

    head, rows = all.fetch("#### tiny_calls: against the truth that fits")
    assert_equal ["method", "calls a run", "truth", "true share", "sampled", "timed", "`{}`, median of 2 fresh",
                  "the 2: range (max ÷ min)", *configs], head
    methods = rows.map(&:first)
    assert_empty TARGETS - methods, "every target is compared"
    rows.each do |method, calls, truth, true_share, sampled, timed, fresh, range, default, no_c, refused|
      # the collector is timed by its own clock; it may run in one short
      # profile and not the next
      next assert_equal("GC.total_time", truth) if method == "(garbage collection)"

      assert_operator Integer(calls), :>, 0, method
      # A target called once a round keeps its timed truth; the tiny method,
      # called 60,000 times a round, is the sampled truth's.
      assert_equal(TARGETS.include?(method) ? "timed" : "sampled", truth, method)
      assert_operator share(true_share), :>=, 0.02, method
      assert_operator share(sampled), :>, 0, method
      TARGETS.include?(method) ? assert_operator(share(timed), :>, 0, method) : assert_equal("-", timed, method)
      assert_match(/\A\d+\.\d% \(\d+\.\d\d×\)\z/, fresh, method)
      assert_match(/\A\d+\.\d%–\d+\.\d% \(\d+\.\d\d×\)\z/, range, method)
      assert_match(/\A\d+\.\d% \(\d+\.\d\d×\)\z/, default, method)
      # String#tr is no box without C calls: not recorded, not a miss
      assert_match(/\A(\d+\.\d% \(\d+\.\d\d×\)|not recorded)\z/, no_c, method)
      assert_equal "n/a", refused
    end
    assert_includes methods, "TinyCalls.tiny", "the method called 60,000 times a round is compared"
    assert_match(/^The sampled truth: \d+ samples every 250 µs, 1 runs in each of 1 processes;$/, out)
    assert_match(/^the collector's share by its own clock \(GC.total_time over the unprofiled runs' CPU time\): \d+\.\d%; by its samples: \d+\.\d%;$/, out)
    # the collector's time a run, each fresh profile's being its own truth
    assert_match(/^its time a run, unprofiled: \d+ ms \(\d+–\d+\); in the \d fresh profiles, each the truth of its own run: \d+ ms \(\d+–\d+\)\.$/, out)
  end
end

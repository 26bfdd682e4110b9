require_relative "../test_helper"
require_relative "../cli_helper"
require "stringio"

# The calls gate on profiles of several runs (tracegraph --runs N): a
# method whose call count varied between the runs of a side is compared
# within that variation, and the report says by how much it varies; one
# whose count never varied keeps the exact rule.
class TestGateCallNoise < Minitest::Test
  include CliHelper

  EXACT = {default: 0.0, methods: {}}.freeze

  # One run: main calls each of calls' methods (name => count; 0: not run).
  def run_profile(calls)
    main = Tracegraph::MethodStats.new(name: "Object#main", file: "app.rb", line: 1, calls: 1,
                                       total_time: 1000, self_time: 1000 - (10 * calls.size), c_method: false)
    methods = calls.reject { |_, n| n.zero? }.map do |name, n|
      Tracegraph::MethodStats.new(name: name, file: nil, line: nil, calls: n, total_time: 10, self_time: 10,
                                  c_method: true)
    end
    edges = methods.map { |m| Tracegraph::EdgeStats.new(caller: main, callee: m, calls: m.calls, total_time: 10, self_time: 10) }
    Tracegraph::Profile.new(clock: :cpu, methods: [main, *methods], edges: edges,
                            threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 1000)])
  end

  # The median profile of runs; calls: name => [count in run 1, run 2, ...].
  def runs(calls)
    count = calls.values.first.size
    Tracegraph::Profile.median(Array.new(count) { |i| run_profile(calls.transform_values { |list| list[i] }) })
  end

  def gate(base, head, calls: EXACT)
    g = Tracegraph::DiffGate.new(base.diff(head), calls: calls)
    io = StringIO.new
    g.report(io)
    [g, io.string]
  end

  def test_a_count_that_varies_is_compared_within_its_variation_and_the_report_says_so
    base = runs("Kernel#is_a?" => [156_038, 156_039, 156_038], "Object#work" => [100, 100, 100])
    head = runs("Kernel#is_a?" => [156_039, 156_039, 156_039], "Object#work" => [100, 100, 100])
    g, report = gate(base, head)
    refute g.failed?, report
    assert_equal <<~TEXT, report
      tracegraph diff: calls of Kernel#is_a? 156,038 -> 156,039, +0.0%: above the allowed ±0% but within the noise between runs (Kernel#is_a? varies by ±1 call between runs)
      tracegraph diff: 3 method checks, 0 failed (3 and 3 runs); 1 method varied in calls between runs and was compared within that
    TEXT
    assert_equal [1, 0, 0], %w[Kernel#is_a? Object#work Object#main].map { |n| g.checks.find { |c| c.name == n }.spread }
  end

  def test_a_change_beyond_the_variation_fails
    base = runs("Kernel#is_a?" => [156_038, 156_039, 156_038])
    head = runs("Kernel#is_a?" => [156_041, 156_040, 156_041]) # +3, where the runs vary by 1 and 1
    g, report = gate(base, head)
    assert_equal ["Kernel#is_a?"], g.failures.map(&:name)
    assert_includes report, "tracegraph diff: calls of Kernel#is_a? 156,038 -> 156,041, +0.0%: more than the allowed " \
                            "±0%: FAILED (Kernel#is_a? varies by ±2 calls between runs)\n"
    head = runs("Kernel#is_a?" => [156_040, 156_040, 156_039]) # +2: as far as the runs went
    refute gate(base, head).first.failed?
  end

  def test_a_count_that_never_varied_keeps_the_exact_rule_beside_noisy_ones
    base = runs("Kernel#is_a?" => [10, 14, 12], "Object#work" => [100, 100, 100])
    head = runs("Kernel#is_a?" => [12, 10, 14], "Object#work" => [101, 101, 101])
    g, report = gate(base, head)
    assert_equal ["Object#work"], g.failures.map(&:name)
    assert_includes report, "tracegraph diff: calls of Object#work 100 -> 101, +1.0%: more than the allowed ±0%: FAILED\n"
    assert_includes report, "3 method checks, 1 failed (3 and 3 runs); 1 method varied in calls"
    g, = gate(base, head, calls: {default: 0.0, methods: {"Object#work" => 1.0}})
    refute g.failed?, "a limit still allows what it allows"
  end

  # A method that ran in fewer than half of a side's runs is left out of
  # that side's median, but its samples are kept: it is noisy, not new.
  def test_a_method_in_some_runs_only_is_noisy_not_new
    base = runs("Hash#rehash" => [0, 2, 0], "Object#work" => [5, 5, 5])
    head = runs("Hash#rehash" => [2, 0, 2], "Object#work" => [5, 5, 5])
    assert_nil base["Hash#rehash"]
    assert_equal [0, 2, 0], base.runs.calls("Hash#rehash")
    g, report = gate(base, head)
    refute g.failed?, report
    assert_includes report, "calls of Hash#rehash 0 -> 2, new: above the allowed ±0% but within the noise between runs " \
                            "(Hash#rehash varies by ±4 calls between runs)\n"

    # Kept through the JSON; a file without "others" (from before it) loads, and the method is new there.
    base_json = JSON.parse(base.to_json)
    assert_equal [{"name" => "Hash#rehash", "self_time" => [0, 10, 0], "calls" => [0, 2, 0]}], base_json["runs"]["others"]
    refute gate(Tracegraph::Profile.parse_json(base.to_json), Tracegraph::Profile.parse_json(head.to_json)).first.failed?
    base_json["runs"].delete("others")
    assert_nil JSON.parse(head.to_json)["runs"]["others"], "in head's median: no others"
    old_base = Tracegraph::Profile.parse_json(JSON.generate(base_json))
    steady = runs("Hash#rehash" => [2, 2, 2], "Object#work" => [5, 5, 5])
    g, report = gate(base, steady)
    refute g.failed?, report
    assert_includes report, "(Hash#rehash varies by ±2 calls between runs)\n"
    g, report = gate(old_base, steady)
    assert_equal ["Hash#rehash"], g.failures.map(&:name), "base's samples of it unknown: new, and never varied"
    assert_includes report, "calls of Hash#rehash 0 -> 2, new: more than the allowed ±0%: FAILED\n"
  end

  def test_single_runs_keep_the_exact_rule
    g, report = gate(run_profile("Kernel#is_a?" => 156_038), run_profile("Kernel#is_a?" => 156_039))
    assert_equal ["Kernel#is_a?"], g.failures.map(&:name)
    assert_includes report, "calls of Kernel#is_a? 156,038 -> 156,039, +0.0%: more than the allowed ±0%: FAILED\n"
    assert_includes report, "(one run each: the noise is not measured; record with tracegraph --runs 10)\n"

    # Runs on one side only: that side's variation is all there is.
    g, report = gate(runs("Kernel#is_a?" => [156_038, 156_040, 156_038]), run_profile("Kernel#is_a?" => 156_040))
    refute g.failed?, report
    assert_includes report, "(Kernel#is_a? varies by ±2 calls between runs)"
    g, = gate(runs("Kernel#is_a?" => [156_038, 156_040, 156_038]), run_profile("Kernel#is_a?" => 156_041))
    assert g.failed?
  end

  def test_hostile_others_are_refused_with_the_field
    data = JSON.parse(runs("Hash#rehash" => [0, 2, 0], "Object#work" => [5, 5, 5]).to_json)
    [
      [->(d) { d["runs"]["others"] = {} }, /runs\.others must be an array, not an object/],
      [->(d) { d["runs"]["others"][0] = 1 }, /runs\.others\[0\] must be an object/],
      [->(d) { d["runs"]["others"][0].delete("name") }, /runs\.others\[0\]\.name must be a string/],
      [->(d) { d["runs"]["others"][0]["calls"] = [0, 2] }, /runs\.others\[0\]\.calls must be an array of 3 non-negative integers/],
      [->(d) { d["runs"]["others"][0]["self_time"] = [0, -1, 0] }, /runs\.others\[0\]\.self_time must be an array of 3/]
    ].each do |mangle, message|
      copy = JSON.parse(JSON.generate(data))
      mangle.call(copy)
      error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.parse_json(JSON.generate(copy)) }
      assert_match message, error.message
    end
  end

  # Through the commands: a script whose calls of Object#probe depend on
  # its run number (odd runs one more), and EXTRA more.
  def test_through_tracegraph_runs_and_diff
    @dir = Dir.mktmpdir("tracegraph-call-noise")
    write_script("app.rb", <<~RUBY)
      def probe = nil
      def work = nil
      File.open("runs.log", "a") { |f| f.puts $$ }
      run = File.readlines("runs.log").size
      (50 + run % 2 + ENV["EXTRA"].to_i).times { probe }
      (10 + ENV["MORE_WORK"].to_i).times { work }
    RUBY
    record = lambda do |name, env = {}|
      # --no-gc: whether the collector runs in a process is not this test's
      # noise (a side whose 3 runs all collected, against one whose none did).
      _, err, status = tracegraph("--runs", "3", "--no-gc", "-o", name, "app.rb", env: env)
      assert status.success?, err
    end
    record.("base.json")                       # runs 1-3: 51, 50, 51 calls of probe
    record.("same.json")                       # runs 4-6: 50, 51, 50
    record.("extra.json", "EXTRA" => "3")      # runs 7-9: 54, 53, 54
    record.("work.json", "MORE_WORK" => "1")   # runs 10-12: 50, 51, 50; work 11
    base = Tracegraph::Profile.load_json(File.join(@dir, "base.json"))
    assert_equal [[51, 50, 51], [10, 10, 10]], [base.runs.calls("Object#probe"), base.runs.calls("Object#work")]

    diff = ->(head) { tracegraph("diff", "--text", "--fail-on-calls", "0", "base.json", head) }
    _, err, status = diff.("same.json")
    assert_equal 0, status.exitstatus, err
    assert_includes err, "tracegraph diff: calls of Object#probe 51 -> 50, -2.0%: above the allowed ±0% but within " \
                         "the noise between runs (Object#probe varies by ±2 calls between runs)\n"
    _, err, status = diff.("extra.json")
    assert_equal 3, status.exitstatus, err
    assert_includes err, "tracegraph diff: calls of Object#probe 51 -> 54, +5.9%: more than the allowed ±0%: FAILED " \
                         "(Object#probe varies by ±2 calls between runs)\n"
    _, err, status = diff.("work.json")
    assert_equal 3, status.exitstatus, err
    assert_includes err, "tracegraph diff: calls of Object#work 10 -> 11, +10.0%: more than the allowed ±0%: FAILED\n"
  ensure
    FileUtils.rm_rf(@dir)
  end

  # A Hash key collision calls the key's ==, which asks both sides'
  # name: the calls an exempt method makes are exempt with it, and the
  # rest of the callee's calls are gated as ever.
  def test_the_calls_an_exempt_method_makes_are_exempt_too
    profile = lambda do |collisions, direct|
      stats = ->(name, calls) { Tracegraph::MethodStats.new(name: name, file: "a.rb", line: 1, calls: calls,
                                                           total_time: 10, self_time: 10, c_method: false) }
      main = stats.("Object#main", 1)
      eq = stats.("Attribute#==", collisions)
      name = stats.("Attribute#name", direct + 2 * collisions)
      edge = ->(a, b, calls) { Tracegraph::EdgeStats.new(caller: a, callee: b, calls: calls, total_time: 1, self_time: 1) }
      edges = [edge.(main, name, direct), edge.(main, eq, collisions), edge.(eq, name, 2 * collisions)]
      Tracegraph::Profile.new(clock: :cpu, methods: [main, eq, name], edges: edges.reject { |e| e.calls.zero? },
                              threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 100)])
    end
    gate = lambda do |base, head, ignore|
      g = Tracegraph::DiffGate.new(base.diff(head), calls: EXACT, ignore: ignore)
      io = StringIO.new
      g.report(io)
      [g, io.string]
    end
    g, report = gate.(profile.(0, 10), profile.(2, 10), [])
    assert_equal %w[Attribute#== Attribute#name], g.failures.map(&:name).sort, report
    g, report = gate.(profile.(0, 10), profile.(2, 10), ["*#=="])
    refute g.failed?, report
    assert_equal [10, 10, [0, 4]], g.checks.find { |c| c.name == "Attribute#name" }.to_h.values_at(:base, :head, :uncounted)
    g, report = gate.(profile.(0, 10), profile.(2, 11), ["*#=="])
    assert_equal ["Attribute#name"], g.failures.map(&:name), report
    assert_includes report, "tracegraph diff: calls of Attribute#name 10 -> 11 (not counting 0 -> 4 calls from " \
                            "exempt methods), +10.0%: more than the allowed ±0%: FAILED\n"
  end

  # Gem::Specification#eql?, on a collision, calls same_attributes?, which
  # calls authors: in one process and not the next. What only an exempt
  # method reaches is exempt at any depth; a method called from elsewhere
  # too is gated on those other calls.
  def test_what_only_an_exempt_method_reaches_is_exempt_at_any_depth
    profile = lambda do |collisions, direct|
      stats = ->(name, calls) { Tracegraph::MethodStats.new(name: name, file: "a.rb", line: 1, calls: calls,
                                                           total_time: 10, self_time: 10, c_method: false) }
      edge = ->(a, b, calls) { Tracegraph::EdgeStats.new(caller: a, callee: b, calls: calls, total_time: 1, self_time: 1) }
      main = stats.("Object#main", 1)
      eql = stats.("Spec#eql?", collisions)
      same = stats.("Spec#same_attributes?", collisions)
      authors = stats.("Spec#authors", direct + collisions)
      edges = [edge.(main, eql, collisions), edge.(eql, same, collisions), edge.(same, same, collisions),
               edge.(same, authors, collisions), edge.(main, authors, direct)].reject { |e| e.calls.zero? }
      methods = [main, eql, same, authors].reject { |m| m.calls.zero? }
      Tracegraph::Profile.new(clock: :cpu, methods: methods, edges: edges,
                              threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 100)])
    end
    check = lambda do |base, head|
      g = Tracegraph::DiffGate.new(base.diff(head), calls: EXACT, ignore: ["*#eql?"])
      io = StringIO.new
      g.report(io)
      [g, io.string]
    end
    g, report = check.(profile.(0, 5), profile.(3, 5))
    refute g.failed?, report
    assert_includes report, "; 1 more method exempt, as only exempt methods call it\n", "same_attributes?, in head"
    assert_equal [[0, 0, [0, 3]], [5, 5, [0, 3]]],
                 %w[Spec#same_attributes? Spec#authors].map { |n| g.checks.find { |c| c.name == n }.to_h.values_at(:base, :head, :uncounted) }
    g, report = check.(profile.(0, 5), profile.(3, 6))
    assert_equal ["Spec#authors"], g.failures.map(&:name), report
  end
end

require_relative "../test_helper"
require_relative "../cli_helper"
require "stringio"

# Allocation counts through everything that reads or combines a profile:
# JSON, the flat table, merge, median, views, hub splitting, the command
# and autorun. The profiles here are written by hand, so every number is
# known.
class TestAllocationOutputs < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-allocations")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # main -> work (2 calls) -> String#* ; allocations as given.
  def document(allocations: true, work: [40, 10], times: [30, 30])
    method = lambda do |name, calls, total, self_time, allocs|
      m = {"name" => name, "file" => nil, "line" => nil, "c_method" => false, "calls" => calls,
           "total_time" => total, "self_time" => self_time}
      allocations ? m.merge("allocations" => allocs[0], "self_allocations" => allocs[1]) : m
    end
    edge = lambda do |caller, callee, calls, total, self_time, allocs|
      e = {"caller" => caller, "callee" => callee, "calls" => calls, "total_time" => total, "self_time" => self_time}
      allocations ? e.merge("allocations" => allocs[0], "self_allocations" => allocs[1]) : e
    end
    {"version" => 2, "clock" => "wall", "unit" => "ns", "total_time" => 100,
     "threads" => [{"id" => 1, "name" => "main", "total_time" => 100}],
     "methods" => [method.call("Object#main", 1, 100, 40, [work[0] + 5, 5]),
                   method.call("Object#work", 2, 60, 30, work),
                   method.call("String#*", 4, times[0], times[1], [work[0] - work[1], work[0] - work[1]])],
     "edges" => [edge.call(0, 1, 2, 60, 30, work),
                 edge.call(1, 2, 4, 30, 30, [work[0] - work[1], work[0] - work[1]])]}
      .merge(allocations ? {"allocations" => true} : {})
  end

  def parse(data) = Tracegraph::Profile.parse_json(JSON.generate(data))

  def test_json_keeps_every_count_and_reads_them_back
    profile = parse(document)
    assert_predicate profile, :allocations?
    assert_equal 45, profile.total_allocations
    assert_equal [40, 10], [profile["Object#work"].allocations, profile["Object#work"].self_allocations]
    assert_equal [30, 30], [profile.edge("Object#work", "String#*").allocations,
                            profile.edge("Object#work", "String#*").self_allocations]
    data = profile.to_h
    assert_equal true, data["allocations"]
    assert_equal({"allocations" => 40, "self_allocations" => 10},
                 data["methods"][1].slice("allocations", "self_allocations"))
    assert_equal({"allocations" => 30, "self_allocations" => 30},
                 data["edges"][1].slice("allocations", "self_allocations"))
    assert_equal data, parse(data).to_h
  end

  def test_a_profile_without_allocations_writes_and_reads_none
    profile = parse(document(allocations: false))
    refute_predicate profile, :allocations?
    assert_nil profile.total_allocations
    assert_nil profile["Object#work"].allocations
    assert_nil profile.edges.first.self_allocations
    data = profile.to_h
    refute data.key?("allocations")
    assert data["methods"].none? { |m| m.key?("allocations") || m.key?("self_allocations") }
    assert data["edges"].none? { |e| e.key?("allocations") }
  end

  def test_malformed_allocation_fields_are_named
    {
      ->(d) { d["allocations"] = "yes" } => /allocations must be true or false/,
      ->(d) { d["methods"][1].delete("self_allocations") } => /methods\[1\]\.self_allocations must be a non-negative/,
      ->(d) { d["edges"][0]["allocations"] = -1 } => /edges\[0\]\.allocations must be a non-negative/,
      ->(d) { d["methods"][1]["self_allocations"] = 41 } => /methods\[1\]\.self_allocations \(41\) is more than its allocations \(40\)/
    }.each do |spoil, message|
      data = document
      spoil.call(data)
      error = assert_raises(Tracegraph::FormatError) { parse(data) }
      assert_match message, error.message
    end
  end

  def test_the_flat_table_has_allocation_columns_only_when_recorded
    io = StringIO.new
    parse(document).print_flat(io)
    lines = io.string.lines
    assert_match(/, 7 calls, 45 objects allocated$/, lines[0])
    assert_equal "raw times: tracing's own cost is in them\n", lines[1] # a document without raw_times
    assert_match(/self%\s+self allocs\s+total allocs\s+method$/, lines[2])
    assert_match(/\s10\s+40\s+Object#work$/, lines.grep(/Object#work/).first)
    assert_match(/\s5\s+45\s+Object#main$/, lines.grep(/Object#main/).first)

    io = StringIO.new
    parse(document(allocations: false)).print_flat(io)
    refute_match(/alloc/, io.string)
  end

  def test_the_graph_shows_each_box_s_own_allocations
    dot = parse(document).to_dot(node_fraction: 0, edge_fraction: 0)
    work = dot.lines.find { |l| l.include?('label="Object#work') }
    assert_includes work, "\\nallocs 10 (22.2%)\\n2 calls"
    assert_includes work, "allocations: self 10 (22.2%), total 40 (88.9%)"
    assert_includes dot, "Allocations: 45 objects \u00b7 allocs = a box's own"
    refute_includes parse(document(allocations: false)).to_dot, "alloc"
  end

  def test_callgrind_has_allocations_as_a_second_event
    callgrind = parse(document).to_callgrind
    assert_includes callgrind, "events: Nanoseconds Allocations\nsummary: 100 45\n"
    assert_includes callgrind, "fn=(2)\n0 30 10\n" # Object#work: self time, self allocations
    assert_includes callgrind, "calls=4 0\n0 30 30\n"          # work -> String#*: inclusive
    assert_includes callgrind, "totals: 100 45\n"
    plain = parse(document(allocations: false)).to_callgrind
    assert_includes plain, "events: Nanoseconds\nsummary: 100\n"
    assert_includes plain, "fn=(2)\n0 30\n"
    return unless system("command -v callgrind_annotate > /dev/null 2>&1")

    path = File.join(@dir, "callgrind.out.allocations")
    File.write(path, callgrind)
    out, err, status = Open3.capture3("callgrind_annotate", "--threshold=100", "--auto=no", path)
    assert status.success?, err
    assert_equal "", err
    assert_match(/^\s*30\s.*\s10\s.*Object#work$/, out)
  end

  def test_merge_adds_counts_up_when_every_profile_has_them
    sum = Tracegraph::Profile.merge([parse(document), parse(document(work: [100, 20]))])
    assert_predicate sum, :allocations?
    assert_equal [140, 30], [sum["Object#work"].allocations, sum["Object#work"].self_allocations]
    assert_equal [110, 110], [sum["String#*"].allocations, sum["String#*"].self_allocations]
    assert_equal 140, sum.edge("Object#main", "Object#work").allocations
    assert_equal 45 + 105, sum.total_allocations

    mixed = Tracegraph::Profile.merge([parse(document), parse(document(allocations: false))])
    refute_predicate mixed, :allocations?
    assert_nil mixed["Object#work"].allocations
    assert_nil mixed.edges.first.allocations
  end

  def test_median_takes_each_count_s_median
    runs = [[40, 10], [100, 20], [60, 16]].map { |work| parse(document(work: work)) }
    median = Tracegraph::Profile.median(runs)
    assert_predicate median, :allocations?
    assert_equal [60, 16], [median["Object#work"].allocations, median["Object#work"].self_allocations]
    assert_equal [60, 16], [median.edge("Object#main", "Object#work").allocations,
                            median.edge("Object#main", "Object#work").self_allocations]
    assert_equal 44, median["String#*"].allocations
    refute_predicate Tracegraph::Profile.median(runs + [parse(document(allocations: false))]), :allocations?
  end

  # Two threads. main: main -> work (2 calls) -> String#*, main -> IO#read
  # (waiting, and allocating 8); worker: work -> String#*. Each node:
  # [parent, method, calls, total, self, thread, allocations, self allocations].
  NODES = [
    [nil, 0, 1, 100, 10, 1, 53, 5],
    [0, 1, 2, 60, 30, nil, 40, 10],
    [1, 2, 4, 30, 30, nil, 30, 30],
    [0, 3, 1, 30, 30, nil, 8, 8],
    [nil, 1, 1, 20, 5, 2, 12, 2],
    [4, 2, 2, 15, 15, nil, 10, 10]
  ].freeze

  def threaded_document(node_counts: true)
    method = lambda do |name, calls, total, self_time, allocs|
      {"name" => name, "file" => nil, "line" => nil, "c_method" => false, "calls" => calls, "total_time" => total,
       "self_time" => self_time, "allocations" => allocs[0], "self_allocations" => allocs[1]}
    end
    edge = lambda do |caller, callee, calls, total, self_time, allocs|
      {"caller" => caller, "callee" => callee, "calls" => calls, "total_time" => total, "self_time" => self_time,
       "allocations" => allocs[0], "self_allocations" => allocs[1]}
    end
    nodes = NODES.map do |parent, m, calls, total, self_time, thread, allocs, self_allocs|
      node = {"parent" => parent, "method" => m, "calls" => calls, "total_time" => total, "self_time" => self_time}
      node["thread"] = thread if thread
      node_counts ? node.merge("allocations" => allocs, "self_allocations" => self_allocs) : node
    end
    {"version" => 2, "clock" => "wall", "unit" => "ns", "total_time" => 120, "allocations" => true,
     "threads" => [{"id" => 1, "name" => "main", "total_time" => 100},
                   {"id" => 2, "name" => "worker", "total_time" => 20}],
     "methods" => [method.call("Object#main", 1, 100, 10, [53, 5]), method.call("Object#work", 3, 80, 35, [52, 12]),
                   method.call("String#*", 6, 45, 45, [40, 40]), method.call("IO#read", 1, 30, 30, [8, 8])],
     "edges" => [edge.call(0, 1, 2, 60, 30, [40, 10]), edge.call(1, 2, 6, 45, 45, [40, 40]),
                 edge.call(0, 3, 1, 30, 30, [8, 8])],
     "call_tree" => {"folded_calls" => 0, "nodes" => nodes}}
  end

  def stats(profile)
    profile.methods.to_h { |m| [m.name, [m.calls, m.allocations, m.self_allocations]] }
  end

  def test_the_call_tree_keeps_each_path_s_counts_and_reads_them_back
    profile = parse(threaded_document)
    assert_predicate profile.call_tree, :allocations?
    assert_equal(NODES.map { |n| n.last(2) }, profile.call_tree.nodes.map { |n| [n.allocations, n.self_allocations] })
    data = profile.to_h
    assert_equal({"allocations" => 40, "self_allocations" => 10},
                 data["call_tree"]["nodes"][1].slice("allocations", "self_allocations"))
    assert_equal data, parse(data).to_h
  end

  def test_views_have_each_thread_s_counts_and_leave_waiting_s_out
    profile = parse(threaded_document)
    worker = profile.view(threads: "worker")
    assert_predicate worker, :allocations?
    assert_equal({"Object#work" => [1, 12, 2], "String#*" => [2, 10, 10]}, stats(worker))
    assert_equal [10, 10], [worker.edges.first.allocations, worker.edges.first.self_allocations]
    assert_equal 12, worker.total_allocations

    main = profile.view(threads: "main", idle: :hide)
    assert_equal({"Object#main" => [1, 45, 5], "Object#work" => [2, 40, 10], "String#*" => [4, 30, 30]}, stats(main))
    assert_equal 45, main.total_allocations
    io = StringIO.new
    main.print_flat(io)
    assert_match(/\s5\s+45\s+Object#main$/, io.string.lines.grep(/Object#main/).first)
    dot = profile.to_dot(threads: "worker", node_fraction: 0, edge_fraction: 0)
    assert_includes dot, "Allocations: 12 objects"
    saved = parse(main.to_h)
    assert_equal stats(main), stats(saved), "a view's JSON, tree and all"
    assert_predicate saved.call_tree, :allocations?
  end

  def test_a_tree_saved_without_counts_has_no_views_but_loads
    profile = parse(threaded_document(node_counts: false))
    assert_predicate profile, :allocations?
    refute_predicate profile.call_tree, :allocations?
    assert_nil profile.call_tree.nodes.first.allocations
    refute profile.to_h["call_tree"]["nodes"].first.key?("allocations")
    error = assert_raises(Tracegraph::Error) { profile.view(threads: "main") }
    assert_match(/cannot show some threads only .* in this profile with allocations: its call tree, which views are made from, /,
                 error.message)
    assert_match(/has no allocation counts/, error.message)
    error = assert_raises(Tracegraph::Error) { profile.to_dot(idle: :hide) }
    assert_match(/cannot hide waiting time .* has no allocation counts .* record it again with allocations: true/,
                 error.message)
    assert_same profile, profile.view # no view asked for
  end

  def test_malformed_node_counts_are_named
    {
      ->(d) { d["call_tree"]["nodes"][2].delete("allocations") } =>
        /call_tree\.nodes\[2\]\.allocations must be a non-negative/,
      ->(d) { d["call_tree"]["nodes"][1]["self_allocations"] = 41 } =>
        /call_tree\.nodes\[1\]\.self_allocations \(41\) is more than its allocations \(40\)/
    }.each do |spoil, message|
      data = threaded_document
      spoil.call(data)
      error = assert_raises(Tracegraph::FormatError) { parse(data) }
      assert_match message, error.message
    end
  end

  # Array#each, called by two methods with blocks of their own: a hub.
  def each_of_two = [1, 2].each { "a" * 2 }
  def each_of_three = [1, 2, 3].each { "b" * 2 }

  def test_a_split_hub_s_parts_have_their_caller_s_counts
    work = lambda do
      each_of_two
      each_of_three
    end
    work.call
    profile = Tracegraph.profile(allocations: true, &work)
    split, context, = profile.split_hubs
    parts = split.methods.select { |m| m.name == "Array#each" }
    assert_equal 2, parts.size
    parts.each do |part|
      edge_in = profile.edges.find { |e| e.callee.name == "Array#each" && context[part] == "from #{e.caller.name}" }
      assert_equal [edge_in.allocations, edge_in.self_allocations], [part.allocations, part.self_allocations]
    end
    assert_equal [4, 6], parts.map(&:allocations).sort # a string and its copy per block call
    assert_predicate split, :allocations?
  end

  # The first call of build makes its call sites' caches; run's call of
  # it then allocates exactly the array and the literals.
  def test_the_command_records_allocations_with_allocations
    script = write_script("app.rb", <<~RUBY)
      def build(n)
        list = []
        i = 0
        while i < n
          list << "x"
          i += 1
        end
      end
      def run = build(500)
      build(1)
      run
    RUBY
    _, err, status = tracegraph("--allocations", "--flat", "-o", "run.json", script)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "run.json"))
    assert_equal [501, 501], [profile.edge("Object#run", "Object#build").allocations,
                              profile.edge("Object#run", "Object#build").self_allocations]
    assert_match(/self allocs\s+total allocs/, err)

    _, err, status = tracegraph("-o", "plain.json", script)
    assert status.success?, err
    refute_predicate Tracegraph::Profile.load_json(File.join(@dir, "plain.json")), :allocations?
  end

  # As above, and a worker thread calling build too.
  def test_the_command_shows_one_thread_s_allocations
    script = write_script("app.rb", <<~RUBY)
      def build(n)
        list = []
        i = 0
        while i < n
          list << "x"
          i += 1
        end
      end
      def run = build(500)
      def run_worker = build(300)
      build(1)
      Thread.new { Thread.current.name = "worker"; run_worker }.join
      run
    RUBY
    _, err, status = tracegraph("--allocations", "--thread", "main", "-o", "main.json", script)
    assert status.success?, err
    main = Tracegraph::Profile.load_json(File.join(@dir, "main.json"))
    assert_predicate main, :allocations?
    assert_equal [501, 501], [main.edge("Object#run", "Object#build").allocations,
                              main.edge("Object#run", "Object#build").self_allocations]
    assert_nil main["Object#run_worker"]
    assert_equal 2, main["Object#build"].calls

    _, err, status = tracegraph("--allocations", "--thread", "worker", "--idle", "hide", "-o", "worker.json", script)
    assert status.success?, err
    worker = Tracegraph::Profile.load_json(File.join(@dir, "worker.json"))
    assert_equal [1, 301, 301], [worker["Object#build"].calls, worker["Object#build"].allocations,
                                 worker["Object#build"].self_allocations]
    assert_nil worker["Object#run"]
  end

  def test_autorun_counts_allocations_with_its_setting
    app = write_script("app.rb", "def build = [1, 2, 3].map { 'x' * 2 }\ndef run = build\nbuild\nrun\n")
    env = {"TRACEGRAPH_OUTPUT" => "auto.json", "TRACEGRAPH_RUN" => nil, "TRACEGRAPH_ALLOCATIONS" => "1"}
    _, err, status = ruby("-rtracegraph/autorun", app, env: env)
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "auto.json"))
    assert_predicate profile, :allocations?
    # The literal array, map's, and per element a literal and its copy
    # (build's first call made its call sites' caches).
    assert_equal 8, profile.edge("Object#run", "Object#build").allocations

    _, err, status = ruby("-rtracegraph/autorun", app, env: env.merge("TRACEGRAPH_ALLOCATIONS" => "maybe"))
    assert_equal 0, status.exitstatus, "a bad setting is a warning: the program runs, unprofiled"
    assert_match(/TRACEGRAPH_ALLOCATIONS must be 1\/true or 0\/false/, err)
    _, err, status = ruby("-rtracegraph/autorun", app, env: env.merge("TRACEGRAPH_THREADS" => "main"))
    assert status.success?, err
    viewed = Tracegraph::Profile.load_json(File.join(@dir, "auto.json"))
    assert_equal 8, viewed.edge("Object#run", "Object#build").allocations
  end
end

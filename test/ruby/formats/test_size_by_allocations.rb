require_relative "../test_helper"
require_relative "../cli_helper"

# size_by: :allocations (--size-by allocations): the graph of where the
# garbage comes from. The boxes kept, their sizes and colours go by
# objects allocated instead of time; the labels give both.
class TestSizeByAllocations < TracegraphTest
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-size-by")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def path(name) = File.join(@dir, name)

  # 3,000 one-element arrays, in little time.
  def garbage = (1..3000).each { |i| [i] }

  # Much time, next to no objects: Integer arithmetic allocates nothing.
  # The block's own work (inline arithmetic, no calls) outweighs what
  # Range#each spends yielding to it.
  def burn
    (1..100_000).each do |i|
      j = 0
      j += i while j < 40 * i
    end
  end

  def work
    garbage
    burn
  end

  def assert_renders(dot)
    _, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
    assert status.success?, "dot failed: #{err}"
    assert_equal "", err, "dot warned"
  end

  def font_size(line) = Float(line[/fontsize=([\d.]+),/, 1])

  # The whole line of the box whose label starts with name.
  # A box by its full name, the first line of its tooltip (a label wraps a long one).
  def box(dot, name) = dot.lines.find { |l| l.match?(/^  N\d+ \[label=.*, tooltip="#{Regexp.escape(name)}\\n/) }

  def test_the_allocating_method_is_the_biggest_box_and_the_busy_one_is_left_out
    work # warm up: constants and inline caches allocate once
    profile = Tracegraph.profile(allocations: true) { work }
    assert_equal 3000, profile["block in TestSizeByAllocations#garbage"].self_allocations
    # (Ruby's VM may allocate an object or so of its own in a run; not 15.)
    assert_operator profile["block in TestSizeByAllocations#burn"].allocations, :<, profile.total_allocations * 0.005

    dot = profile.to_dot(size_by: :allocations)
    garbage = box(dot, "block in TestSizeByAllocations#garbage")
    assert_match(/\\nallocs 3,000 \(/, garbage, "the label keeps the allocations")
    assert_match(/\\nself [\d.]+ [nµm]?s \(/, garbage, "and the time")
    assert_includes garbage, "fontsize=24.0,"
    assert_nil box(dot, "block in TestSizeByAllocations#burn"), "allocates nothing: under the node cut"
    assert_includes dot, "\\lBox size = self allocations \u00b7 colour = total allocations\\l"
    assert_match(/\\lShowing \d+ (of|boxes for) \d+ methods\\lThe boxes hold \d+\.\d+% of allocations\\l/, dot)
    assert_renders(dot)

    by_time = profile.to_dot
    # By time the busy block is big (Range#each, which drives its 300,000
    # calls, can take about as much self time: which of the two is the
    # biggest box depends on the machine), and the allocating block small,
    # or (under 0.5% of the time, as on Ruby 3.4) not drawn at all.
    burn_size = font_size(box(by_time, "block in TestSizeByAllocations#burn"))
    sizes = by_time.lines.grep(/^  N\d+ \[label=/).map { |line| font_size(line) }.sort.reverse
    assert_operator burn_size, :>=, sizes[1], "one of the two biggest boxes"
    garbage_by_time = box(by_time, "block in TestSizeByAllocations#garbage")
    assert_operator font_size(garbage_by_time), :<, burn_size if garbage_by_time
    refute_includes garbage_by_time.to_s, "fontsize=24.0,"
    assert_includes by_time, "\\lBox size = self time \u00b7 colour = total time\\l"
  end

  def test_without_allocations_it_says_how_to_record_them
    profile = Tracegraph.profile { work }
    e = assert_raises(Tracegraph::Error) { profile.to_dot(size_by: :allocations) }
    assert_equal "size_by: :allocations needs allocation counts, and this profile has none: " \
                 "record with allocations: true (tracegraph --allocations)", e.message
    e = assert_raises(ArgumentError) { profile.to_dot(size_by: :bytes) }
    assert_equal "size_by must be one of :time, :allocations, not :bytes", e.message
    assert_equal profile.to_dot, profile.to_dot(size_by: "time")
  end

  # main (5 objects of its own) -> slow (80 ns, no objects), main -> garbage (10 ns, 1,000 objects).
  def document(allocations: true)
    method = lambda do |name, total, self_time, allocs|
      m = {"name" => name, "file" => nil, "line" => nil, "c_method" => false, "calls" => 1,
           "total_time" => total, "self_time" => self_time}
      allocations ? m.merge("allocations" => allocs[0], "self_allocations" => allocs[1]) : m
    end
    edge = lambda do |callee, total, allocs|
      e = {"caller" => 0, "callee" => callee, "calls" => 1, "total_time" => total, "self_time" => total}
      allocations ? e.merge("allocations" => allocs, "self_allocations" => allocs) : e
    end
    {"version" => 2, "clock" => "wall", "unit" => "ns", "total_time" => 100,
     "threads" => [{"id" => 1, "name" => "main", "total_time" => 100}],
     "methods" => [method.call("Object#main", 100, 10, [1005, 5]), method.call("Object#slow", 80, 80, [0, 0]),
                   method.call("Object#garbage", 10, 10, [1000, 1000])],
     "edges" => [edge.call(1, 80, 0), edge.call(2, 10, 1000)]}
      .merge(allocations ? {"allocations" => true} : {})
  end

  def test_render_size_by_allocations_on_a_known_profile
    File.write(path("a.json"), JSON.generate(document))
    saved = Tracegraph::Profile.load_json(path("a.json"))
    _, err, status = tracegraph("render", path("a.json"), "--size-by", "allocations", "-o", "a.dot")
    assert status.success?, err
    dot = File.read(path("a.dot"))
    assert_equal Dir.chdir(@dir) { saved.to_dot(size_by: :allocations) }, dot
    assert_equal ["Object#main", "Object#garbage"], dot.scan(/^  N\d+ \[label="([^\\]*)/).flatten
    assert_includes dot, "\\lShowing 2 of 3 methods\\lThe boxes hold 100.0% of allocations\\l" \
                         "Dropped 1 node (total < 6 objects)\\l"
    assert_includes box(dot, "Object#garbage"), "\\nself 10 ns (10.0%)\\ntotal 10 ns (10.0%)\\nallocs 1,000 (99.5%)"
    assert_includes box(dot, "Object#garbage"), "fontsize=24.0,"
    assert_includes dot, "N1 -> N2 [label=\" \u00d71 \\n 10 ns \u00b7 1,000 objects \""

    _, err, status = tracegraph("render", path("a.json"), "--size-by", "time", "-o", "t.dot")
    assert status.success?, err
    time_dot = File.read(path("t.dot"))
    assert_equal Dir.chdir(@dir) { saved.to_dot }, time_dot
    assert_includes box(time_dot, "Object#slow"), "fontsize=24.0,"
  end

  def test_the_command_refuses_what_cannot_be_drawn
    File.write(path("plain.json"), JSON.generate(document(allocations: false)))
    _, err, status = tracegraph("render", path("plain.json"), "--size-by", "allocations", "-o", "p.dot")
    assert_equal 1, status.exitstatus
    assert_includes err, "record with allocations: true (tracegraph --allocations)"
    refute File.exist?(path("p.dot"))

    _, err, status = tracegraph("--size-by", "allocations", "-e", "1")
    refute status.success?
    assert_includes err, "--size-by allocations needs allocation counts: record with allocations: true " \
                         "(tracegraph --allocations)"
    refute File.exist?(path("call_graph.dot")), "refused before running"

    _, err, status = tracegraph("--allocations", "--size-by", "allocations", "-o", "r.dot", "-e", "def f = [1]; f")
    assert status.success?, err
    assert_includes File.read(path("r.dot")), "Box size = self allocations"

    _, err, status = tracegraph("render", path("plain.json"), "--size-by", "bytes")
    refute status.success?
    assert_match(/invalid argument: --size-by bytes/, err)
  end
end

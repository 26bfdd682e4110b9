require_relative "../test_helper"
require_relative "../cli_helper"

# The differential graph by allocations (ProfileDiff#to_dot(size_by:
# :allocations), tracegraph diff --size-by allocations): boxes sized by
# head's own allocations and coloured by their change, on real recordings
# of a base and a head whose allocations differ in known methods.
class TestDiffByAllocations < TracegraphTest
  include CliHelper

  ARROW = "\u2192"

  def setup
    @dir = Dir.mktmpdir("tracegraph-diff-by-allocations")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def path(name) = File.join(@dir, name)

  # One one-element array per number: n objects in the block. (1..n) is a
  # Range of its own, one object in grow itself.
  def grow(n) = (1..n).each { |i| [i] }

  # One two-element array per item.
  def shrink(items) = items.each { |i| [i, i] }

  # 200 arrays in both runs.
  def same = (1..200).each { |i| [i] }

  def work(grown, items)
    grow(grown)
    shrink(items)
    same
  end

  SHRUNK = (1..250).to_a.freeze
  ITEMS = (1..500).to_a.freeze

  # base: 1,000 + 500 + 200 arrays and a Range; head: 1,300 + 250 + 200 and a Range.
  def record
    work(10, SHRUNK) # warm up: constants and inline caches allocate once
    base = Tracegraph.profile(allocations: true) { work(1000, ITEMS) }
    head = Tracegraph.profile(allocations: true) { work(1300, SHRUNK) }
    [base, head]
  end

  def assert_renders(dot)
    _, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
    assert status.success?, "dot failed: #{err}"
    assert_equal "", err, "dot warned"
  end

  # The whole line of the box whose label starts with name.
  def box(dot, name)
    # (by its tooltip, which has the full name: a label wraps a long one)
    dot.lines.find { |l| l.match?(/^  N\d+ \[label=.*, tooltip="#{Regexp.escape(name)}\\n/) } || flunk("no box for #{name}")
  end

  def fill(line) = line[/fillcolor="(#\h{6})"/, 1]

  def test_the_grown_method_is_red_the_shrunk_one_blue_and_the_unchanged_grey
    base, head = record
    counts = ->(profile) { %w[grow shrink same].map { |m| profile["block in TestDiffByAllocations##{m}"].self_allocations } }
    assert_equal [1000, 500, 200], counts.(base)
    assert_equal [1300, 250, 200], counts.(head)
    assert_equal [1701, 1751], [base.total_allocations, head.total_allocations]

    dot = base.diff(head).to_dot(size_by: :allocations)
    grown = box(dot, "block in TestDiffByAllocations#grow")
    assert_includes grown, "\\nallocs 1,000 #{ARROW} 1,300\\n(+30.0%)\\n"
    assert_includes grown, "\\nself allocations: 1,000 #{ARROW} 1,300 (+300, +30.0%)\\n"
    # +300 of the 1,751 objects: 17% of the run's, past two thirds of the way to the deepest red.
    assert_equal "#cb4a42", fill(grown)
    assert_includes grown, "fontsize=24.0,", "head's biggest allocator is the biggest box"
    shrunk = box(dot, "block in TestDiffByAllocations#shrink")
    assert_includes shrunk, "\\nallocs 500 #{ARROW} 250\\n(-50.0%)\\n"
    assert_equal "#4292c2", fill(shrunk)
    held = box(dot, "block in TestDiffByAllocations#same")
    assert_includes held, "\\nallocs 200\\n200 calls\""
    assert_equal "#f7f7f7", fill(held)
    assert_equal "#f7f7f7", fill(box(dot, "TestDiffByAllocations#grow")), "its Range, 1 in both"
    assert_includes box(dot, "TestDiffByAllocations#grow"), "\\nallocs 1\\n1 call\""
    # The labels keep the times.
    assert_match(/\\nself [\d.]+ [nµm]?s\\n\(/, grown)

    assert_includes dot, "\\lAllocations: 1,701 #{ARROW} 1,751 objects (+2.94%)\\lallocs = a box's own\\l"
    assert_includes dot, "\\lBox size = head self allocations\\lColour = change in self allocations\\l"
    assert_includes dot, "change in self allocations, as a share of all the run's objects"
    assert_includes dot, " \u00d71,300 \\n ", "the block's calls"
    assert_match(/ \u00b7 1,300 objects \\n \(\+300\) "/, dot)
    assert_renders(dot)

    by_time = base.diff(head).to_dot
    assert_equal by_time, base.diff(head).to_dot(size_by: :time)
    assert_includes by_time, "\\lBox size = head self time \u00b7 colour = change in self time\\l"
    refute_includes by_time, "allocs"
  end

  def test_both_profiles_need_allocation_counts
    base, head = record
    plain = Tracegraph.profile { work(1, SHRUNK) }
    e = assert_raises(ArgumentError) { plain.diff(head).to_dot(size_by: :allocations) }
    assert_equal "allocations cannot be drawn: base has no allocation counts; record both with " \
                 "allocations: true (tracegraph --allocations)", e.message
    e = assert_raises(ArgumentError) { base.diff(plain).write_dot(path("d.dot"), size_by: :allocations) }
    assert_match(/: head has no allocation counts;/, e.message)
    refute File.exist?(path("d.dot"))
    e = assert_raises(ArgumentError) { plain.diff(plain).to_dot(size_by: :allocations) }
    assert_match(/: base and head have no allocation counts;/, e.message)
    e = assert_raises(ArgumentError) { base.diff(head).to_dot(size_by: :bytes) }
    assert_equal "size_by must be one of :time, :allocations, not :bytes", e.message
    assert plain.diff(plain).to_dot, "by time, none are needed"
  end

  def test_the_command
    base, head = record
    base.write_json(path("base.json"))
    head.write_json(path("head.json"))
    Tracegraph.profile { work(1, SHRUNK) }.write_json(path("plain.json"))

    _, err, status = tracegraph("diff", "--size-by", "allocations", "-o", "d.svg", "-o", "d.dot",
                                "base.json", "head.json")
    assert_equal 0, status.exitstatus, err
    dot = File.read(path("d.dot"))
    loaded = %w[base head].map { |side| Tracegraph::Profile.load_json(path("#{side}.json")) }
    # (Files are shown relative to the directory the graph is drawn in: the command's.)
    assert_equal Dir.chdir(@dir) { loaded[0].diff(loaded[1]).to_dot(size_by: :allocations) }, dot,
                 "the command draws what the API does"
    assert_equal "#cb4a42", fill(box(dot, "block in TestDiffByAllocations#grow"))
    svg = File.read(path("d.svg"))
    assert_includes svg, ">allocs 1,000 #{ARROW} 1,300</text>"
    assert_includes svg, 'fill="#cb4a42"'

    _, err, status = tracegraph("diff", "--size-by", "allocations", "-o", "p.svg", "plain.json", "head.json")
    assert_equal 2, status.exitstatus
    assert_equal "tracegraph diff: allocations cannot be drawn: base has no allocation counts; record both " \
                 "with allocations: true (tracegraph --allocations)\n", err
    assert_empty Dir.children(@dir).grep(/\Ap\./), "nothing written"

    _, err, status = tracegraph("diff", "--size-by", "bytes", "base.json", "head.json")
    assert_equal 2, status.exitstatus
    assert_match(/invalid argument: --size-by bytes/, err)
  end
end

require_relative "../test_helper"
require "tmpdir"
require "zlib"
require "json"
require "tracegraph/output/output"

class TestFolded < TracegraphTest
  def a = b(:d)
  def c = b(:e)
  def b(which) = send(which)
  def d = burn_cpu(0.002)
  def e = burn_cpu(0.004)

  def kern
    [1].each { d }
    [2].each { e }
  end

  # The folded format as flamegraph.pl reads it: frames split on ';', the
  # weight after the last space.
  def parse_folded(text)
    text.each_line.map do |line|
      m = line.match(/\A(.+) (\d+)\n\z/) or flunk("not a folded line: #{line.inspect}")
      [m[1].split(";"), Integer(m[2])]
    end
  end

  def test_folded_stacks_keep_whole_paths_and_add_up_to_the_total
    profile = Tracegraph.profile(call_tree: true, c_calls: false) { a; c }
    stacks = parse_folded(profile.to_folded).to_h { |frames, weight| [frames.join(";"), weight] }
    prefix = "TestFolded"
    assert_operator stacks.fetch("#{prefix}#a;#{prefix}#b;#{prefix}#d;ProfileAssertions#burn_cpu"), :>, 0
    assert_operator stacks.fetch("#{prefix}#c;#{prefix}#b;#{prefix}#e;ProfileAssertions#burn_cpu"), :>, 0
    refute stacks.key?("#{prefix}#a;#{prefix}#b;#{prefix}#e"), "edges alone would allow this path; the tree does not"
    assert_equal profile.total_time, stacks.values.sum
  end

  # Two blocks of one method on two lines are two methods of the profile,
  # both "block in TestFolded#kern": the stack outputs, whose readers
  # merge frames by name, give each its line, as blocks that share a line
  # get their column.
  def test_blocks_of_one_method_on_two_lines_keep_their_own_frames
    profile = Tracegraph.profile(call_tree: true) { kern }
    blocks = profile.methods.select { |m| m.name == "block in TestFolded#kern" }
    assert_equal 2, blocks.size
    assert_equal [blocks.first.line + 1], [blocks.last.line], "lines #{blocks.map(&:line).inspect}"
    named = ->(m) { "block in TestFolded#kern (line #{m.line})" }
    stacks = parse_folded(profile.to_folded)
    blocks.each do |m|
      assert_equal m.self_time, stacks.select { |frames, _| frames.last == named.(m) }.sum(&:last), named.(m)
    end
    path = File.join(Dir.mktmpdir("tracegraph-folded"), "kern.speedscope.json")
    profile.write_speedscope(path)
    frames = JSON.parse(File.read(path))["shared"]["frames"].map { |f| f["name"] }
    assert_equal blocks.map(&named).sort, frames.grep(/\Ablock in TestFolded#kern/).sort
    assert_equal frames.uniq, frames
  ensure
    FileUtils.rm_rf(File.dirname(path)) if path
  end

  def test_with_c_calls_and_threads
    profile = Tracegraph.profile(call_tree: true) { 2.times { a }; Thread.new { Thread.current.name = "w"; c }.join }
    lines = parse_folded(profile.to_folded)
    assert_equal profile.total_time, lines.sum(&:last)
    # The thread's block is its bottom frame, under its thread. (It starts
    # on the line of the 2.times block: it is named by its column; through
    # the public API the two are one node, test_helper's one_node_per_line?.)
    thread_block = /\Ablock \(2 levels\) in TestFolded#test_with_c_calls_and_threads#{by_path(' \(column \d+\)', '')}\z/
    assert(lines.any? { |frames, _| frames[0] == "thread: w" && frames[1].match?(thread_block) && frames[2] == "TestFolded#c" },
           "a thread's stack starts at its own bottom frame, under its thread")
    assert(lines.all? { |frames, _| frames.first.start_with?("thread: ") }, "with two threads, every line names one")
    tree_calls = profile.call_tree.nodes.select { |n| n.method.name == "TestFolded#b" }.sum(&:calls)
    assert_equal 3, tree_calls
  end

  def test_the_same_path_in_two_threads_stays_two_paths
    # Raw times: a;b's own time (a send) is tens of nanoseconds, about what
    # tracing costs, so with that taken out its line may be empty.
    profile = Tracegraph.profile(call_tree: true, c_calls: false, raw_times: true) { a; Thread.new { a }.join }
    bs = profile.call_tree.nodes.select { |n| n.method.name == "TestFolded#b" }
    assert_equal [1, 1], bs.map(&:calls)
    names = bs.map { |n| n.thread.name }
    assert_equal "main", names.first
    assert_match(/\Athread \d+\z/, names.last, "an unnamed thread is named by its id")
    stacks = parse_folded(profile.to_folded).map(&:first)
    assert_includes stacks, ["thread: main", "TestFolded#a", "TestFolded#b"]
    # The thread's own block is its bottom frame.
    thread_block = "block (2 levels) in TestFolded#test_the_same_path_in_two_threads_stays_two_paths"
    assert_includes stacks, ["thread: #{names.last}", thread_block, "TestFolded#a", "TestFolded#b"]
    again = Tracegraph::Profile.parse_json(profile.to_json)
    assert_equal profile.to_folded, again.to_folded, "the JSON keeps each path's thread"
  end

  def test_a_single_thread_has_no_thread_frame
    profile = Tracegraph.profile(call_tree: true, c_calls: false, threads: :current) { a } # (minitest's workers may wake)
    assert_equal [%w[TestFolded#a TestFolded#b TestFolded#d ProfileAssertions#burn_cpu]],
                 parse_folded(profile.to_folded).map(&:first).select { |f| f.size == 4 }
  end

  def test_the_cap_folds_deeper_paths_and_says_how_many
    profile = Tracegraph.profile(call_tree: true, max_call_tree_nodes: 2, c_calls: false) { a; c }
    # a and a>b fill the tree; bottom frames (c) always get a node.
    assert_equal [%w[TestFolded#a], %w[TestFolded#a TestFolded#b], %w[TestFolded#c]],
                 profile.call_tree.nodes.map { |n| n.stack.map(&:name) }
    assert_operator profile.call_tree.folded_calls, :>, 0
    assert_equal profile.total_time, parse_folded(profile.to_folded).sum(&:last)
    assert_equal 2, profile["TestFolded#b"].calls, "method statistics stay exact past the cap"
  end

  def test_round_trip_through_json_and_file
    profile = Tracegraph.profile(call_tree: true) { a }
    again = Tracegraph::Profile.parse_json(profile.to_json)
    assert_equal profile.to_folded, again.to_folded
    Dir.mktmpdir do |dir|
      path = File.join(dir, "stacks.folded")
      profile.write_folded(path)
      assert_equal profile.to_folded, File.read(path)
    end
  end

  # A recorded profile writes from its C tree, a loaded one packs its
  # nodes into one first: the outputs must be the same bytes.
  def test_a_saved_profile_writes_the_same_stack_outputs
    profile = Tracegraph.profile(call_tree: true) { a; Thread.new { c }.join }
    again = Tracegraph::Profile.parse_json(profile.to_json)
    Dir.mktmpdir do |dir|
      %w[x.folded x.speedscope.json x.pb.gz x.firefox.json].each do |name|
        first = File.join(dir, "first-#{name}")
        second = File.join(dir, "second-#{name}")
        Tracegraph::Output.write(profile, first)
        Tracegraph::Output.write(again, second)
        read = ->(path) { path.end_with?(".gz") ? Zlib.gunzip(File.binread(path)) : File.binread(path) }
        assert_equal read.call(first), read.call(second), name
      end
    end
  end

  def test_a_failing_write_raises_its_own_error
    profile = Tracegraph.profile(call_tree: true) { a }
    io = Object.new
    def io.write(_) = raise(IOError, "disk full")
    error = assert_raises(IOError) { profile.send(:write_stacks_to, :folded, io) }
    assert_equal "disk full", error.message
    assert_equal profile.to_folded, profile.to_folded, "the tree is still there"
  end

  def test_call_tree_nodes_are_built_only_when_asked_for
    profile = Tracegraph.profile(call_tree: true, c_calls: false) { a; c }
    assert_equal 8, profile.call_tree.size
    refute profile.call_tree.instance_variable_get(:@nodes), "no Ruby object per node yet"
    profile.to_folded
    refute profile.call_tree.instance_variable_get(:@nodes), "writing needs none either"
    assert_equal 8, profile.call_tree.nodes.size
  end

  def test_names_with_separators_stay_one_frame
    klass = Class.new { define_method(:"x;y") { 1 } }
    o = klass.new
    profile = Tracegraph.profile(call_tree: true) { o.send(:"x;y") }
    frames = parse_folded(profile.to_folded).map(&:first)
    assert(frames.any? { |f| f.last.end_with?("#x:y") })
  end

  def test_without_a_call_tree_it_says_how_to_get_one
    error = assert_raises(Tracegraph::Error) { Tracegraph.profile { a }.to_folded }
    assert_match(/call_tree: true/, error.message)
  end

  def test_hostile_call_trees_are_rejected
    json = JSON.parse(Tracegraph.profile(call_tree: true) { a }.to_json)
    json["call_tree"]["nodes"][0]["parent"] = 0
    error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.parse_json(JSON.generate(json)) }
    assert_match(/call_tree.nodes\[0\].parent must be null or the index of an earlier node/, error.message)
  end

  def test_a_bottom_frame_naming_a_missing_thread_is_rejected
    json = JSON.parse(Tracegraph.profile(call_tree: true) { a }.to_json)
    json["call_tree"]["nodes"][0]["thread"] = 7
    error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.parse_json(JSON.generate(json)) }
    assert_match(/call_tree.nodes\[0\].thread is 7, but no thread has that id/, error.message)
  end

  def test_bad_options
    assert_raises(ArgumentError) { Tracegraph.start(call_tree: 1) }
    assert_raises(ArgumentError) { Tracegraph.start(call_tree: true, max_call_tree_nodes: 0) }
  end
end

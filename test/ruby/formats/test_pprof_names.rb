require_relative "../test_helper"
require_relative "../cli_helper"
require "open3"
require "tmpdir"

# Names pprof would shorten, read back by `go tool pprof` (Debian's
# golang-go): every method keeps its own row in -top, its own frames in
# -traces and its own node in -dot, under its own name, with exactly our
# self time. pprof drops what is between < and > and between ( and ) in a
# name it takes for demangled C++, and its graphs keep only the last two
# parts of "A::B::C..." (see put_function_name in tg_stacks.c).
class TestPprofNames < TracegraphTest
  include CliHelper

  REQUIRED = <<~RUBY
    [1].each { 40.times { } }
  RUBY

  PROGRAM = <<~RUBY
    module Shop
      class Cart
        def spin(n) = n.times { }
        def work = [1].each { spin(10); [1].each { spin(20); [1].each { spin(30); [1].each { spin(40) } } } }
        def pair = [1].each { [2].each { spin(23) }; [3].each { spin(24) } }
        def kern
          [1].each { spin(25) }
          [2].each { spin(26) }
        end
        def <=>(other) = spin(11)
        def <(other) = spin(12)
        def >(other) = spin(13)
        def <<(other) = spin(14)
        def <=(other) = spin(15)
        def [](i) = spin(16)
        define_method(:"weird(1)") { spin(17) }
        define_method(:"weird(2)") { spin(18) }
        def self.open = new.spin(19)
        [1].each { 50.times { } }
      end

      module Store
        class Till
          def work = Cart.new.spin(21)
          def run = Cart.new.spin(22)
          def self.open = new.run
        end
      end
    end

    require_relative "required"
    cart = Shop::Cart.new
    cart.work
    cart.pair
    cart.kern
    cart <=> cart; cart < cart; cart > cart; cart << cart; cart <= cart; cart[0]
    cart.send(:"weird(1)"); cart.send(:"weird(2)")
    Shop::Cart.open
    Shop::Store::Till.new.work
    Shop::Store::Till.open
    1 <=> 2; 1 <= 2; 1 < 2; 2 > 1; [] << 1
    plain = Object.new
    def plain.<=>(other) = 0
    plain <=> plain
    [1].each { 30.times { } }
  RUBY

  # Names that must come back whole (as pprof shows them).
  WHOLE = [
    "::Shop::Cart#<=>", "::Shop::Cart#<", "::Shop::Cart#>", "::Shop::Cart#<<", "::Shop::Cart#<=", "::Shop::Cart#[]",
    "::Shop::Cart#weird(1)", "::Shop::Cart#weird(2)", "::Shop::Cart.open",
    "::Shop::Store::Till#work", "::Shop::Store::Till#run", "::Shop::Store::Till.open",
    "block in Shop::Cart#work", "block (2 levels) in Shop::Cart#work", "block (3 levels) in Shop::Cart#work",
    "block (4 levels) in Shop::Cart#work", "block in <class:Cart>",
    # Two blocks at one level on one line: told apart by their columns.
    "block (2 levels) in Shop::Cart#pair (column 36)", "block (2 levels) in Shop::Cart#pair (column 59)", "block in <main>", "block in <top (required)>",
    # Two blocks of one method on two lines: told apart by their lines.
    "block in Shop::Cart#kern (line 7)", "block in Shop::Cart#kern (line 8)",
    "Integer#<=>", "Integer#<=", "Integer#<", "Integer#>", "Array#<<", "#<Object>.<=>"
  ].freeze
  # Through the public API the blocks of work, and of pair, all start on
  # one line: one node each (test_helper's one_node_per_line?).
  ONE_LINE_BLOCKS = WHOLE.grep(/\Ablock .*in Shop::Cart#(work|pair)/).freeze

  def whole = one_node_per_line? ? WHOLE - ONE_LINE_BLOCKS + ["block in Shop::Cart#work", "block in Shop::Cart#pair"] : WHOLE

  def setup
    @dir = Dir.mktmpdir("tracegraph-pprof-names")
  end

  def teardown
    FileUtils.rm_rf(@dir)
    super
  end

  def pprof(*args)
    skip "go tool pprof is not installed (apt-get install golang-go)" unless system("go tool pprof -h > /dev/null 2>&1")
    out, err, status = Open3.capture3({"GOCACHE" => File.join(@dir, "go-cache")}, "go", "tool", "pprof", *args)
    assert status.success?, "go tool pprof #{args.join(' ')} failed: #{err}"
    out
  end

  # A method's name in the pprof file: fully qualified ("::Foo::Bar#x")
  # when it begins with a namespace, else as it is.
  def pprof_name(name) = name.match?(/\A[A-Za-z_]\w*::/) ? "::#{name}" : name

  # Each method's name in the file: its own, with its place where
  # another method has the same (Naming.distinct_names).
  def names_of(profile)
    profile.methods.zip(Tracegraph::Naming.distinct_names(profile.methods)).to_h.compare_by_identity
  end

  def record
    write_script("required.rb", REQUIRED)
    path = write_script("shop.rb", PROGRAM)
    # --all-c-calls: 1 <= 2 and the like are calls of Integer#<= only then
    # (by default Ruby runs them inline, and so they are no methods).
    _, err, status = tracegraph("--all-c-calls", "-o", "shop.pb.gz", "-o", "shop.json", path)
    assert status.success?, err
    [File.join(@dir, "shop.pb.gz"), Tracegraph::Profile.load_json(File.join(@dir, "shop.json"))]
  end

  # -top's rows as [name, flat, cum], in pprof's order.
  def top_rows(path, sample_index)
    pprof("-top", "-unit=ns", "-nodefraction=0", "-nodecount=100000", "-sample_index=#{sample_index}", path)
      .each_line.grep(/\A\s*\d+(ns)?\s+[\d.]+%/).map do |line|
      flat, _, _, cum, _, name = line.split(" ", 6)
      [name.chomp, flat.delete_suffix("ns").to_i, cum.delete_suffix("ns").to_i]
    end
  end

  def test_top_shows_each_method_on_its_own_line_with_our_self_time
    path, profile = record
    rows = top_rows(path, "time")
    names = rows.map(&:first)
    assert_equal names.uniq, names, "no two rows share a name"
    own = names_of(profile)
    assert_equal profile.methods.map { |m| pprof_name(own[m]) }.sort, names.sort, "one row per method, no more"
    whole.each { |name| assert_includes names, name }
    by_name = rows.to_h { |name, flat, cum| [name, [flat, cum]] }
    profile.methods.each do |m|
      assert_equal [m.self_time, m.total_time], by_name.fetch(pprof_name(own[m])), "#{m.name}: flat and cum time"
    end
    calls = top_rows(path, "calls").to_h { |name, flat, _| [name, flat] }
    profile.methods.each { |m| assert_equal m.calls, calls.fetch(pprof_name(own[m])), "#{m.name}: calls" }
    assert_equal by_path(1, 4), calls.fetch(by_path("block (4 levels) in Shop::Cart#work", "block in Shop::Cart#work"))
  end

  def test_traces_name_every_frame_as_its_own
    path, profile = record
    traces = pprof("-traces", "-unit=ns", path).split(/^-+\+-+$/).filter_map do |block|
      frames = block.lines(chomp: true).reject(&:empty?).drop_while { |l| !l.match?(/\A\s*\d+ns\s+\S/) }
      next if frames.empty?

      value, leaf = frames.first.strip.split(/\s+/, 2)
      [[leaf] + frames.drop(1).map(&:strip), value.delete_suffix("ns").to_i]
    end
    own = names_of(profile)
    expected = profile.call_tree.nodes.map { |n| [n.stack.reverse.map { |m| pprof_name(own[m]) }, n.self_time] }
    assert_equal expected.sort, traces.sort
  end

  # pprof's graph labels: the name (its "::" and "." made line breaks),
  # then the flat time.
  def test_dot_gives_each_method_its_own_node_with_our_self_time
    path, profile = record
    dot = pprof("-dot", "-unit=ns", "-nodefraction=0", "-edgefraction=0", "-nodecount=100000", path)
    nodes = dot.scan(/^N\d+ \[label="(.*?)\\n(\d+)ns \(/).map { |label, flat| [label, flat.to_i] }
    labels = nodes.map(&:first)
    assert_equal labels.uniq, labels, "no two nodes share a label"
    assert_equal profile.methods.size, nodes.size
    by_label = nodes.to_h
    own = names_of(profile)
    profile.methods.each do |m|
      label = pprof_name(own[m]).gsub("::", '\n').gsub(".", '\n')
      assert_equal m.self_time, by_label.fetch(label), "#{m.name}: its node (#{label}) and flat time"
    end
    assert_includes labels, '\nShop\nStore\nTill#work'
    assert_includes labels, '\nShop\nStore\nTill#run'
    assert_includes labels, '\nShop\nCart#<=>'
  end
end

require_relative "../test_helper"
require "open3"
require "tmpdir"

class CallgrindProgram
  def main
    3.times do
      roots
      squares
    end
  end

  def roots = 5000.times { |i| Math.sqrt(i) }
  def squares = 5000.times { |i| i**2 }
end

class TestCallgrind < TracegraphTest
  MS = 1_000_000

  # A reader for the subset of the format we write: name compression,
  # fl/fn/cfl/cfn, calls= and "line cost" lines. Returns the header, self
  # cost per "file:function" and inclusive cost and calls per call.
  def parse(text)
    names = {fl: {}, fn: {}}
    header = {}
    self_cost = Hash.new(0)
    calls = Hash.new { |h, k| h[k] = [0, 0] }
    fl = fn = cfl = cfn = nil
    pending_call = nil
    lines = text.lines(chomp: true)
    assert_equal "# callgrind format", lines.first
    lines.each do |line|
      case line
      when /\A#/, "" then next
      when /\A(version|creator|cmd|positions|events|summary|totals): (.*)\z/ then header[$1] = $2
      when /\A(c?)(fl|fn)=\((\d+)\)(?: (.*))?\z/
        table = names[$2.to_sym]
        table[$3] = $4 if $4
        name = table.fetch($3) { flunk("compressed name (#{$3}) used before it was defined") }
        case [$1, $2]
        when ["", "fl"] then fl = cfl = name
        when ["", "fn"] then fn = name
        when ["c", "fl"] then cfl = name
        when ["c", "fn"] then cfn = name
        end
      when /\Acalls=(\d+) (\d+)\z/ then pending_call = $1.to_i
      when /\A(\d+) (\d+)\z/
        if pending_call
          key = ["#{fl}:#{fn}", "#{cfl}:#{cfn}"]
          calls[key][0] += pending_call
          calls[key][1] += $2.to_i
          pending_call = nil
          cfl = fl
        else
          self_cost["#{fl}:#{fn}"] += $2.to_i
        end
      else flunk "unexpected line #{line.inspect}"
      end
    end
    [header, self_cost, calls]
  end

  def key(m)
    file = m.c_method ? "[C]" : (m.file || "[unknown]")
    "#{file}:#{m.name}"
  end

  def demo_profile
    program = CallgrindProgram.new
    @demo_profile ||= Tracegraph.profile { program.main }
  end

  def hand_profile
    stats = [["Object#main", "/app/main.rb", 1, 1, 100 * MS, 10 * MS, false],
             ["Array#each", nil, nil, 4, 90 * MS, 30 * MS, true],
             ["Object#work", "/app/lib/work.rb", 7, 300, 60 * MS, 40 * MS, false],
             ["Object#fib", "/app/lib/work.rb", 20, 177, 20 * MS, 20 * MS, false],
             ["#<Class:0x1>#m", "/app/lib/work.rb", 30, 1, 0, 0, false],
             ["#<Class:0x1>#m", "/app/lib/work.rb", 30, 1, 0, 0, false]].map do |name, file, line, calls, total, self_time, c|
      Tracegraph::MethodStats.new(name: name, file: file, line: line, calls: calls, total_time: total,
                                  self_time: self_time, c_method: c)
    end
    edges = [[0, 1, 4, 90 * MS, 30 * MS], [1, 2, 300, 60 * MS, 40 * MS], [2, 3, 1, 20 * MS, 1 * MS],
             [3, 3, 176, 19 * MS, 19 * MS]].map do |from, to, calls, total, self_time|
      Tracegraph::EdgeStats.new(caller: stats[from], callee: stats[to], calls: calls, total_time: total,
                                self_time: self_time)
    end
    Tracegraph::Profile.new(clock: :cpu, threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 100 * MS)],
                            methods: stats, edges: edges, program: "app.rb")
  end

  def test_header
    text = hand_profile.to_callgrind
    assert text.start_with?("# callgrind format\nversion: 1\ncreator: tracegraph #{Tracegraph::VERSION}\ncmd: app.rb\n")
    header, = parse(text)
    assert_equal "line", header["positions"]
    assert_equal "Nanoseconds", header["events"]
    assert_equal (100 * MS).to_s, header["summary"]
    assert_includes text, "# clock: cpu; times are nanoseconds\n"
  end

  def test_hand_built_golden_records
    text = hand_profile.to_callgrind
    assert_includes text, "fl=(1) /app/main.rb\nfn=(1) Object#main\n1 10000000\ncfl=(2) [C]\ncfn=(2) Array#each\n" \
                          "calls=4 0\n1 90000000\n"
    assert_includes text, "fl=(2)\nfn=(2)\n0 30000000\ncfl=(3) /app/lib/work.rb\ncfn=(3) Object#work\n" \
                          "calls=300 7\n0 60000000\n"
    # Same file: no cfl=. fib's name was first given by work's call record. Recursion is a call to itself.
    assert_includes text, "fn=(3)\n7 40000000\ncfn=(4) Object#fib\ncalls=1 20\n7 20000000\n"
    assert_includes text, "fl=(3)\nfn=(4)\n20 20000000\ncfn=(4)\ncalls=176 20\n20 19000000\n"
    # Two anonymous methods printing the same in one file stay two functions.
    assert_includes text, "fn=(5) #<Class:0x1>#m\n"
    assert_includes text, "fn=(6) #<Class:0x1>#m (2)\n"
  end

  def test_round_trip_self_and_inclusive_costs_are_exact
    [hand_profile, demo_profile].each do |profile|
      header, self_cost, calls = parse(profile.to_callgrind)
      assert_equal profile.total_time, header["summary"].to_i
      assert_equal profile.total_time, header["totals"].to_i
      expected = Hash.new(0)
      names = {}
      profile.methods.each do |m|
        k = key(m)
        k = "#{k} (2)" if names[k]   # the writer's disambiguation
        names[k] = true
        names[m] = k
        expected[k] += m.self_time
      end
      assert_equal expected, self_cost
      expected_calls = profile.edges.to_h { |e| [[names[e.caller], names[e.callee]], [e.calls, e.total_time]] }
      assert_equal expected_calls, calls
    end
  end

  def test_callgrind_annotate_reads_the_same_numbers
    skip "callgrind_annotate not installed" unless system("command -v callgrind_annotate > /dev/null 2>&1")
    profile = demo_profile
    Dir.mktmpdir do |dir|
      path = profile.write_callgrind(File.join(dir, "callgrind.out.demo"))
      # Run it outside the checkout: callgrind_annotate shortens paths under
      # its working directory, but not all of them the same way.
      out, err, status = Open3.capture3("callgrind_annotate", "--threshold=100", "--auto=no", path, chdir: dir)
      assert status.success?, err
      assert_equal "", err, "callgrind_annotate warned"
      assert_match(/^\s*#{Tracegraph.group_digits(profile.total_time)} \(100\.0%\)\s+PROGRAM TOTALS$/, out)
      rows = out.scan(/^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S.*)$/).to_h { |cost, name| [name.strip, cost.delete(",").to_i] }
      top = profile.methods.sort_by { |m| -m.self_time }.first(3)
      top.each { |m| assert_equal m.self_time, rows.fetch(key(m)), "self cost of #{m.name}" }
      # The biggest self time is listed first, as in print_flat.
      first = out[/file:function\n-+\n\s*[\d,]+ \(\s*[\d.]+%\)\s+(.*)$/, 1]
      assert_equal key(top.first), first.strip

      incl, = Open3.capture3("callgrind_annotate", "--inclusive=yes", "--threshold=100", "--auto=no", path, chdir: dir)
      # Inclusive = self + the calls' inclusive costs = the method's total time.
      main = profile["CallgrindProgram#main"]
      assert_match(/^\s*#{Tracegraph.group_digits(main.total_time)} .*#{Regexp.escape(key(main))}$/, incl)
    end
  end

  def test_awkward_names_stay_on_one_line
    m = Tracegraph::MethodStats.new(name: "multi\nline\tname", file: "/a\nb.rb", line: 1, calls: 1, total_time: 5,
                                    self_time: 5, c_method: false)
    profile = Tracegraph::Profile.new(clock: :wall, threads: [Tracegraph::ThreadStats.new(id: 1, name: "main", total_time: 5)],
                                      methods: [m], edges: [])
    text = profile.to_callgrind
    assert_includes text, "fl=(1) /a\\x0ab.rb\nfn=(1) multi\\x0aline\\x09name\n1 5\n"
    _, self_cost, = parse(text)
    assert_equal({"/a\\x0ab.rb:multi\\x0aline\\x09name" => 5}, self_cost)
  end

  def test_write_callgrind
    Dir.mktmpdir do |dir|
      path = File.join(dir, "callgrind.out.x")
      assert_equal path, hand_profile.write_callgrind(path)
      assert_equal hand_profile.to_callgrind, File.read(path)
      assert_raises(Tracegraph::Error) { hand_profile.write_callgrind(File.join(dir, "no", "such")) }
    end
  end

  def test_empty_profile
    profile = Tracegraph::Profile.new(clock: :wall, threads: [], methods: [], edges: [])
    header, self_cost, calls = parse(profile.to_callgrind)
    assert_equal "0", header["summary"]
    assert_empty self_cost
    assert_empty calls
  end
end

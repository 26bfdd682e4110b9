require_relative "../test_helper"
require_relative "../cli_helper"
require "tracegraph/cli/graph_options"

# `tracegraph render`: a saved profile drawn again, in every format that
# makes sense without the program, each read back by its real consumer.
class TestRenderCli < Minitest::Test
  include CliHelper

  # hot's block and leaf have time of their own, in loops of inlined
  # operators (no calls), about 100 ms, leaf a tenth of it: one hiccup of
  # the machine's (2 ms here, 28 ms on a loaded day) in any frame of a
  # program of microseconds put leaf under the graph's 0.5% cut-off (or
  # over half of it), where the option tested could not change the graph.
  PROGRAM = "def hot = (1..2000).each { i = 0; i += 1 while i < 3600; leaf }\n" \
            "def leaf = (i = 0; i += 1 while i < 400; i)\ndef cold = 1\nhot\ncold\n".freeze

  def setup
    @dir = Dir.mktmpdir("tracegraph-render-cli")
    @tree = record("tree.json", "--call-tree")
    # Without GC nodes: whether a collection runs depends on the machine,
    # and would add its own calls and a GC line to the exact table below.
    @plain = record("plain.json", "--no-gc")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def record(name, *flags)
    _, err, status = tracegraph(*flags, "-o", name, "-e", PROGRAM)
    assert status.success?, err
    File.join(@dir, name)
  end

  def path(name) = File.join(@dir, name)

  def test_every_format_from_a_saved_profile
    outputs = %w[g.dot g.svg g.png g.pdf g.txt again.json g.folded callgrind.out.app g.callgrind]
    out, err, status = tracegraph("render", @tree, *outputs.flat_map { |o| ["-o", o] })
    assert status.success?, err
    assert_empty out
    outputs.each { |o| assert_match(/^tracegraph render: wrote .*#{Regexp.escape(o)}/, err) }
    saved = Tracegraph::Profile.load_json(@tree)

    _, dot_err, dot_status = Open3.capture3("dot", "-Tsvg", path("g.dot"))
    assert dot_status.success?, dot_err
    assert_equal "", dot_err, "dot warned"
    assert_includes File.read(path("g.svg")), "Object#hot"
    assert_equal "\x89PNG".b, File.binread(path("g.png"), 4)
    assert_equal "%PDF", File.binread(path("g.pdf"), 4)
    assert_match(/^\s+2,000 .* Object#leaf/, File.read(path("g.txt")))
    assert_equal saved.to_h, Tracegraph::Profile.load_json(path("again.json")).to_h, "JSON round-trips exactly"
    assert_equal saved.to_folded, File.read(path("g.folded"))
    assert_match(/^Object#hot;Range#each;block in Object#hot;Object#leaf \d+$/, File.read(path("g.folded")))
    %w[callgrind.out.app g.callgrind].each do |name|
      assert_equal saved.to_callgrind, File.read(path(name)), name
      next unless system("command -v callgrind_annotate > /dev/null 2>&1")

      annotated, annotate_err, annotate_status = Open3.capture3("callgrind_annotate", "--threshold=100", "--auto=no",
                                                                name, chdir: @dir)
      assert annotate_status.success?, annotate_err
      assert_equal "", annotate_err, "callgrind_annotate warned on #{name}"
      assert_match(/^\s*#{Tracegraph.group_digits(saved["Object#leaf"].self_time)} .*Object#leaf$/, annotated)
    end
  end

  # Each graph flag gives exactly what write_dot gives with that option,
  # and changes the graph, so none is silently ignored. (--no-split-hubs
  # and --no-fold-chains: test_hub_split.rb and test_chain_fold.rb, on
  # programs with something to split or fold.)
  def test_every_write_dot_option_has_a_flag_that_works
    assert_equal Tracegraph::Profile::DOT_DEFAULTS.keys, Tracegraph::GraphOptions::FLAGS.keys
    saved = Tracegraph::Profile.load_json(@plain)
    default = Dir.chdir(@dir) { saved.to_dot }
    # Every name of each flag (--ignore is --hide too).
    {node_fraction: 0.3, edge_fraction: 0.5, max_nodes: 1, focus: "leaf", ignore: "Object#hot"}.each do |key, value|
      Array(Tracegraph::GraphOptions::FLAGS.fetch(key).first).map { |f| f.split.first }.each do |flag|
        _, err, status = tracegraph("render", @plain, flag, value.to_s, "-o", "#{key}.dot")
        assert status.success?, err
        expected = Dir.chdir(@dir) { saved.to_dot(key => value) }
        refute_equal default, expected, "#{key}=#{value} must change this graph"
        assert_equal expected, File.read(path("#{key}.dot")), flag
      end
    end
    _, err, status = tracegraph("render", @plain, "--focus", "leaf", "--ignore", "Range#each", "--max-nodes", "2",
                                "-o", "all.dot")
    assert status.success?, err
    assert_equal Dir.chdir(@dir) { saved.to_dot(focus: "leaf", ignore: "Range#each", max_nodes: 2) },
                 File.read(path("all.dot"))
  end

  def test_default_output_and_flat
    _, err, status = tracegraph("render", @plain)
    assert status.success?, err
    assert_match(/wrote call_graph\.dot/, err)
    assert_match(/Object#leaf/, File.read(path("call_graph.dot")))
    FileUtils.rm_f(path("call_graph.dot"))

    out, err, status = tracegraph("render", "--flat", @plain)
    assert status.success?, err
    # 2,000 calls of leaf, 2,000 of hot's block, and a few more.
    # (Under YJIT a line says the times are the interpreter's.)
    assert_match(/\Awall time, total .* in \d+ methods, 4,00\d calls\ntracing's cost taken out: .*\n(YJIT was on: .*\n)?\s+calls\s+self\s+total\s+self%\s+method\n/, out)
    assert_match(/^\s+2,000 .* Object#leaf  -e:2$/, out)
    refute File.exist?(path("call_graph.dot")), "--flat alone writes no file"
    assert_empty err
  end

  def test_folded_needs_a_call_tree_and_the_other_outputs_are_still_written
    _, err, status = tracegraph("render", @plain, "-o", "a.folded", "-o", "a.json")
    assert_equal 1, status.exitstatus, err
    assert_equal ["tracegraph render: cannot write a.folded: this profile has no call tree; record it with " \
                  "`tracegraph --call-tree` (or Tracegraph.start(call_tree: true)) to write folded stacks\n",
                  "tracegraph render: wrote a.json\n"], err.lines
    refute File.exist?(path("a.folded"))
    assert Tracegraph::Profile.load_json(path("a.json"))
  end

  # A focus that matches nothing would draw an empty graph that only its
  # legend explains: that output fails, naming the pattern; the others
  # are written. tracegraph diff does the same, over either run.
  def test_a_focus_that_matches_nothing_fails_naming_the_pattern
    methods = Tracegraph::Profile.load_json(@plain).methods.size
    _, err, status = tracegraph("render", @plain, "--focus", "NoSuch(Method)?", "-o", "f.dot", "-o", "f.json")
    assert_equal 1, status.exitstatus, err
    assert_equal ["tracegraph render: --focus /NoSuch(Method)?/ matches no method of the profile (#{methods} methods); " \
                  "the names are as the flat table prints them (Class#method, Class.method, block in ...)\n",
                  "tracegraph render: wrote f.json\n"], err.lines
    refute File.exist?(path("f.dot"))
    _, err, status = tracegraph("render", @plain, "--focus", "leaf", "-o", "f.dot")
    assert status.success?, err
    _, err, status = tracegraph("diff", @plain, @plain, "--focus", "NoSuch", "-o", "d.dot")
    assert_equal 1, status.exitstatus, err
    assert_includes err, "tracegraph diff: --focus /NoSuch/ matches no method of either run (#{methods} and #{methods} methods)"
  end

  def test_every_output_is_tried_and_each_failure_is_named
    _, err, status = tracegraph("render", @plain, "-o", "a.svg", "-o", "b.png", "-o", "c.json",
                                env: {"PATH" => path_without_dot})
    assert_equal 1, status.exitstatus, err
    assert_match(/^tracegraph render: cannot render a\.svg: Graphviz's `dot` is not installed .* a\.dot$/, err)
    assert_match(/^tracegraph render: cannot render b\.png: Graphviz's `dot` is not installed .* b\.dot$/, err)
    assert_match(/^tracegraph render: wrote c\.json$/, err)
    assert File.size?(path("a.dot")), "the graph survives a missing dot"
    assert File.size?(path("c.json"))
  end

  def test_bad_usage_and_bad_profiles_are_one_line_with_status_2
    Dir.mkdir(path("adir"))
    File.mkfifo(path("fifo.json")) # refused unopened: reading it would wait for a writer forever
    data = JSON.parse(File.read(@plain))
    data["methods"][0]["calls"] = -1
    File.write(path("bad.json"), JSON.generate(data))
    {
      [] => /needs one profile, profile.json \(got 0\) \(see tracegraph render --help\)/,
      [@plain, @tree] => /needs one profile, profile.json \(got 2\)/,
      ["missing.json"] => /cannot read profile missing.json: No such file or directory/,
      [File.join(CliHelper::ROOT, "README.md")] => /README.md: not valid JSON/,
      ["bad.json"] => /bad.json: methods\[0\].calls must be a non-negative integer, not -1/,
      ["adir"] => /cannot read profile adir: it is a directory, not a profile file/,
      ["fifo.json"] => /cannot read profile fifo.json: it is a FIFO \(named pipe\), not a profile file/,
      ["--bogus", @plain] => /invalid option: --bogus/,
      ["-o", "x.vernier.json", @plain] => /cannot write x.vernier.json: unknown format .vernier.json \(known: /,
      ["-o", "x.json.xz", @plain] => /unknown format .json.xz/,
      ["-o", "nodir/x.svg", @plain] => /cannot write nodir\/x.svg: directory nodir does not exist/,
      ["--node-fraction", "7", @plain] => /node_fraction must be a number from 0 to 1/,
      ["--max-nodes", "x", @plain] => /invalid argument: --max-nodes x/,
      ["--focus", "(", @plain] => /focus: invalid regular expression/
    }.each do |args, message|
      out, err, status = tracegraph("render", *args)
      assert_equal 2, status.exitstatus, "#{args.inspect}: #{err}"
      assert_match(/\Atracegraph render: /, err)
      assert_match message, err
      assert_equal 1, err.lines.size, "one line for #{args.inspect}: #{err}"
      assert_empty out
    end
    assert_equal %w[adir bad.json fifo.json plain.json tree.json], Dir.children(@dir).sort, "nothing is written"
  end

  def test_help
    out, err, status = tracegraph("render", "--help")
    assert status.success?, err
    assert_match(/\AUsage: tracegraph render \[options\] profile.json$/, out)
    %w[--output --node-fraction --edge-fraction --max-nodes --focus --ignore --flat callgrind.out .folded].each do |word|
      assert_includes out, word
    end
    out, = tracegraph("--help")
    assert_match(/^\s+tracegraph render \[options\] profile.json/, out)
  end
end

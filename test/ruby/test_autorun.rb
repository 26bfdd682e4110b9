require_relative "test_helper"
require_relative "cli_helper"

class TestAutorun < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-autorun")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_profiles_the_whole_process_including_at_exit_handlers
    app = write_script("app.rb", <<~RUBY)
      def work = 2.times { }
      def cleanup = :done
      at_exit { cleanup }
      work
    RUBY
    refute File.exist?(File.join(@dir, "out")), "created as the run starts, as Tracegraph::Rack creates its dir"
    _, err, status = ruby("-rtracegraph/autorun", app, env: {"TRACEGRAPH_OUTPUT" => "out/graph.json",
                                                             "TRACEGRAPH_CLOCK" => "cpu"})
    assert status.success?, err
    profile = Tracegraph::Profile.load_json(File.join(@dir, "out/graph.json"))
    assert_equal :cpu, profile.clock
    assert_equal 1, profile["Object#work"].calls
    assert_equal 1, profile["Object#cleanup"].calls
  end

  # Ruby with autorun in RUBYOPT, as `RUBYOPT=-rtracegraph/autorun rake test`
  # starts every Ruby below rake too.
  def autorun_env(output)
    {"RUBYOPT" => "-I#{LIB} -rtracegraph/autorun", "TRACEGRAPH_OUTPUT" => output, "TRACEGRAPH_RUN" => nil}
  end

  def own_methods(path)
    Tracegraph::Profile.load_json(File.join(@dir, path)).methods.map(&:name).grep(/\AObject#/).sort
  end

  def test_every_process_writes_its_own_file
    write_script("parent.rb", <<~RUBY)
      def parent_work = :p
      def child_work = :c
      parent_work
      system(RbConfig.ruby, "spawned.rb") or abort "spawned.rb failed"
      pid = fork { child_work; puts "forked \#{Process.pid}" }
      Process.wait(pid)
    RUBY
    write_script("spawned.rb", <<~RUBY)
      def spawned_work = :s
      spawned_work
      puts "spawned \#{Process.pid}"
      $stdout.flush
      exec(RbConfig.ruby, "execd.rb")
    RUBY
    write_script("execd.rb", "def execd_work = :e\nexecd_work\nputs 'execd'\n")
    out, err, status = Open3.capture3(autorun_env("g.json"), RbConfig.ruby, "parent.rb", chdir: @dir)
    assert status.success?, err
    spawned = out[/spawned (\d+)/, 1]
    forked = out[/forked (\d+)/, 1]
    assert_equal "spawned #{spawned}\nexecd\nforked #{forked}\n", out
    assert_equal ["g.#{forked}.json", "g.#{spawned}.2.json", "g.#{spawned}.json", "g.json"].sort,
                 Dir.children(@dir).grep(/\.json\z/).sort
    assert_equal ["Object#parent_work"], own_methods("g.json")
    assert_equal ["Object#spawned_work"], own_methods("g.#{spawned}.json"), "written just before exec"
    assert_equal ["Object#execd_work"], own_methods("g.#{spawned}.2.json"), "the exec'd program's, not over it"
    assert_equal ["Object#child_work"], own_methods("g.#{forked}.json"), "from the fork on: the parent's work is the parent's"
    assert_equal 4, err.scan(/^tracegraph: wrote /).size, err
  end

  def test_a_forked_child_writes_its_own_file
    app = write_script("forker.rb", <<~RUBY)
      def parent_work = :p
      def child_work = :c
      parent_work
      pid = fork { child_work; puts Process.pid }
      Process.wait(pid)
    RUBY
    out, err, status = ruby("-rtracegraph/autorun", app, env: {"TRACEGRAPH_OUTPUT" => "g.json", "TRACEGRAPH_RUN" => nil})
    assert status.success?, err
    child_pid = out.strip
    parent = Tracegraph::Profile.load_json(File.join(@dir, "g.json"))
    child = Tracegraph::Profile.load_json(File.join(@dir, "g.#{child_pid}.json"))
    assert_nil parent["Object#child_work"]
    assert_equal 1, child["Object#child_work"].calls
    assert_equal 1, parent["Object#parent_work"].calls
  end

  # Each forked child's profile starts at the fork, so the sum of every
  # process's file counts each call once, and a pause is inherited.
  def test_forked_children_profile_from_the_fork_so_merge_counts_each_call_once
    app = write_script("job.rb", <<~RUBY)
      def boot = :b
      def work(i) = i
      def unseen = :u
      boot
      pids = [1, 2, 3].map { |i| fork { work(i) } }
      Tracegraph.pause
      pids << fork { unseen; Tracegraph.resume; work(4) }
      Tracegraph.resume
      pids.each { |pid| Process.wait(pid) }
    RUBY
    _, err, status = tracegraph("-o", "job.json", app)
    assert status.success?, err
    files = Dir.children(@dir).grep(/\Ajob\..*json\z/)
    assert_equal 5, files.size, files.inspect
    children = files - ["job.json"]
    assert_equal [["Object#work"]] * 4, children.map { |f| own_methods(f) }
    sum = Tracegraph::Profile.merge(files.map { |f| Tracegraph::Profile.load_json(File.join(@dir, f)) })
    assert_equal 1, sum["Object#boot"].calls
    assert_equal 4, sum["Object#work"].calls
    assert_nil sum["Object#unseen"], "called while the inherited pause held"
  end

  def test_the_tracegraph_command_under_autorun_writes_only_its_own_profile
    app = write_script("app.rb", "def work = 1\n3.times { work }\n")
    out, err, status = tracegraph("-o", "cmd.json", app, env: autorun_env(File.join(@dir, "auto.json")))
    assert status.success?, err
    assert_empty out
    assert_equal ["cmd.json"], Dir.children(@dir).grep(/\.json\z/), "autorun yields to the command: one file"
    assert_equal 3, Tracegraph::Profile.load_json(File.join(@dir, "cmd.json"))["Object#work"].calls
  end

  def test_exit_bang_writes_the_profile_first
    app = write_script("bang.rb", "def work = 1\nat_exit { puts :never }\nwork\nexit!(4)\n")
    out, err, status = ruby("-rtracegraph/autorun", app, env: {"TRACEGRAPH_OUTPUT" => "b.json", "TRACEGRAPH_RUN" => nil})
    assert_equal 4, status.exitstatus, err
    assert_empty out, "exit! still skips the program's at_exit handlers"
    assert_equal 1, Tracegraph::Profile.load_json(File.join(@dir, "b.json"))["Object#work"].calls
  end

  def test_settings_are_validated
    {
      {"TRACEGRAPH_CLOCK" => "gpu"} => /unknown clock :gpu/,
      {"TRACEGRAPH_C_CALLS" => "maybe"} => /TRACEGRAPH_C_CALLS must be 1\/true or 0\/false/,
      {"TRACEGRAPH_BLOCKS" => "maybe"} => /TRACEGRAPH_BLOCKS must be 1\/true or 0\/false/,
      {"TRACEGRAPH_MAX_NODES" => "ten"} => /TRACEGRAPH_MAX_NODES must be a whole number/,
      {"TRACEGRAPH_OUTPUT" => "g.gif"} => /unknown format .gif/
    }.each do |env, message|
      _, err, status = ruby("-rtracegraph/autorun", "-e", "1", env: env)
      assert status.success?, "a bad setting is a warning: the program runs, unprofiled, with its own status"
      assert_match message, err
      assert_match(/; running without profiling \(pid \d+: ruby -e\)$/, err)
      assert_empty Dir.children(@dir), "nothing written"
    end
  end

  def test_graph_settings_apply
    app = write_script("app.rb", "def a = b\ndef b = 1\na\n")
    _, err, status = ruby("-rtracegraph/autorun", app,
                          env: {"TRACEGRAPH_OUTPUT" => "g.dot", "TRACEGRAPH_C_CALLS" => "0", "TRACEGRAPH_GC" => "0",
                                "TRACEGRAPH_MAX_NODES" => "1", "TRACEGRAPH_NODE_FRACTION" => "0"})
    assert status.success?, err
    dot = File.read(File.join(@dir, "g.dot"))
    assert_match(/Showing 1 of 2 methods/, dot) # no GC nodes, however the process collected
    refute_match(/GC:/, dot)
  end

  def test_a_grouping_setting_draws_groups
    app = write_script("grouped.rb", "class A; def a = B.new.b; end\nclass B; def b = 1; end\nA.new.a\n")
    _, err, status = ruby("-rtracegraph/autorun", app, env: {"TRACEGRAPH_OUTPUT" => "g.dot", "TRACEGRAPH_GROUP_BY" => "class"})
    assert status.success?, err
    dot = File.read(File.join(@dir, "g.dot"))
    assert_match(/Grouped by class: \d+ methods in \d+ classes/, dot)
    assert_match(/label="A\\n/, dot)
    refute_match(/Arrows give calls only/, dot, "the call tree was recorded")
  end

  # TRACEGRAPH_CALL_TREE and TRACEGRAPH_MAX_CALL_TREE_NODES are
  # --call-tree and --max-call-tree-nodes: the tree recorded, at its cap.
  # CALL_TREE=0 is kept where the output is written without a tree, and
  # refused where it is written from one.
  def test_call_tree_settings
    app = write_script("tree.rb", "def a = 3.times { b }\ndef b = c\ndef c = 1\na\n")
    run = ->(env) { ruby("-rtracegraph/autorun", app, env: {"TRACEGRAPH_RUN" => nil}.merge(env)) }
    _, err, status = run.call("TRACEGRAPH_OUTPUT" => "plain.json")
    assert status.success?, err
    assert_nil Tracegraph::Profile.load_json(File.join(@dir, "plain.json")).call_tree, "a .json records none by default"
    _, err, status = run.call("TRACEGRAPH_OUTPUT" => "tree.json", "TRACEGRAPH_CALL_TREE" => "1")
    assert status.success?, err
    whole = Tracegraph::Profile.load_json(File.join(@dir, "tree.json")).call_tree
    assert whole.folded_calls.zero?
    _, err, status = run.call("TRACEGRAPH_OUTPUT" => "capped.json", "TRACEGRAPH_CALL_TREE" => "1",
                              "TRACEGRAPH_MAX_CALL_TREE_NODES" => "3")
    assert status.success?, err
    capped = Tracegraph::Profile.load_json(File.join(@dir, "capped.json")).call_tree
    assert_operator whole.size, :>, 3
    assert_operator capped.size, :<, whole.size, "the cap"
    assert_operator capped.folded_calls, :>, 0, "the calls past it folded"

    _, err, status = run.call("TRACEGRAPH_OUTPUT" => "no-tree.html", "TRACEGRAPH_CALL_TREE" => "0")
    assert status.success?, err
    data = JSON.parse(File.read(File.join(@dir, "no-tree.html"))[%r{id="profile-data">(.*?)</script>}m, 1])
    assert_nil data["flame"], "a report without the flame graph, as asked"
    _, err, status = run.call("TRACEGRAPH_OUTPUT" => "no-tree.folded", "TRACEGRAPH_CALL_TREE" => "0")
    assert status.success?, err
    assert_includes err, "tracegraph/autorun: TRACEGRAPH_CALL_TREE=0 records no call tree, " \
                         "but TRACEGRAPH_OUTPUT=no-tree.folded is written from it: unset TRACEGRAPH_CALL_TREE; running without profiling"
    refute File.exist?(File.join(@dir, "no-tree.folded"))
    _, err, status = run.call("TRACEGRAPH_OUTPUT" => "capped-nothing.json", "TRACEGRAPH_MAX_CALL_TREE_NODES" => "3")
    assert status.success?, err
    assert_includes err, "tracegraph/autorun: TRACEGRAPH_MAX_CALL_TREE_NODES=3 caps the call tree, and none is recorded " \
                         "for capped-nothing.json: set TRACEGRAPH_CALL_TREE=1, or unset TRACEGRAPH_MAX_CALL_TREE_NODES"
    refute File.exist?(File.join(@dir, "capped-nothing.json"))
  end

  def test_blocks_setting
    app = write_script("blocks.rb", "def a = [1, 2].each { b }\ndef b = 1\na\n")
    {"1" => 2, "0" => 0}.each do |setting, block_calls|
      _, err, status = ruby("-rtracegraph/autorun", app, env: {"TRACEGRAPH_OUTPUT" => "g#{setting}.json",
                                                               "TRACEGRAPH_BLOCKS" => setting, "TRACEGRAPH_RUN" => nil})
      assert status.success?, err
      profile = Tracegraph::Profile.load_json(File.join(@dir, "g#{setting}.json"))
      assert_equal block_calls, profile["block in Object#a"]&.calls.to_i
      assert_equal 2, profile["Object#b"].calls
    end
  end
end

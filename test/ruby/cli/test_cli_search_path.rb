require_relative "../test_helper"
require_relative "../cli_helper"

# tracegraph -S finds its script as ruby -S does: in RUBYPATH, then PATH;
# without -S, a name found only in PATH is an error that says how.
class TestCliSearchPath < Minitest::Test
  include CliHelper

  TOOL = <<~RUBY.freeze
    #!/usr/bin/env ruby
    def tool_work = :done
    tool_work
    puts [$0, *ARGV].join(" ")
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-search-path")
    @bin = File.join(@dir, "bin")
    Dir.mkdir(@bin)
    @tool = install("mytool", @bin)
    @env = {"PATH" => "#{@bin}:#{ENV.fetch('PATH')}", "RUBYPATH" => nil}
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def install(name, dir, code = TOOL)
    path = File.join(dir, name)
    File.write(path, code)
    File.chmod(0o755, path)
    path
  end

  def test_dash_s_profiles_a_script_found_in_path_as_ruby_dash_s_runs_it
    out, err, status = tracegraph("-o", "t.json", "-S", "mytool", "a", "-o", "b", env: @env)
    assert status.success?, err
    assert_equal "#{@tool} a -o b\n", out, "$0 is the path found, and what follows is the script's own"
    ruby_out, ruby_err, = ruby("-S", "mytool", "a", "-o", "b", env: @env)
    assert_equal ruby_out, out, ruby_err
    assert_equal 1, Tracegraph::Profile.load_json(File.join(@dir, "t.json"))["Object#tool_work"].calls
  end

  def test_rubypath_comes_before_path
    first = File.join(@dir, "rubypath")
    Dir.mkdir(first)
    tool = install("mytool", first)
    out, err, status = tracegraph("-o", "t.json", "-S", "mytool", env: @env.merge("RUBYPATH" => first))
    assert status.success?, err
    assert_equal "#{tool}\n", out
  end

  def test_without_dash_s_a_name_found_in_path_says_how_to_run_it
    _, err, status = tracegraph("-o", "t.json", "mytool", "test", env: @env)
    assert_equal 2, status.exitstatus
    assert_equal "tracegraph: no such file: mytool (to run mytool from PATH, as ruby -S does: tracegraph -S mytool ...)\n",
                 err
    refute File.exist?(File.join(@dir, "t.json"))
  end

  def test_a_missing_name_says_where_it_was_looked_for
    _, err, status = tracegraph("-o", "t.json", "-S", "nothere", env: @env)
    assert_equal 2, status.exitstatus
    assert_equal "tracegraph: no such file: nothere (nor in PATH, where -S looks)\n", err

    _, err, status = tracegraph("-o", "t.json", "-S", "nothere", env: @env.merge("RUBYPATH" => @bin))
    assert_equal 2, status.exitstatus
    assert_equal "tracegraph: no such file: nothere (nor in RUBYPATH or PATH, where -S looks)\n", err

    _, err, status = tracegraph("-o", "t.json", "nothere", env: @env)
    assert_equal 2, status.exitstatus
    assert_equal "tracegraph: no such file: nothere\n", err, "not in PATH either: nothing to suggest"
  end

  # As ruby -S: a file here is run when PATH has none, and a directory in
  # PATH with the name is passed over.
  def test_dash_s_falls_back_to_the_name_itself
    Dir.mkdir(File.join(@bin, "local.rb"))
    write_script("local.rb", "puts $0\n")
    out, err, status = tracegraph("-o", "t.json", "-S", "local.rb", env: @env)
    assert status.success?, err
    assert_equal "local.rb\n", out
  end

  def test_help_tells_of_dash_s
    out, _, status = tracegraph("--help")
    assert status.success?
    assert_includes out, "tracegraph [options] -S command [args...]       (a Ruby script in PATH: tracegraph -S rake test)"
    assert_match(/^    -S +Look the script up in RUBYPATH, then PATH, as ruby -S does: tracegraph -S rake test$/, out)
  end
end

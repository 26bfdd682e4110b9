require_relative "../test_helper"
require_relative "../cli_helper"
require "open3"
require "tmpdir"

# bin/setup leaves `tracegraph` runnable: bin/install-command links
# DIR/tracegraph to this checkout's exe/tracegraph, which then runs this
# checkout's code from any directory, with no -I. (A gem built and
# installed from the checkout is test_gem_install.rb's.)
class TestInstallCommand < Minitest::Test
  INSTALL = File.join(CliHelper::ROOT, "bin/install-command")

  def setup
    @dir = Dir.mktmpdir("tracegraph-install-command")
    @bin = File.join(@dir, "bin")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def install
    out, err, status = Open3.capture3(INSTALL, @bin)
    assert status.success?, err
    out + err
  end

  def test_the_link_runs_this_checkouts_command_from_anywhere
    assert_match(%r{#{Regexp.escape(@bin)}/tracegraph -> .*/exe/tracegraph}, install)
    work = File.join(@dir, "work")
    Dir.mkdir(work)
    env = {"RUBYLIB" => nil, "RUBYOPT" => nil, "PATH" => "#{@bin}:#{ENV.fetch('PATH')}"}
    _, err, status = Open3.capture3(env, "tracegraph", "-o", "g.json", "-e", "def f = 1; 3.times { f }", chdir: work)
    assert status.success?, err
    assert_equal 3, Tracegraph::Profile.load_json(File.join(work, "g.json"))["Object#f"].calls
    assert_match(/already runs this checkout/, install, "running it again changes nothing")
  end

  def test_another_tracegraph_is_left_alone
    FileUtils.mkdir_p(@bin)
    File.write(File.join(@bin, "tracegraph"), "#!/bin/sh\necho gem\n")
    assert_match(/is another tracegraph \(an installed gem\?\); left alone\. Run this checkout's with: ruby -I/, install)
    assert_equal "#!/bin/sh\necho gem\n", File.read(File.join(@bin, "tracegraph"))
  end
end

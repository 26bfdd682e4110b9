require_relative "test_helper"
require_relative "cli_helper"

# Builds the gem, installs it into an empty GEM_HOME (which compiles the
# extension) and runs its executable from outside the checkout.
class TestGemInstall < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-gem")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_build_install_and_run
    gem_file = File.join(@dir, "tracegraph.gem")
    _, err, status = Open3.capture3("gem", "build", "tracegraph.gemspec", "-o", gem_file, chdir: CliHelper::ROOT)
    assert status.success?, err
    home = File.join(@dir, "home")
    env = {"GEM_HOME" => home, "GEM_PATH" => home, "RUBYLIB" => nil, "RUBYOPT" => nil}
    _, err, status = Open3.capture3(env, "gem", "install", "--local", "--no-document", gem_file, chdir: @dir)
    assert status.success?, err

    work = File.join(@dir, "elsewhere")
    Dir.mkdir(work)
    demo = File.join(CliHelper::ROOT, "examples/demo.rb")
    _, err, status = Open3.capture3(env, File.join(home, "bin/tracegraph"), "-o", "x.svg", "-o", "x.html", demo, chdir: work)
    assert status.success?, err
    assert_includes File.read(File.join(work, "x.svg")), "find_many_squares"
    assert_includes File.read(File.join(work, "x.html")), "Viz.js 3.31.0", "the gem ships the HTML report's vendored Graphviz"
    installed = Dir[File.join(home, "gems/tracegraph-*/lib/tracegraph.rb")]
    assert_equal 1, installed.size, "the executable ran from the installed gem"
  end
end

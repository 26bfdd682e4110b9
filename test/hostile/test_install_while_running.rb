require_relative "../ruby/test_helper"
require "open3"
require "rbconfig"

# `rake compile` while a profiled program runs: the program keeps the
# library it loaded (the new one is renamed into place, not copied over).
class TestInstallWhileRunning < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)

  def test_rake_compile_does_not_kill_a_running_process
    script = <<~RUBY
      require "tracegraph"
      def work = (0...200).map { |i| i.to_s }
      Tracegraph.start
      $stdout.puts "started"
      $stdout.flush
      $stdin.gets                       # until rake compile has run
      200.times { work }                # touches the library's code again
      profile = Tracegraph.stop
      puts profile["Object#work"].calls
    RUBY
    Open3.popen3(RbConfig.ruby, "-I", File.join(ROOT, "lib"), "-e", script) do |stdin, stdout, stderr, wait|
      assert_equal "started\n", stdout.gets
      # Rebuild from scratch so the installed file really is a new one.
      clean = {"LD_PRELOAD" => nil, "ASAN_OPTIONS" => nil}   # under rake test:asan
      _, status = Open3.capture2e(clean, "rake", "-f", File.join(ROOT, "Rakefile"), "compile", chdir: ROOT)
      assert status.success?, "rake compile failed"
      stdin.puts
      stdin.close
      assert_equal "200\n", stdout.read, stderr.read
      assert wait.value.success?, "the running process died: #{wait.value.inspect}"
    end
  end
end

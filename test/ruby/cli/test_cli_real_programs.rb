require_relative "../test_helper"
require_relative "../cli_helper"
require "net/http"
require "socket"

# Real programs that do their work at exit, read their own options or
# serve until stopped, run under the tracegraph command as under ruby:
# minitest, test-unit, rake, an OptionParser script and a classic Sinatra
# app on Puma. Each library is a Debian package (bin/setup); a test skips
# where it is missing or does not load.
class TestCliRealPrograms < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-real")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # Skips unless code runs here (exit!: test-unit would run its tests at exit).
  def skip_unless_runs(what, code)
    _, err, status = Open3.capture3(RbConfig.ruby, "-e", "#{code}\nexit!(0)")
    skip "#{what} does not load here: #{err.lines.grep(/Error/).first&.strip}" unless status.success?
  end

  def profile(name) = Tracegraph::Profile.load_json(File.join(@dir, name))

  def test_a_minitest_file_runs_its_tests_with_its_own_options
    write_script("foo_test.rb", <<~RUBY)
      require "minitest/autorun"
      class FooTest < Minitest::Test
        def helper = 1
        def test_one = assert_equal(1, helper)
        def test_two = assert_equal(2, helper + helper)
      end
    RUBY
    _, _, plain = ruby("foo_test.rb", "-v", "--seed", "1")
    out, err, status = tracegraph("-o", "m.json", "foo_test.rb", "-v", "--seed", "1")
    assert plain.success?
    assert_equal plain.exitstatus, status.exitstatus, err
    assert_match(/^FooTest#test_one = .*\n/, out, "minitest's own -v reached it")
    assert_match(/2 runs, 2 assertions, 0 failures/, out)
    assert_equal 1, profile("m.json")["FooTest#test_one"].calls
    assert_equal 1, profile("m.json")["FooTest#test_two"].calls
    assert_equal 3, profile("m.json")["FooTest#helper"].calls

    write_script("failing_test.rb", "require 'minitest/autorun'\nclass F < Minitest::Test\n  def test_no = flunk\nend\n")
    _, _, plain = ruby("failing_test.rb")
    _, err, status = tracegraph("-o", "f.json", "failing_test.rb")
    assert_equal 1, plain.exitstatus
    assert_equal plain.exitstatus, status.exitstatus, err
    assert_equal 1, profile("f.json")["F#test_no"].calls
  end

  def test_a_test_unit_file_runs_its_tests
    skip_unless_runs("test-unit", 'require "test/unit"')
    write_script("bar_test.rb", <<~RUBY)
      require "test/unit"
      class BarTest < Test::Unit::TestCase
        def helper = 2
        def test_alpha = assert_equal(2, helper)
        def test_beta = assert_equal(4, helper * helper)
      end
    RUBY
    _, _, plain = ruby("bar_test.rb", "--verbose=verbose")
    out, err, status = tracegraph("-o", "u.json", "bar_test.rb", "--verbose=verbose")
    assert plain.success?
    assert_equal plain.exitstatus, status.exitstatus, err
    assert_match(/test_alpha/, out)
    assert_match(/2 tests, 2 assertions, 0 failures, 0 errors/, out)
    assert_equal 1, profile("u.json")["BarTest#test_alpha"].calls
    assert_equal 1, profile("u.json")["BarTest#test_beta"].calls
    assert_equal 3, profile("u.json")["BarTest#helper"].calls
  end

  def test_a_rakefile_through_rake
    rake = ENV["PATH"].split(File::PATH_SEPARATOR).map { |dir| File.join(dir, "rake") }.find { |f| File.executable?(f) }
    skip "rake is not on PATH" unless rake
    File.write(File.join(@dir, "Rakefile"), <<~RUBY)
      def step(name) = puts(name)
      task(:prepare) { 2.times { step(:prepare) } }
      task(build: :prepare) { step(:build) }
      task(:broken) { raise "broken task" }
    RUBY
    plain_out, _, plain = ruby(rake, "-f", "Rakefile", "build")
    out, err, status = tracegraph("-o", "r.json", rake, "-f", "Rakefile", "build")
    assert_equal [plain_out, plain.exitstatus], [out, status.exitstatus], err
    assert_equal "prepare\nprepare\nbuild\n", out
    assert_equal 3, profile("r.json")["Object#step"].calls
    assert_equal 2, profile("r.json")["Rake::Task#execute"].calls

    _, _, plain = ruby(rake, "-f", "Rakefile", "broken")
    _, err, status = tracegraph("-o", "b.json", rake, "-f", "Rakefile", "broken")
    assert_equal 1, plain.exitstatus
    assert_equal plain.exitstatus, status.exitstatus, err
    assert_match(/broken task/, err)
    assert_equal 1, profile("b.json")["Rake::Task#execute"].calls
  end

  def test_an_option_parser_script_gets_its_own_o
    write_script("opt.rb", <<~RUBY)
      require "optparse"
      out = "default.txt"
      OptionParser.new { |o| o.on("-o", "--output FILE", "where to write") { |v| out = v } }.parse!
      def answer = 42
      File.write(out, answer.to_s)
      puts "wrote \#{out}, left \#{ARGV.inspect}"
    RUBY
    plain_out, _, plain = ruby("opt.rb", "-o", "plain.txt", "rest")
    out, err, status = tracegraph("-o", "p.json", "opt.rb", "-o", "traced.txt", "rest")
    assert_equal [plain_out.sub("plain", "traced"), plain.exitstatus], [out, status.exitstatus], err
    assert_equal "42", File.read(File.join(@dir, "traced.txt"))
    assert_equal 1, profile("p.json")["Object#answer"].calls

    plain_out, _, plain = ruby("opt.rb", "--help")
    out, err, status = tracegraph("-o", "h.json", "opt.rb", "--help")
    assert_equal [plain_out, plain.exitstatus], [out, status.exitstatus], err
    assert_match(/--output FILE\s+where to write/, out, "the script's help, not tracegraph's")
  end

  SINATRA_APP = <<~RUBY.freeze
    require "sinatra"
    set :server, "puma"
    set :bind, "127.0.0.1"
    set :port, Integer(ENV.fetch("PORT"))
    def greeting(name) = "hello \#{name}"
    get("/hello/:name") { greeting(params[:name]) }
  RUBY

  # Replies to `requests` requests from `clients` threads at once, each
  # on its own connection.
  def load_server(port, path, clients:, requests:)
    Array.new(clients) do
      Thread.new do
        http = Net::HTTP.start("127.0.0.1", port)
        Array.new(requests) { http.get(path).body }.tap { http.finish }
      end
    end.flat_map(&:value)
  end

  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  # Starts the app, asks it `names`, stops it with `signal`; returns the
  # replies and how the process ended.
  def serve(command, names, signal)
    port = free_port
    log = File.join(@dir, "server-#{port}.log")
    pid = Process.spawn({"PORT" => port.to_s}, *command, chdir: @dir, %i[out err] => log)
    http = wait_for_server(port, pid, log)
    replies = names.map { |name| http.get("/hello/#{name}").body }
    http.finish
    Process.kill(signal, pid)
    status = Process.wait2(pid).last
    [replies, status, log]
  ensure
    if pid && !status # never leave a server behind
      Process.kill(:KILL, pid)
      Process.wait(pid)
    end
  end

  # Polls until the server answers: how long it takes to start is not
  # what is tested, so the loop only gives up if the process died.
  def wait_for_server(port, pid, log)
    loop do
      flunk "the server exited: #{File.read(log)}" if Process.wait(pid, Process::WNOHANG)
      return Net::HTTP.start("127.0.0.1", port)
    rescue Errno::ECONNREFUSED
      sleep 0.1
    end
  end

  def test_a_classic_sinatra_app_serves_until_stopped
    # Puma, picked as Sinatra's run! picks it: Rack's handler (rackup's
    # with Rack 3 and Sinatra 4).
    skip_unless_runs("Sinatra on Puma", <<~RUBY)
      require "sinatra/base"
      (defined?(Rackup::Handler) ? Rackup::Handler : Rack::Handler).pick(["puma"]).name.include?("Puma") or exit!(1)
    RUBY
    write_script("app.rb", SINATRA_APP)
    %i[INT TERM].each do |signal|
      names = %w[ann bob cy]
      plain_replies, plain, = serve([RbConfig.ruby, "app.rb"], names, signal)
      replies, status, log = serve([RbConfig.ruby, "-I#{LIB}", EXE, "-o", "#{signal}.json", "app.rb"], names, signal)
      assert_equal ["hello ann", "hello bob", "hello cy"], plain_replies
      assert_equal plain_replies, replies
      assert_equal [plain.exitstatus, plain.termsig], [status.exitstatus, status.termsig], File.read(log)
      profile = profile("#{signal}.json")
      assert_equal 3, profile["Object#greeting"].calls, "#{signal}: #{File.read(log)}"
      assert_equal 3, profile["Sinatra::Base#call!"].calls
    end
  end

  BUSY_APP = <<~RUBY.freeze
    require "sinatra"
    set :server, "puma"
    set :bind, "127.0.0.1"
    set :port, Integer(ENV.fetch("PORT"))
    set :logging, false
    def render_page(n) = (1..n).map { |i| "<li>\#{i * i}</li>" }.join
    get("/page/:n") { render_page(Integer(params[:n])) }
  RUBY

  # A server's profile is mostly its idle threads waiting: the request
  # path is a sliver. --thread and --idle hide make it the picture.
  def test_a_puma_app_under_load_shows_its_request_path
    skip_unless_runs("Sinatra on Puma", <<~RUBY)
      require "sinatra/base"
      (defined?(Rackup::Handler) ? Rackup::Handler : Rack::Handler).pick(["puma"]).name.include?("Puma") or exit!(1)
    RUBY
    write_script("busy.rb", BUSY_APP)
    port = free_port
    log = File.join(@dir, "busy.log")
    pid = Process.spawn({"PORT" => port.to_s}, RbConfig.ruby, "-I#{LIB}", EXE, "--call-tree", "-o", "full.json",
                        "busy.rb", chdir: @dir, %i[out err] => log)
    wait_for_server(port, pid, log).finish
    pages = load_server(port, "/page/2000", clients: 4, requests: 10)
    assert_equal 40, pages.size
    assert pages.all? { |page| page.start_with?("<li>1</li><li>4</li>") }
    Process.kill(:INT, pid)
    Process.wait(pid)
    pid = nil

    out, err, status = tracegraph("render", "full.json", "--thread", "puma srv tp *", "--idle", "hide",
                                  "-o", "view.json", "-o", "view.svg", "--flat")
    assert status.success?, err + File.read(log)
    full = profile("full.json")
    view = profile("view.json")
    share = ->(profile, name) { profile[name].total_time.fdiv(profile.total_time) }

    assert_operator full.waiting_time, :>, full.total_time / 2, "waiting is most of the whole profile"
    assert view.threads.all? { |t| t.name.start_with?("puma srv tp") }, view.threads.map(&:name).inspect
    assert_operator view.recorded_threads, :>, view.threads.size
    assert_empty view.methods.select(&:waiting?)
    assert_equal 40, view["Object#render_page"].calls
    assert_operator share[view, "Object#render_page"], :>=, 0.05, out
    assert_operator share[view, "Object#render_page"], :>, 3 * share[full, "Object#render_page"]
    assert_operator share[view, "Sinatra::Base#call!"], :>=, 0.3, out
    assert_match(/^Threads: \d+ of \d+ \(puma srv tp/, out)
    assert_includes File.read(File.join(@dir, "view.dot")), "Waiting hidden: "
  ensure
    if pid # never leave a server behind
      Process.kill(:KILL, pid)
      Process.wait(pid)
    end
  end
end

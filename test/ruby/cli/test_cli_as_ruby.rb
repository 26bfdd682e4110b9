require_relative "../test_helper"
require_relative "../cli_helper"

# `tracegraph script.rb` must behave as `ruby script.rb`: each program
# runs both ways, side by side, and must print the same and end the same
# (exit status, or the signal that killed it), while the profile covers
# all it did, its at_exit handlers included.
class TestCliAsRuby < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-as-ruby")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  # Runs name (relative, as a user types it) both ways; returns tracegraph's
  # stderr, the profile, and ruby's stderr.
  def assert_runs_as_ruby(name, code, *args)
    write_script(name, code)
    plain_out, plain_err, plain = ruby(name, *args)
    out, err, status = tracegraph("-o", "p.json", name, *args)
    assert_equal plain_out, out, "stdout, as under ruby (ruby's stderr: #{plain_err})"
    assert_equal [plain.exitstatus, plain.termsig], [status.exitstatus, status.termsig], "how it ended: #{err}"
    [err, Tracegraph::Profile.load_json(File.join(@dir, "p.json")), plain_err]
  end

  def test_program_name_argv_and_file_stay_the_scripts_through_at_exit
    _, profile = assert_runs_as_ruby("app.rb", <<~RUBY, "-o", "x.svg", "--", "b")
      def cleanup = :done
      at_exit { cleanup; p [$0, ARGV, __FILE__ == $0, __FILE__, __dir__ == Dir.pwd, self.to_s] }
      p [$0, ARGV, __FILE__ == $0, $PROGRAM_NAME]
    RUBY
    assert_equal 1, profile["Object#cleanup"].calls
  end

  def test_at_exit_order_and_an_exit_inside_at_exit
    _, profile = assert_runs_as_ruby("order.rb", <<~RUBY)
      def last = puts(:last)
      at_exit { last }
      at_exit { puts [:second, $!.inspect].inspect; exit 3 }
      at_exit { puts :first; at_exit { puts :nested } }
      puts :main
    RUBY
    assert_equal 1, profile["Object#last"].calls
  end

  def test_an_uncaught_exception_is_in_dollar_bang_and_prints_as_under_ruby
    err, profile, plain_err = assert_runs_as_ruby("raise.rb", <<~RUBY)
      def seen(e) = puts("at_exit saw \#{e.class}: \#{e.message}")
      def boom = raise(ArgumentError, "no")
      at_exit { seen($!) }
      boom
    RUBY
    assert_equal 1, profile["Object#seen"].calls
    # Ruby 3.4 quotes 'Object#boom' where 3.1 and 3.3 quote `boom'.
    assert_match(/\Araise.rb:2:in [`'](Object#)?boom': no \(ArgumentError\)\n/, plain_err)
    assert_equal plain_err, err.lines.reject { |l| l.start_with?("tracegraph: wrote") }.join,
                 "the same message and backtrace (error_highlight's too), no frame of tracegraph's"
  end

  def test_exit_abort_and_exit_bang
    _, profile = assert_runs_as_ruby("exit.rb", "def leave = exit(7)\nat_exit { puts :bye }\nleave\n")
    assert_equal 1, profile["Object#leave"].calls
    err, = assert_runs_as_ruby("abort.rb", "abort 'no more'\n")
    assert_match(/no more/, err)
    _, profile = assert_runs_as_ruby("bang.rb", <<~RUBY)
      def work = 1
      at_exit { puts :never }
      work
      $stdout.flush
      exit!(5)
    RUBY
    assert_equal 1, profile["Object#work"].calls, "written just before exit!"
    assert_empty profile.methods.map(&:name).grep(/Tracegraph|exit!/), "our wrapper of exit! is not the program's"
  end

  def test_exec_writes_the_profile_then_runs_the_program
    _, profile = assert_runs_as_ruby("exec.rb", <<~RUBY)
      def work = 1
      work
      $stdout.puts :before
      $stdout.flush
      exec(RbConfig.ruby, "-e", "puts :after; exit 6")
    RUBY
    assert_equal 1, profile["Object#work"].calls
    assert_empty profile.methods.map(&:name).grep(/Tracegraph|exec/), "our wrapper of exec is not the program's"
  end

  def test_a_failing_exec_goes_on_as_under_ruby
    _, profile = assert_runs_as_ruby("exec_fails.rb", <<~RUBY)
      def work = 1
      work
      begin
        exec("/nonexistent/program")
      rescue SystemCallError => e
        puts e.class
      end
    RUBY
    assert_equal 1, profile["Object#work"].calls, "written before exec tried, and only then"
  end

  def test_signals_kill_it_as_they_kill_ruby
    %w[TERM INT HUP].each do |signal|
      _, profile = assert_runs_as_ruby("#{signal}.rb", <<~RUBY)
        def work = 1
        def cleanup = :done
        at_exit { cleanup }
        work
        Process.kill(:#{signal}, Process.pid)
        sleep 5
      RUBY
      assert_equal 1, profile["Object#cleanup"].calls, signal
    end
  end

  def test_a_trapped_signal_is_the_programs
    _, profile = assert_runs_as_ruby("trap.rb", <<~RUBY)
      def on_term = puts(:trapped)
      trap(:TERM) { on_term; exit 9 }
      Process.kill(:TERM, Process.pid)
      sleep 5
    RUBY
    assert_equal 1, profile["Object#on_term"].calls
  end

  def test_dash_e_is_its_own_program_name
    write_script("unused.rb", "")
    plain_out, _, plain = ruby("-e", "p [$0, __FILE__, ARGV]", "x")
    out, err, status = tracegraph("-o", "e.json", "-e", "p [$0, __FILE__, ARGV]", "x")
    assert_equal plain_out, out, err
    assert_equal plain.exitstatus, status.exitstatus
  end

  # ruby -e's top level is <main>, and so its blocks are "block in
  # <main>" (a compiled String's would be "<compiled>").
  def test_dash_e_code_is_main_as_under_ruby
    code = "def f = 1; 3.times { f }; puts caller_locations(0, 1)[0].label"
    plain_out, = ruby("-e", code)
    out, err, status = tracegraph("-o", "e.json", "-e", code)
    assert status.success?, err
    assert_equal plain_out, out
    profile = Tracegraph::Profile.load_json(File.join(@dir, "e.json"))
    assert_equal 3, profile["block in <main>"].calls
    assert_equal 3, profile["Object#f"].calls
    refute(profile.methods.any? { |m| m.name.include?("<compiled>") })
  end

  def test_a_script_named_like_a_library_is_the_script
    Dir.mkdir(File.join(@dir, "lib"))
    File.write(File.join(@dir, "lib/app.rb"), "puts :library\n")
    _, err, status = ruby("-Ilib", "-e", "0") # the library is there to find
    assert status.success?, err
    write_script("app.rb", "puts :script\n")
    out, err, status = Open3.capture3(RbConfig.ruby, "-I#{LIB}", "-Ilib", EXE, "-o", "a.json", "app.rb", chdir: @dir)
    assert status.success?, err
    assert_equal "script\n", out, "never looked up in $LOAD_PATH, as `load` would"
  end

  def test_data_is_the_text_after_end
    assert_runs_as_ruby("data.rb", <<~RUBY)
      text = <<EOS
      __END__
      EOS
      p [text, DATA.read, DATA.path]
      __END__
      data Ünïcode
      line 2
    RUBY
    assert_runs_as_ruby("no_data.rb", "p defined?(DATA)\n")
    assert_runs_as_ruby("latin1.rb", "# encoding: iso-8859-1\np [\"caf\xE9\", DATA.read, DATA.external_encoding]\n" \
                                     "__END__\nd\xE9\n".b)
  end

  def test_a_syntax_error_is_reported_as_ruby_reports_it
    write_script("bad.rb", "def x(\n")
    _, plain_err, plain = ruby("bad.rb")
    out, err, status = tracegraph("-o", "b.json", "bad.rb")
    assert_equal plain.exitstatus, status.exitstatus
    assert_empty out
    assert_match(/bad\.rb:\d+: syntax error/, plain_err)
    # Its words vary with the Ruby (3.4's Prism says "syntax errors found").
    assert_match(/\Abad\.rb:\d+: syntax error/, err)
    assert_includes plain_err, err.lines.first.strip
    refute File.exist?(File.join(@dir, "b.json")), "nothing ran: no profile"
  end
end

# Runs a script for the tracegraph command as `ruby script.rb` would, and
# writes its profile when the process ends.
#
# $0 and ARGV are the script's for good, and nothing is rescued: at_exit
# handlers, exit, abort, uncaught exceptions and signals end the process
# exactly as under ruby, a signal by killing it with that signal. The
# profile is stopped and written by an at_exit handler registered before
# the script is loaded, so it runs last and covers the script's own
# at_exit handlers (a test framework's run, a server started at exit);
# just before exit! or exec, which skip at_exit handlers, it is written
# too (see tracegraph/cli/process_end). The files are written before
# anything is printed, and a closed stderr or a broken pipe costs no file.
require "tracegraph"
require "tracegraph/output/output"
require "tracegraph/output/output_naming"
require "tracegraph/cli/process_end"
require "tracegraph/cli/repeated_run"

module Tracegraph
  class ScriptRun
    # name: the script's path or "-e"; iseq: it, compiled (-e's code: a String).
    def initialize(name, iseq, argv, outputs:, start_options:, dot_options:, flat:, err:)
      @name = name
      @iseq = iseq
      @argv = argv
      @outputs = outputs
      @start_options = start_options
      @dot_options = dot_options
      @flat = flat
      @err = err
    end

    def call
      yield_autorun
      $PROGRAM_NAME = @name
      ARGV.replace(@argv)
      @naming = OutputNaming.new
      # The frames below the script, in the backtrace of an exception it
      # raises: ours, and profile_main's and its eval's.
      @frames_below = caller_locations(0).size + 2
      define_data unless @name == "-e"
      ProcessEnd.call_at_end { |profile, how| finish(profile, how) }
      Tracegraph.watch_for_rails_app # `tracegraph bin/rails runner ...`
      Tracegraph.profile_main(@iseq, **@start_options)
    end

    private

    # tracegraph/autorun in RUBYOPT (`RUBYOPT=-rtracegraph/autorun rake`
    # running this command) has been profiling this process since it
    # started: the command's own profile is the one asked for, so autorun's
    # is dropped and autorun writes nothing.
    def yield_autorun
      return unless Tracegraph.running? && ProcessEnd.waiting?

      Tracegraph.stop
    end

    # Ruby gives its main program DATA, the file after its __END__ line;
    # eval does not. parse.y reads it in the script's source encoding,
    # Prism (Ruby 3.4's default parser, "+PRISM" in RUBY_DESCRIPTION) in
    # the default external one.
    def define_data
      source = File.binread(@name)
      return unless source.match?(/^__END__\r?$/) # most scripts have none: no need to lex them

      require "ripper"
      lexer = Ripper::Lexer.new(source.force_encoding(Encoding::UTF_8), @name) # UTF-8 unless a magic comment says
      (line, _), _, text = lexer.lex.find { |_, type, _| type == :on___end__ }
      return unless line

      encoding = RUBY_DESCRIPTION.include?("+PRISM") ? Encoding.default_external : lexer.encoding
      data = File.open(@name, external_encoding: encoding)
      data.seek(source.lines.first(line - 1).sum(&:bytesize) + text.bytesize)
      Object.const_set(:DATA, data)
    end

    # Runs once, after every other at_exit handler, or before exit!/exec.
    def finish(profile, how)
      error = $! # what the process is ending with, if anything
      profile, dot_options, view_note = Output.view_of_run(profile, @dot_options)
      messages = [view_note, Output.folded_note(profile, @outputs)].compact.map { |note| "tracegraph: #{note}" }
      ok, written = begin
        Output.write_each(@outputs, "tracegraph") do |path|
          Output.write(profile, @naming.path_for(path), dot_options)
        end
      rescue RenderInterrupted => e
        tell { @err.puts e.report("tracegraph") }
        e.end_process # from at_exit: the process ends by the signal, quietly
      end
      # A run of --runs writes a file the parent reads and deletes: not one to name.
      written = written.reject { |message| message.start_with?("tracegraph: wrote ") } if ENV[RepeatedRun::CHILD_ENV]
      messages.concat(written)
      note = Output.grouping_note(profile, @outputs, dot_options)
      messages << "tracegraph: #{note}" if note
      group_note = Output.group_by_note(@outputs, dot_options)
      messages << "tracegraph: #{group_note}" if group_note
      tell { Output.print_flat(profile, @err, dot_options) } if @flat
      messages.each { |message| tell { @err.puts message } }
      hide_our_frames(error)
      # An output that could not be written fails a run that would
      # succeed. (exit! sees to it itself; after exec the status is not ours.)
      exit 1 if !ok && how == :at_exit && succeeding?(error)
      ok
    end

    # Messages come last and may find stderr closed or its reader gone;
    # the files are written by then.
    def tell
      yield
    rescue IOError, SystemCallError
      nil
    end

    def succeeding?(error) = error.nil? || (error.is_a?(SystemExit) && error.success?)

    # An uncaught exception's backtrace ends, under ruby, at the script's
    # top level: drop the frames of this command that follow.
    def hide_our_frames(error)
      backtrace = error&.backtrace
      return unless backtrace && backtrace.size > @frames_below
      return unless backtrace[-@frames_below].start_with?("#{File.expand_path('../../tracegraph.rb', __dir__)}:")

      error.set_backtrace(backtrace[0...-@frames_below])
    end
  end
end

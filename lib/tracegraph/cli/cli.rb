# The `tracegraph` command. Parses options, then runs the script in this
# process exactly as `ruby script.rb` would (see tracegraph/cli/script_run):
# the process ends as the script's would, with its status, or by its
# signal, and the profile is written as it ends. Status 2 for bad usage,
# before anything runs; 1 if the script succeeded but an output could not
# be written.
#
# Output paths are made absolute before the script runs, so a script that
# changes directory (Dir.chdir, Process.daemon) cannot move them. A child
# the script forks writes its own files, with its pid in the name
# (call_graph.12345.dot), as under tracegraph/autorun.
require "optparse"
require "tracegraph"
require "tracegraph/output/output"
require "tracegraph/cli/diff_cli"
require "tracegraph/cli/render_cli"
require "tracegraph/cli/merge_cli"
require "tracegraph/cli/graph_options"
require "tracegraph/cli/script_run"
require "tracegraph/cli/repeated_run"

module Tracegraph
  class CLI
    USAGE_ERROR = 2

    class UsageError < StandardError; end

    def initialize(out: $stdout, err: $stderr)
      @out = out
      @err = err
    end

    # The exit status, or nil once the script has run: the process then
    # ends as the script's would.
    def run(argv)
      script = prepare(argv)
      return script if script.is_a?(Integer)

      script.call # never rescued here: the script's exceptions are its own
      nil
    end

    private

    # A ScriptRun ready to go, or the exit status if there is nothing to run.
    def prepare(argv)
      return DiffCLI.new(out: @out, err: @err).run(argv.drop(1)) if argv.first == "diff"
      return RenderCLI.new(out: @out, err: @err).run(argv.drop(1)) if argv.first == "render"
      return MergeCLI.new(out: @out, err: @err).run(argv.drop(1)) if argv.first == "merge"

      argv = argv.dup
      options = parse(argv)
      return 0 if options == :done

      name, iseq = target(options, argv)
      note_bundler_setup
      # Checked as typed, kept absolute: see the top of this file.
      options[:outputs] = Output.check_paths(options[:outputs], format: options[:format]).map(&:absolute)
      # The profile goes to standard output: the script's own output goes
      # to standard error, so that the two never mix.
      Output.claim_stdout if options[:outputs].any?(&:stdout?)
      return repeated(options, name, argv) if options[:runs] > 1

      ScriptRun.new(name, iseq, argv, outputs: options[:outputs], start_options: options[:start],
                                      dot_options: options[:dot], flat: options[:flat], err: @err)
    rescue OptionParser::ParseError, UsageError => e
      @err.puts "tracegraph: #{e.message} (see tracegraph --help)"
      USAGE_ERROR
    rescue Tracegraph::Error, ArgumentError => e
      @err.puts Tracegraph.printable("tracegraph: #{e.message}")
      USAGE_ERROR
    rescue SyntaxError => e
      # As ruby reports it, before anything runs: there is no profile.
      @err.puts e.message
      1
    end

    # Under `bundle exec` (or ruby -rbundler/setup), Bundler set the bundle
    # up in this process before tracegraph started: a program that sets it
    # up itself (bin/rails, through config/boot.rb) then finds it done, and
    # that work is not in the profile. Said once, by the process the user
    # started, not by the runs of --runs.
    def note_bundler_setup
      return if ENV[RepeatedRun::CHILD_ENV]
      return unless $LOADED_FEATURES.any? { |feature| feature.end_with?("/bundler/setup.rb") }

      @err.puts "tracegraph: Bundler's setup ran before tracegraph started (bundle exec, or -rbundler/setup), so " \
                "it is not in the profile; to have it there, run tracegraph without bundle exec (docs/rails.md)"
    end

    # --runs N: N processes, one profile of their medians.
    def repeated(options, name, argv)
      stacks = options[:outputs].select { |path| Output.needs_call_tree?([path]) }
      raise UsageError, "--runs keeps medians, not call trees, so it cannot write #{stacks.join(', ')}" if stacks.any?

      target = name == "-e" ? ["-e", options[:code]] : [name]
      RepeatedRun.new(options[:runs], target, argv, outputs: options[:outputs], start_options: options[:start],
                                                    dot_options: options[:dot], flat: options[:flat], err: @err,
                                                    ok_statuses: options[:ok_statuses]).call
    end

    def parse(argv)
      options = {outputs: [], start: {}, dot: {}, flat: false, code: nil, runs: 1, ok_statuses: [0], format: nil}
      parser = OptionParser.new do |o|
        o.banner = banner
        define_target_options(o, options)
        define_recording_options(o, options[:start])
        define_runs_options(o, options)
        GraphOptions.define(o, options[:dot])
        o.on("--flat", "Also print the top methods by self time to stderr") { options[:flat] = true }
        o.on("-h", "--help", "Show this help") do
          @out.puts o
          return :done
        end
        o.on("--version", "Show the version, and how this Ruby would be recorded") do
          # The probe's verdict: a start and stop that record nothing.
          @out.puts "tracegraph #{Tracegraph::VERSION}", "recording: #{Tracegraph::FrameProbe.verdict!}"
          return :done
        end
      end
      # Stops at the script, as ruby does: what follows is the script's own
      # ARGV, its -o and --help too.
      parser.order!(argv)
      settle(options)
    end

    def banner
      <<~TEXT
        Usage: tracegraph [options] script.rb [script args...]
               tracegraph [options] -S command [args...]       (a Ruby script in PATH: tracegraph -S rake test)
               tracegraph [options] -e 'ruby code'
               tracegraph render [options] profile.json        (see tracegraph render --help)
               tracegraph merge [options] a.json b.json ...    (see tracegraph merge --help)
               tracegraph diff [options] base.json head.json   (see tracegraph diff --help)

        Profiles a Ruby program and writes its call graph. The format follows the
        output's name, or --format for a name without one (-o - is standard output;
        a name ending in .gz is compressed): #{Output.known_formats}
        (pdf/svg/png run Graphviz's dot and keep the .dot beside them; .folded is folded
        stacks for flame graphs; .pb.gz is pprof; .speedscope.json is for speedscope;
        .firefox.json is for the Firefox Profiler; callgrind is for KCachegrind; .html is one
        file to explore in a browser, offline). -o can be given more than once.
        Options come before the script, as ruby's do; everything after the script is
        its own, as under ruby: tracegraph -o g.pdf app.rb -o app-output.txt
        The script runs as `ruby script.rb` would run it, and the profile is written
        when the process ends, after the script's at_exit handlers.

      TEXT
    end

    # Where the profile goes, and what runs: -o, --format, -e, -S.
    def define_target_options(o, options)
      o.on("-o", "--output PATH", "Write the profile here (default call_graph.dot); - is standard output,",
           "where the script's own output then goes to standard error") { |v| options[:outputs] << v }
      Output.define_format_option(o, options)
      o.on("-e CODE", "Profile this code instead of a script") { |v| options[:code] = v }
      o.on("-S", "Look the script up in RUBYPATH, then PATH, as ruby -S does: tracegraph -S rake test") do
        options[:search_path] = true
      end
    end

    # What is recorded: Tracegraph.start's options, a flag or two each
    # (RecordingOptions::TABLE).
    def define_recording_options(o, start)
      RecordingOptions::TABLE.each_value do |option|
        option.flags.each do |switches, what, *help|
          if what == RecordingOptions::ARGUMENT
            type = option.values.is_a?(Range) ? Integer : option.values.map(&:to_s)
            o.on(*switches, type, *help) { |v| start[option.name] = argument(option, switches, v) }
          else
            o.on(*switches, *help) { start[option.name] = what }
          end
        end
      end
    end

    # A recording flag's argument as its option's value.
    def argument(option, switches, value)
      option.check(value)
    rescue ArgumentError
      range = option.values
      raise OptionParser::InvalidArgument, "#{value} (from #{range.min} to #{range.max})" if range.is_a?(Range)

      raise OptionParser::InvalidArgument, "#{value} (#{Array(switches).last})"
    end

    # --runs and --ok-status.
    def define_runs_options(o, options)
      o.on("--runs N", Integer, "Run the script N times, each in its own process, and keep each method's",
           "median, with every run's numbers for tracegraph diff to measure the noise by") do |v|
        raise OptionParser::InvalidArgument, "#{v} (from 1 to 1000)" unless v.between?(1, 1000)

        options[:runs] = v
      end
      o.on("--ok-status LIST", Array, "With --runs: exit statuses the script ends with by design (0,1 for a linter",
           "that found offenses): the runs go on after them (0 is always one)") do |v|
        options[:ok_statuses] = ok_statuses(v)
      end
    end

    # The outputs as targets, the call tree where an output or a view needs
    # it, and the graph options checked before anything runs.
    def settle(options)
      options[:outputs] << "call_graph.dot" if options[:outputs].empty?
      options[:outputs].map! { |spec| Output.target(spec, format: options[:format]) }
      # Without --idle, the graph and the tables rank working time (Output.idle_for).
      options[:dot][:idle] = :auto unless options[:dot].key?(:idle)
      if Output.needs_call_tree?(options[:outputs]) || GraphOptions.needs_call_tree?(options[:dot]) ||
         (options[:runs] == 1 && Output.wants_call_tree?(options[:outputs])) ||
         (options[:runs] == 1 && (options[:flat] || Output.ranks_time?(options[:outputs])))
        options[:start][:call_tree] = true
      end
      tree = options[:runs] == 1 ? options[:start][:call_tree] : RepeatedRun.runs_record_call_tree?(options[:dot])
      if options[:start].key?(:max_call_tree_nodes) && !tree
        raise UsageError, "--max-call-tree-nodes caps the call tree, and nothing here records one: " +
                          (options[:runs] == 1 ? "add --call-tree, or an output drawn from it (.folded, .pb.gz, " \
                                                 ".speedscope.json, .firefox.json, .html)"
                                               : "with --runs, a run records one only for --thread or --idle hide")
      end
      Tracegraph::DotOptions.parse(options[:dot].except(*VIEW_OPTIONS)) # fail before running anything
      GraphOptions.check_allocations!(options[:start], options[:dot])
      Output.check_group_by!(options[:outputs], options[:dot], flat: options[:flat])
      options
    end

    # --ok-status 0,1: the exit statuses, 0 among them.
    def ok_statuses(list)
      raise OptionParser::InvalidArgument, "(needs exit statuses, as in --ok-status 0,1)" if list.empty?

      statuses = list.map do |item|
        status = Integer(item, 10, exception: false)
        raise OptionParser::InvalidArgument, "#{list.join(',')} (exit statuses from 0 to 255)" unless status&.between?(0, 255)

        status
      end
      ([0] + statuses).uniq.sort
    end

    # The script's name ($0 and __FILE__) and its compiled code: compiled
    # as ruby compiles its main program, so __FILE__ == $0 and the top
    # level is <main>, and never looked up in $LOAD_PATH as `load` would.
    # -e code is compiled here only to refuse a syntax error before
    # anything runs, and then run as a String (Tracegraph.profile_main).
    def target(options, argv)
      if options[:code]
        RubyVM::InstructionSequence.compile(options[:code], "-e", "-e")
        return ["-e", options[:code]]
      end

      script = argv.shift or raise UsageError, "no script given"
      script = find_in_path(script) || script if options[:search_path] # else as named, as ruby -S does
      unless File.file?(script)
        raise Tracegraph::Error, "no such file: #{script}#{missing_script_hint(script, options[:search_path])}"
      end

      RenderCLI.check_script(script)
      [script, compile_script(script)]
    end

    # With the parser ruby itself uses: on Ruby 3.4.5 and before 3.4.x
    # fixed it, compile_file used parse.y where ruby parses with Prism
    # (RUBY_DESCRIPTION says "+PRISM"), so a script could be read by
    # another parser than under ruby, and its syntax errors worded otherwise.
    def compile_script(script)
      iseq = RubyVM::InstructionSequence
      if RUBY_DESCRIPTION.include?("+PRISM") && iseq.respond_to?(:compile_file_prism)
        iseq.compile_file_prism(script)
      else
        iseq.compile_file(script)
      end
    end

    # Where ruby -S finds script (dln_find_file_r in Ruby's dln_find.c):
    # the first regular file named so in a directory of RUBYPATH, then of
    # PATH ("" is the current directory, "~" home). Names starting with /,
    # ./ or ../ are not looked up. nil if none.
    def find_in_path(script, env = ENV)
      return nil if script.start_with?("/", "./", "../")

      [env["RUBYPATH"], env["PATH"]].compact.flat_map { |list| list.split(File::PATH_SEPARATOR, -1) }.each do |dir|
        dir = Dir.home + dir.delete_prefix("~") if dir == "~" || dir.start_with?("~/")
        candidate = dir.empty? ? script : File.join(dir, script)
        return candidate if File.file?(candidate)
      end
      nil
    end

    # After "no such file: rake": where -S looked, or that it would find it.
    def missing_script_hint(script, searched)
      if searched
        return "" if script.start_with?("/", "./", "../")

        return " (nor in #{ENV['RUBYPATH'] ? 'RUBYPATH or PATH' : 'PATH'}, where -S looks)"
      end
      return "" unless find_in_path(script)

      " (to run #{script} from PATH, as ruby -S does: tracegraph -S #{script} ...)"
    end
  end
end

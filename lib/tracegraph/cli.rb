# The `tracegraph` command. Parses options, runs the script in this process
# as `ruby script.rb` would, and writes the profile even if the script
# raises or exits. Exit status: the script's own (128 + the signal's
# number if a signal ended it, as a shell reports), or 1 if it was fine but
# the output could not be written, or 2 for bad usage.
#
# Output paths are made absolute before the script runs, so a script that
# changes directory (Dir.chdir, Process.daemon) cannot move them. A child
# the script forks without a block returns into this command when the
# script ends there; it writes its own files, with its pid in the name
# (call_graph.12345.dot), as under tracegraph/autorun.
require "optparse"
require "tracegraph"
require "tracegraph/output"
require "tracegraph/diff_cli"
require "tracegraph/render_cli"
require "tracegraph/graph_options"

module Tracegraph
  class CLI
    USAGE_ERROR = 2

    class UsageError < StandardError; end

    def initialize(out: $stdout, err: $stderr)
      @out = out
      @err = err
    end

    def run(argv)
      return DiffCLI.new(out: @out, err: @err).run(argv.drop(1)) if argv.first == "diff"
      return RenderCLI.new(out: @out, err: @err).run(argv.drop(1)) if argv.first == "render"

      argv = argv.dup
      options = parse(argv)
      return 0 if options == :done

      script, code = target(options, argv)
      options[:outputs].map! { |path| File.expand_path(path) }
      options[:outputs].each { |path| Output.check_path(path) }
      run_script(script, code, argv, options)
    rescue OptionParser::ParseError, UsageError => e
      @err.puts "tracegraph: #{e.message} (see tracegraph --help)"
      USAGE_ERROR
    rescue Tracegraph::Error, ArgumentError => e
      @err.puts "tracegraph: #{e.message}"
      USAGE_ERROR
    end

    private

    def parse(argv)
      options = {outputs: [], start: {}, dot: {}, flat: false, code: nil}
      parser = OptionParser.new do |o|
        o.banner = <<~TEXT
          Usage: tracegraph [options] script.rb [script args...]
                 tracegraph [options] -e 'ruby code'
                 tracegraph render [options] profile.json        (see tracegraph render --help)
                 tracegraph diff [options] base.json head.json   (see tracegraph diff --help)

          Profiles a Ruby program and writes its call graph. The format follows the
          output's name: #{Output.known_formats}
          (pdf/svg/png run Graphviz's dot and keep the .dot beside them; .folded is folded
          stacks for flame graphs; .pb.gz is pprof; .speedscope.json is for speedscope;
          callgrind is for KCachegrind).
          -o can be given more than once.
          Options may come before or after the script; arguments after `--` all go to
          the script: tracegraph -o g.pdf app.rb -- --app-flag

        TEXT
        o.on("-o", "--output PATH", "Write the profile here (default call_graph.dot)") { |v| options[:outputs] << v }
        o.on("-e CODE", "Profile this code instead of a script") { |v| options[:code] = v }
        o.on("-c", "--clock CLOCK", Tracegraph::CLOCKS.map(&:to_s), "wall (default), cpu or thread_cpu") do |v|
          options[:start][:clock] = v.to_sym
        end
        o.on("--no-c-calls", "Record only methods written in Ruby") { options[:start][:c_calls] = false }
        o.on("--call-tree", "Keep every distinct call path (implied by .folded, .pb.gz, .speedscope.json)") do
          options[:start][:call_tree] = true
        end
        o.on("--max-call-tree-nodes N", Integer,
             "Cap the call tree at N paths (default #{Tracegraph::DEFAULT_MAX_CALL_TREE_NODES}); deeper ones fold") do |v|
          unless v.between?(1, Tracegraph::MAX_CALL_TREE_NODES)
            raise OptionParser::InvalidArgument, "#{v} (from 1 to #{Tracegraph::MAX_CALL_TREE_NODES})"
          end

          options[:start][:max_call_tree_nodes] = v
        end
        GraphOptions.define(o, options[:dot])
        o.on("--flat", "Also print the top methods by self time to stderr") { options[:flat] = true }
        o.on("-h", "--help", "Show this help") do
          @out.puts o
          return :done
        end
        o.on("--version", "Show the version") do
          @out.puts "tracegraph #{Tracegraph::VERSION}"
          return :done
        end
      end
      parser.permute!(argv) # like ruby-prof: `--` passes the rest to the script untouched
      options[:outputs] << "call_graph.dot" if options[:outputs].empty?
      options[:start][:call_tree] = true if Output.needs_call_tree?(options[:outputs])
      Tracegraph::DotOptions.parse(options[:dot]) # fail before running anything
      options
    end

    def target(options, argv)
      return ["-e", options[:code]] if options[:code]

      script = argv.shift or raise UsageError, "no script given"
      raise Tracegraph::Error, "no such file: #{script}" unless File.file?(script)

      RenderCLI.check_script(script)

      [script, nil]
    end

    def run_script(script, code, argv, options)
      parent_pid = Process.pid
      status = with_program(script, argv) do
        Tracegraph.profile_script(script, code: code, **options[:start])
      rescue Exception => e # rubocop:disable Lint/RescueException -- report it as ruby would, then write the profile
        @err.print e.full_message(highlight: false)
        e.is_a?(SignalException) ? 128 + e.signo : 1
      end
      outputs = options[:outputs]
      outputs = outputs.map { |path| Output.path_for_child(path) } unless Process.pid == parent_pid
      write_outputs(Tracegraph.last_profile, options, outputs) ? status : [status, 1].max
    end

    # $0 and ARGV as if `ruby script args...` had been run.
    def with_program(script, argv)
      saved = [$PROGRAM_NAME, ARGV.dup]
      $PROGRAM_NAME = script
      ARGV.replace(argv)
      yield
    ensure
      $PROGRAM_NAME = saved[0]
      ARGV.replace(saved[1])
    end

    def write_outputs(profile, options, outputs)
      profile.print_flat(@err) if options[:flat]
      note = Output.folded_note(profile, outputs)
      @err.puts "tracegraph: #{note}" if note
      # Every output is tried: one that fails does not stop the others.
      outputs.map do |path|
        written = Output.write(profile, path, options[:dot])
        @err.puts Tracegraph.printable("tracegraph: wrote #{written.join(', ')}")
        true
      rescue Tracegraph::Error => e
        @err.puts Tracegraph.printable("tracegraph: #{e.message}")
        false
      end.all?
    end
  end
end

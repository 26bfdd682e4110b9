# `tracegraph render profile.json -o graph.svg`: draws a saved profile
# again, in any format and with any graph options, without running the
# program again. Exit status, as tracegraph diff's: 0, or 1 when an output
# could not be written, 2 for bad usage or an unreadable profile.
require "optparse"
require "tracegraph"
require "tracegraph/output/output"
require "tracegraph/cli/graph_options"

module Tracegraph
  class RenderCLI
    def initialize(out: $stdout, err: $stderr)
      @out = out
      @err = err
    end

    # `tracegraph profile.json` would run the JSON as Ruby. Ruby scripts
    # are not named .json, so the name alone decides, before anything is
    # read: raises Tracegraph::Error pointing at render.
    def self.check_script(script)
      return unless script.downcase.end_with?(".json", ".json.gz")

      name = Tracegraph.printable(script)
      raise Error, "#{name} is JSON, not a Ruby script; to draw a saved profile: tracegraph render #{name} -o graph.svg"
    end

    def run(argv)
      options = parse(argv.dup)
      return 0 if options == :done

      # Before the profile is read: a typo in a name fails at once.
      options[:outputs] = Output.check_paths(options[:outputs], format: options[:format])
      Output.check_group_by!(options[:outputs], options[:dot], flat: options[:flat])
      profile, options[:dot] = Output.viewed(profile_from(options[:files]), options[:dot])
      # Standard output carries the table, unless -o - sends the profile there.
      table = options[:outputs].any?(&:stdout?) ? @err : @out
      BrokenPipe.print_quietly(table) { Output.print_flat(profile, table, options[:dot]) } if options[:flat]
      write_outputs(profile, options) ? 0 : 1
    rescue OptionParser::ParseError, CLI::UsageError => e
      @err.puts Tracegraph.printable("tracegraph #{command}: #{e.message} (see tracegraph #{command} --help)")
      CLI::USAGE_ERROR
    rescue Tracegraph::Error, ArgumentError => e
      @err.puts Tracegraph.printable("tracegraph #{command}: #{e.message}")
      CLI::USAGE_ERROR
    end

    private

    def command = "render"

    def banner
      <<~TEXT
        Usage: tracegraph render [options] profile.json

        Draws a profile saved with -o profile.json (or Profile#write_json) again, with
        other graph options or in other formats, without running the program again.
        The format follows the output's name, as for tracegraph, or --format
        (-o - is standard output; a name ending in .gz is compressed):
        #{Output.known_formats}
        (.folded, .pb.gz, .speedscope.json and .firefox.json need a profile recorded with --call-tree).
        -o can be given more than once.

      TEXT
    end

    def check_files(files)
      raise CLI::UsageError, "needs one profile, profile.json (got #{files.size})" unless files.size == 1
    end

    def profile_from(files) = Profile.load_json(files.first)

    def default_outputs = ["call_graph.dot"]

    def output_help = "Write the profile here (default call_graph.dot unless --flat)"

    def parse(argv)
      options = {outputs: [], dot: {}, flat: false, format: nil}
      parser = OptionParser.new do |o|
        o.banner = banner
        o.on("-o", "--output PATH", output_help) do |v|
          options[:outputs] << v
        end
        Output.define_format_option(o, options)
        GraphOptions.define(o, options[:dot])
        o.on("--flat", "Print the top methods by self time") { options[:flat] = true }
        o.on("-h", "--help", "Show this help") do
          @out.puts o
          return :done
        end
      end
      parser.permute!(argv)
      check_files(argv)
      options[:files] = argv
      options[:outputs].concat(default_outputs) if options[:outputs].empty? && !options[:flat]
      DotOptions.parse(options[:dot].except(*VIEW_OPTIONS))
      Profile.idle_choice(options[:dot][:idle]) if options[:dot].key?(:idle)
      options[:dot][:idle] ||= :auto # working time first, as the command (Output.idle_for)
      options
    end

    def write_outputs(profile, options)
      ok, messages = Output.write_each(options[:outputs], "tracegraph #{command}") do |path|
        Output.write(profile, path, options[:dot])
      end
      note = Output.grouping_note(profile, options[:outputs], options[:dot])
      messages << "tracegraph #{command}: #{note}" if note
      note = Output.group_by_note(options[:outputs], options[:dot])
      messages << "tracegraph #{command}: #{note}" if note
      BrokenPipe.print_quietly(@err) { messages.each { |message| @err.puts message } }
      ok
    rescue RenderInterrupted => e
      BrokenPipe.print_quietly(@err) { @err.puts e.report("tracegraph #{command}") }
      e.end_process
    end
  end
end

# `tracegraph diff base.json head.json`: what got slower from a base run
# to a head run, as a graph and/or a table for CI logs, with an optional
# gate. Exit status: 0, or 3 when --fail-above is exceeded, 1 when an
# output could not be written, 2 for bad usage or unreadable profiles.
require "optparse"
require "tracegraph"
require "tracegraph/output"

module Tracegraph
  class DiffCLI
    REGRESSION = 3

    def initialize(out: $stdout, err: $stderr)
      @out = out
      @err = err
    end

    def run(argv)
      options = parse(argv.dup)
      return 0 if options == :done

      options[:outputs].each { |path| Output.check_graph_path(path) }
      base, head = options[:files].map { |path| Profile.load_json(path) }
      diff = base.diff(head)
      diff.print_text(@out, limit: options[:limit], normalize: options[:dot].fetch(:normalize, false)) if options[:text]
      written = write_outputs(diff, options)
      gate(diff, options[:fail_above]) || (written ? 0 : 1)
    rescue OptionParser::ParseError, CLI::UsageError => e
      @err.puts "tracegraph diff: #{e.message} (see tracegraph diff --help)"
      CLI::USAGE_ERROR
    rescue Tracegraph::Error, ArgumentError => e
      @err.puts "tracegraph diff: #{e.message}"
      CLI::USAGE_ERROR
    end

    private

    def parse(argv)
      options = {outputs: [], dot: {}, text: false, limit: 10, fail_above: nil}
      parser = OptionParser.new do |o|
        o.banner = <<~TEXT
          Usage: tracegraph diff [options] base.json head.json

          Compares two profiles written with -o profile.json: the graph is drawn for head,
          red where self time grew, blue where it shrank, dashed for what vanished.

        TEXT
        o.on("-o", "--output PATH", "Write the diff graph (.dot .pdf .svg .png; default diff.dot unless --text)") do |v|
          options[:outputs] << v
        end
        o.on("--text", "Print the top regressions and improvements") { options[:text] = true }
        o.on("--limit N", Integer, "Rows of each in --text (default 10)") { |v| options[:limit] = v }
        o.on("--normalize", "Scale base to head's total time first") { options[:dot][:normalize] = true }
        o.on("--fail-above PCT", Float, "Exit with status 3 if total time grew by more than PCT percent") do |v|
          options[:fail_above] = v
        end
        o.on("--node-fraction F", Float, "Hide methods under this share of total time") { |v| options[:dot][:node_fraction] = v }
        o.on("--edge-fraction F", Float, "Hide calls under this share of total time") { |v| options[:dot][:edge_fraction] = v }
        o.on("--max-nodes N", Integer, "Show at most N methods (0 = all)") { |v| options[:dot][:max_nodes] = v }
        o.on("-h", "--help", "Show this help") do
          @out.puts o
          return :done
        end
      end
      parser.permute!(argv)
      raise CLI::UsageError, "--limit must be positive" unless options[:limit].positive?
      raise CLI::UsageError, "needs two profiles, base.json and head.json (got #{argv.size})" unless argv.size == 2

      options[:files] = argv
      options[:outputs] << "diff.dot" if options[:outputs].empty? && !options[:text]
      DiffDotOptions.parse(options[:dot])
      options
    end

    def write_outputs(diff, options)
      # Every output is tried: one that fails does not stop the others.
      options[:outputs].map do |path|
        @err.puts Tracegraph.printable("tracegraph diff: wrote #{Output.write_graph(diff, path, options[:dot]).join(', ')}")
        true
      rescue Tracegraph::Error => e
        @err.puts Tracegraph.printable("tracegraph diff: #{e.message}")
        false
      end.all?
    end

    # nil when there is no gate or it holds; REGRESSION when it fails.
    def gate(diff, limit)
      return nil unless limit

      change = diff.total_change_percent || 0.0
      verdict = change > limit ? "more than" : "within"
      @err.puts format("tracegraph diff: total time %+.1f%%, %s the allowed %+.1f%%", change, verdict, limit)
      change > limit ? REGRESSION : nil
    end
  end
end

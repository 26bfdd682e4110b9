# `tracegraph diff base.json head.json`: what got slower from a base run
# to a head run, as a graph, an HTML report and/or a table for CI logs, with an optional
# gate (tracegraph/comparison/diff_gate): on total time (--fail-above), on each
# method's self time (--fail-on-time), on call counts (--fail-on-calls)
# and on each method's own allocations (--fail-on-allocations).
# --size-by allocations draws the graph by the change in each method's own
# allocations instead of its self time.
# Exit status: 0, or 3 when the gate fails, 4 when no check failed but one
# could not tell (the noise between runs wider than its limit), 1 when an
# output could not be written, 2 for bad usage or unreadable profiles.
require "optparse"
require "tracegraph"
require "tracegraph/output/output"

module Tracegraph
  class DiffCLI
    REGRESSION = 3
    UNDECIDED = 4

    def initialize(out: $stdout, err: $stderr)
      @out = out
      @err = err
    end

    def run(argv)
      options = parse(argv.dup)
      return 0 if options == :done

      options[:outputs] = options[:outputs].map { |path| Output.check_diff_path(path, format: options[:format]) }
      if options[:outputs].count(&:stdout?) > 1
        raise Error, "only one output can go to standard output (got #{options[:outputs].select(&:stdout?).join(', ')})"
      end
      # Both grouped the same way, so the rows, the graph and the gate compare groups.
      base, head = options[:files].map { |path| Profile.load_json(path).group_by(options[:group_by]) }
      diff = base.diff(head)
      gate = build_gate(diff, options) # refuses times of different clocks before anything is written
      diff.check_allocations!("drawn") if options[:outputs].any? && options[:dot][:size_by] == "allocations"
      if options[:text]
        # Standard output carries the text, unless -o - sends the graph there.
        text = options[:outputs].any?(&:stdout?) ? @err : @out
        BrokenPipe.print_quietly(text) do
          diff.print_text(text, limit: options[:limit], normalize: options[:dot].fetch(:normalize, false))
        end
      end
      written = write_outputs(diff, options, gate)
      return (written ? 0 : 1) unless gate

      BrokenPipe.print_quietly(@err) { gate.report(@err) }
      return REGRESSION if gate.failed?
      return UNDECIDED if gate.undecided?

      written ? 0 : 1
    rescue OptionParser::ParseError, CLI::UsageError => e
      @err.puts "tracegraph diff: #{e.message} (see tracegraph diff --help)"
      CLI::USAGE_ERROR
    rescue Tracegraph::Error, ArgumentError => e
      @err.puts Tracegraph.printable("tracegraph diff: #{e.message}")
      CLI::USAGE_ERROR
    end

    private

    def parse(argv)
      options = {outputs: [], dot: {}, group_by: :method, text: false, format: nil, limit: 10, fail_above: nil, ignore: [], min_share: 5.0,
                 time: {default: nil, methods: {}}, calls: {default: nil, methods: {}},
                 allocations: {default: nil, methods: {}}}
      parser = OptionParser.new do |o|
        o.banner = <<~TEXT
          Usage: tracegraph diff [options] base.json head.json

          Compares two profiles written with -o profile.json: the graph is drawn for head,
          red where self time grew, blue where it shrank, dashed for what vanished.

        TEXT
        define_output_options(o, options)
        define_gate_options(o, options)
        define_graph_options(o, options)
        o.on("-h", "--help", "Show this help") do
          @out.puts o
          return :done
        end
      end
      parser.permute!(argv)
      raise CLI::UsageError, "--limit must be positive" unless options[:limit].positive?
      raise CLI::UsageError, "needs two profiles, base.json and head.json (got #{argv.size})" unless argv.size == 2

      options[:files] = argv
      # Without -o, the text on standard output, and no file left where it ran.
      options[:text] = true if options[:outputs].empty?
      DiffDotOptions.parse(options[:dot])
      options
    end

    # What is written: -o, --format, --text, --limit.
    def define_output_options(o, options)
      o.on("-o", "--output PATH", "Write the diff graph (.dot .pdf .svg .png; without -o, --text is printed and no file",
           "is written)",
           "or the HTML diff report (.html: graph, table of changes, gate); - is standard output") do |v|
        options[:outputs] << v
      end
      o.on("--format FORMAT", %w[dot svg png pdf html], "The format of -o - and of outputs whose name has none:",
           "dot, svg, png, pdf, html") { |v| options[:format] = v }
      o.on("--text", "Print the top regressions and improvements") { options[:text] = true }
      o.on("--limit N", Integer, "Rows of each in --text (default 10)") { |v| options[:limit] = v }
    end

    # The gates (comparison/diff_gate.rb) and what they leave out.
    def define_gate_options(o, options)
      o.on("--fail-above PCT", Float, "Exit with status 3 if total time grew by more than PCT percent",
           "and by more than the noise between runs (see --runs)") do |v|
        options[:fail_above] = percent!(v, "--fail-above")
      end
      o.on("--fail-on-time LIMIT", "Exit 3 if a method's self time grew by more than LIMIT percent and the noise;",
           "4 if it could not tell (the noise wider than LIMIT); NAME=PCT sets one method's limit (repeatable)") do |v|
        limit!(options[:time], v, "--fail-on-time")
      end
      o.on("--fail-on-calls LIMIT", "Exit 3 if a method's call count changed by more than LIMIT percent",
           "either way (0: any change), and by more than it varied between runs (see --runs);",
           "NAME=PCT sets one method's limit (repeatable)") do |v|
        limit!(options[:calls], v, "--fail-on-calls")
      end
      o.on("--fail-on-allocations LIMIT", "Exit 3 if a method's own allocations grew by more than LIMIT percent",
           "(both profiles recorded with --allocations); NAME=PCT sets one method's limit") do |v|
        limit!(options[:allocations], v, "--fail-on-allocations")
      end
      o.on("--exempt NAME", "Leave this method (or glob: 'Kernel#require*') out of the per-method gates,",
           "and the calls it makes out of its callees' counts",
           "(the gates only: the graph still draws it; --hide hides from the graph)") do |v|
        options[:ignore] << v
      end
      # --exempt's older name. In tracegraph and render, --ignore hides
      # boxes; here it exempted methods from the gates, and CI scripts
      # still give it: it keeps that meaning, and says so once.
      o.on("--ignore NAME", "The same as --exempt (its older name; in tracegraph and render, --ignore hides)") do |v|
        unless options[:warned_ignore]
          @err.puts "tracegraph diff: --ignore is now --exempt: it leaves methods out of the gates " \
                    "(--hide hides them from the graph, as --ignore does in tracegraph and render)"
          options[:warned_ignore] = true
        end
        options[:ignore] << v
      end
      o.on("--min-share PCT", Float, "Skip methods under PCT percent of the total in --fail-on-time (default 5)") do |v|
        options[:min_share] = percent!(v, "--min-share")
      end
    end

    # The diff graph, and the grouping the text, the graph and the gates share.
    def define_graph_options(o, options)
      dot = options[:dot]
      o.on("--normalize", "Scale base to head's total time first") { dot[:normalize] = true }
      o.on("--node-fraction F", Float, "Hide methods under this share of total time") { |v| dot[:node_fraction] = v }
      o.on("--edge-fraction F", Float, "Hide calls under this share of total time") { |v| dot[:edge_fraction] = v }
      o.on("--max-nodes N", Integer, "Show at most N methods (0 = all)") { |v| dot[:max_nodes] = v }
      o.on("--focus REGEX", String, "Graph: draw only the call paths through methods matching REGEX (in either",
           "profile; exact when both have a call tree, else by methods)") { |v| dot[:focus] = v }
      # Not --ignore, which was the gates' (a glob, for CI scripts) before the graph could hide: --exempt now.
      o.on("--hide REGEX", String, "Graph: hide methods matching REGEX (in either profile); paths through them",
           "stay, dotted (what --ignore REGEX is in tracegraph render). The gates still check them") do |v|
        dot[:ignore] = DotOptions.regexp("--hide", v)
      end
      o.on("--size-by WHAT", %w[time allocations], "Size and colour boxes by the change in time (default) or in",
           "allocations (both profiles recorded with --allocations)") { |v| dot[:size_by] = v }
      o.on("--group-by WHAT", %w[method class file gem], "Compare per method (default), class, source file or gem:",
           "both profiles are grouped the same way, for the text, the graph and the gates") do |v|
        options[:group_by] = v.to_sym
      end
    end

    def write_outputs(diff, options, gate)
      ok, messages = Output.write_each(options[:outputs], "tracegraph diff") do |path|
        Output.write_diff(diff, path, options[:dot], gate: gate, group_by: options[:group_by])
      end
      BrokenPipe.print_quietly(@err) { messages.each { |message| @err.puts message } }
      ok
    rescue RenderInterrupted => e
      BrokenPipe.print_quietly(@err) { @err.puts e.report("tracegraph diff") }
      e.end_process
    end

    def percent!(value, option)
      raise CLI::UsageError, "#{option} needs a percentage of 0 or more, not #{value}" unless value.finite? && value >= 0

      value
    end

    # "PCT" sets the default limit, "NAME=PCT" one method's (a name may
    # itself end in "=": "Foo#bar==5" is Foo#bar= at 5%).
    def limit!(limits, value, option)
      name, eq, pct = value.rpartition("=")
      pct = begin
        Float(pct)
      rescue ArgumentError
        raise CLI::UsageError, "#{option} needs PCT or NAME=PCT, not #{value}"
      end
      percent!(pct, option)
      eq.empty? ? limits[:default] = pct : limits[:methods][name] = pct
    end

    # The DiffGate of the options given, or nil for none.
    def build_gate(diff, options)
      time = options[:time] if options[:time][:default] || options[:time][:methods].any?
      calls = options[:calls] if options[:calls][:default] || options[:calls][:methods].any?
      allocations = options[:allocations] if options[:allocations][:default] || options[:allocations][:methods].any?
      return nil unless options[:fail_above] || time || calls || allocations

      DiffGate.new(diff, total: options[:fail_above], time: time, calls: calls, allocations: allocations,
                         ignore: options[:ignore], min_share: options[:min_share],
                         normalize: options[:dot].fetch(:normalize, false))
    end
  end
end

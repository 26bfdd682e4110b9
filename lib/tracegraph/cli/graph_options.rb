# The graph flags, one for each of write_dot's options, defined once for
# `tracegraph` and `tracegraph render` so the two cannot drift apart.
require "optparse"

module Tracegraph
  module GraphOptions
    # write_dot's option => [flag, type, help line, ...]; defaults from Formats::Dot::DEFAULTS.
    FLAGS = {
      node_fraction: ["--node-fraction F", Float, "Hide methods under this share of total time (default %s)"],
      edge_fraction: ["--edge-fraction F", Float, "Hide calls under this share of total time (default %s)"],
      max_nodes: ["--max-nodes N", Integer, "Show at most N methods (default %s, 0 = all)"],
      focus: ["--focus REGEX", String, "Draw only the call paths through methods matching REGEX: exact with",
                    "a call tree (--call-tree), else by methods (what leads to them, what they call)"],
      # --hide too: the name tracegraph diff gives it, where --ignore is --exempt's older name.
      ignore: [["--ignore REGEX", "--hide REGEX"], String, "Hide methods matching REGEX (paths through them stay, dotted)"],
      split_hubs: ["--[no-]split-hubs", TrueClass,
                   "One box per caller for an iterator several methods call with their own blocks (default on)"],
      fold_chains: ["--[no-]fold-chains", TrueClass,
                    "Fold chains of frames that only pass the call on into one arrow (default on)"],
      size_by: ["--size-by WHAT", %w[time allocations],
                "Size, colour and pick boxes by time or allocations (needs --allocations; default %s)"],
      group_by: ["--group-by WHAT", %w[method class file gem],
                 "One box per method (default), class, source file, or gem (\"parser 3.1\", \"(ruby) json\", app).",
                 "Records the call tree, for exact totals"]
    }.freeze

    # Adds the flags to an OptionParser; each stores its value in
    # dot_options under write_dot's keyword. Check them with DotOptions.parse.
    def self.define(parser, dot_options)
      FLAGS.each do |key, (flag, type, *help)|
        help = help.map { |line| line.include?("%s") ? format(line, Formats::Dot::DEFAULTS[key]) : line }
        parser.on(*Array(flag), type, *help) { |value| dot_options[key] = value }
      end
      parser.on("--thread NAME|ID", String, "Show only this thread (a name, a glob such as 'puma srv tp *', or",
                "an id); give it again for more. Records the call tree") do |value|
        (dot_options[:threads] ||= []) << value
      end
      parser.on("--idle MODE", %w[show hide], "Waiting (sleep, join, I/O waits). Default: the graph and the tables",
                "leave it out and say how much and where (the data formats keep it); show: drawn",
                "grey and ranked with the rest; hide: left out of every output. Records the call tree") do |value|
        dot_options[:idle] = value.to_sym
      end
    end

    # True if the options ask for a view that needs the call tree.
    # A grouping's totals are exact from the call tree (model/group_by.rb).
    def self.needs_call_tree?(dot_options)
      dot_options.key?(:threads) || dot_options[:idle] == :hide ||
        (dot_options.key?(:group_by) && dot_options[:group_by].to_s != "method")
    end

    # A graph sized by allocations needs them: refused before the program
    # runs, not after. Raises ArgumentError.
    def self.check_allocations!(start_options, dot_options)
      return unless dot_options[:size_by].to_s == "allocations" && !start_options[:allocations]

      raise ArgumentError, "--size-by allocations needs allocation counts: record with allocations: true " \
                           "(tracegraph --allocations)"
    end
  end
end

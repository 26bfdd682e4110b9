# Every format tracegraph writes, in one table: its name, the file name
# suffixes that ask for it, the module that writes it, and what it needs.
# Output (output/output.rb) chooses a format by a path's name from this
# table, and Profile's write_X methods (formats/profile_methods.rb) hand
# the profile to the same modules. A new format is a new module in this
# folder and one row here.
#
# Each format's module loads when it is first used (autoload): a program
# that requires tracegraph and writes one format does not keep the others,
# with JSON, zlib and digest, in its heap. With them, `require
# "tracegraph"` left 6,200 objects live (now 3,900), and a small
# program's heap, that much fuller, collected more often: the accuracy
# bench's arithmetic workload 189 times a run (now 152; 108 without
# tracegraph), so the collector's share in its profile was partly ours.
require "tracegraph/formats/output_file"

module Tracegraph
  autoload :DotOptions, "tracegraph/formats/dot"
  autoload :FormatError, "tracegraph/formats/json"
  autoload :JsonLoader, "tracegraph/formats/json"
  autoload :RunSamplesLoader, "tracegraph/formats/json_run_samples"
  autoload :ProfileFile, "tracegraph/formats/profile_file"

  module Formats
    autoload :Dot, "tracegraph/formats/dot"
    autoload :Json, "tracegraph/formats/json"
    autoload :FlatTable, "tracegraph/formats/flat_table"
    autoload :Folded, "tracegraph/formats/folded"
    autoload :Callgrind, "tracegraph/formats/callgrind"
    autoload :Pprof, "tracegraph/formats/pprof"
    autoload :Speedscope, "tracegraph/formats/speedscope"
    autoload :Firefox, "tracegraph/formats/firefox"
    autoload :Html, "tracegraph/formats/html"
    autoload :Stacks, "tracegraph/formats/stacks"
    autoload :GraphvizRun, "tracegraph/formats/graphviz_run"
    autoload :GroupingAdvice, "tracegraph/formats/grouping_advice"
    autoload :HtmlGraph, "tracegraph/formats/html_graph"
    autoload :HtmlFlame, "tracegraph/formats/html_flame"

    # name:      the format's Symbol, as Output.format_of gives it
    # suffixes:  the file names that ask for it (a compound ".pb.gz" too)
    # writer:    the module whose write(profile, path, **options) writes it
    #            (named by a Symbol here, so that the table loads none)
    # graph:     drawn as a call graph: takes write_dot's options, and a
    #            ProfileDiff can be written in it too
    # graphviz:  rendered by Graphviz's `dot` from a .dot kept beside it
    # call_tree: what the format is called (its writer's NAME), if it is
    #            drawn from the call tree (one stack per path): asking for it
    #            records the tree
    # shows_call_tree: has a view of the call tree where there is one (the
    #            HTML report's flame graph), but is written without it too:
    #            asking for it records the tree unless --runs keeps medians
    # options:   its names for --format (-o - and names without a known
    #            suffix), the first for the first suffix, and so on
    # (Only JSON is read back, by Profile.load_json: Formats::Json.load.)
    Format = Struct.new(:name, :suffixes, :writer, :graph, :graphviz, :call_tree, :shows_call_tree, :options,
                        keyword_init: true) do
      def writer = Formats.const_get(self[:writer])
      def call_tree = self[:call_tree] && writer::NAME
    end

    # In the order `tracegraph --help` lists their suffixes.
    ALL = [
      Format.new(name: :dot, options: %w[dot], suffixes: %w[.dot], writer: :Dot, graph: true),
      Format.new(name: :json, options: %w[json], suffixes: %w[.json], writer: :Json),
      Format.new(name: :text, options: %w[txt], suffixes: %w[.txt], writer: :FlatTable),
      Format.new(name: :folded, options: %w[folded], suffixes: %w[.folded], writer: :Folded, call_tree: true),
      Format.new(name: :callgrind, options: %w[callgrind], suffixes: %w[.callgrind], writer: :Callgrind),
      Format.new(name: :pprof, options: %w[pprof], suffixes: %w[.pb.gz], writer: :Pprof, call_tree: true),
      Format.new(name: :speedscope, options: %w[speedscope], suffixes: %w[.speedscope.json], writer: :Speedscope, call_tree: true),
      Format.new(name: :firefox, options: %w[firefox], suffixes: %w[.firefox.json], writer: :Firefox, call_tree: true),
      Format.new(name: :html, options: %w[html], suffixes: %w[.html], writer: :Html, shows_call_tree: true),
      Format.new(name: :rendered, options: %w[pdf svg png], suffixes: %w[.pdf .svg .png], writer: :Dot, graph: true, graphviz: true)
    ].each(&:freeze).freeze

    BY_NAME = ALL.to_h { |format| [format.name, format] }.freeze

    # The names callgrind itself writes, which KCachegrind and
    # callgrind_annotate look for: callgrind.out, callgrind.out.app.
    CALLGRIND_NAME = /\Acallgrind\.out(\..+)?\z/i

    # The Format named name (a Symbol); raises KeyError for an unknown one.
    def self.named(name) = BY_NAME.fetch(name)
  end
end

# Every format tracegraph writes, in one table: its name, the file name
# suffixes that ask for it, the module that writes it, and what it needs.
# Output (output/output.rb) chooses a format by a path's name from this
# table, and Profile's write_X methods (formats/profile_methods.rb) hand
# the profile to the same modules. A new format is a new module in this
# folder and one row here.
require "tracegraph/formats/dot"
require "tracegraph/formats/json"
require "tracegraph/formats/flat_table"
require "tracegraph/formats/folded"
require "tracegraph/formats/callgrind"
require "tracegraph/formats/pprof"
require "tracegraph/formats/speedscope"
require "tracegraph/formats/firefox"
require "tracegraph/formats/html"

module Tracegraph
  module Formats
    # name:      the format's Symbol, as Output.format_of gives it
    # suffixes:  the file names that ask for it (a compound ".pb.gz" too)
    # writer:    the module whose write(profile, path, **options) writes it
    # graph:     drawn as a call graph: takes write_dot's options, and a
    #            ProfileDiff can be written in it too
    # graphviz:  rendered by Graphviz's `dot` from a .dot kept beside it
    # call_tree: what the format is called, if it is drawn from the call
    #            tree (one stack per path): asking for it records the tree
    # shows_call_tree: has a view of the call tree where there is one (the
    #            HTML report's flame graph), but is written without it too:
    #            asking for it records the tree unless --runs keeps medians
    # options:   its names for --format (-o - and names without a known
    #            suffix), the first for the first suffix, and so on
    # (Only JSON is read back, by Profile.load_json: Formats::Json.load.)
    Format = Struct.new(:name, :suffixes, :writer, :graph, :graphviz, :call_tree, :shows_call_tree, :options,
                        keyword_init: true)

    # In the order `tracegraph --help` lists their suffixes.
    ALL = [
      Format.new(name: :dot, options: %w[dot], suffixes: %w[.dot], writer: Dot, graph: true),
      Format.new(name: :json, options: %w[json], suffixes: %w[.json], writer: Json),
      Format.new(name: :text, options: %w[txt], suffixes: %w[.txt], writer: FlatTable),
      Format.new(name: :folded, options: %w[folded], suffixes: %w[.folded], writer: Folded, call_tree: Folded::NAME),
      Format.new(name: :callgrind, options: %w[callgrind], suffixes: %w[.callgrind], writer: Callgrind),
      Format.new(name: :pprof, options: %w[pprof], suffixes: %w[.pb.gz], writer: Pprof, call_tree: Pprof::NAME),
      Format.new(name: :speedscope, options: %w[speedscope], suffixes: %w[.speedscope.json], writer: Speedscope, call_tree: Speedscope::NAME),
      Format.new(name: :firefox, options: %w[firefox], suffixes: %w[.firefox.json], writer: Firefox, call_tree: Firefox::NAME),
      Format.new(name: :html, options: %w[html], suffixes: %w[.html], writer: Html, shows_call_tree: true),
      Format.new(name: :rendered, options: %w[pdf svg png], suffixes: %w[.pdf .svg .png], writer: Dot, graph: true, graphviz: true)
    ].each(&:freeze).freeze

    BY_NAME = ALL.to_h { |format| [format.name, format] }.freeze

    # The names callgrind itself writes, which KCachegrind and
    # callgrind_annotate look for: callgrind.out, callgrind.out.app.
    CALLGRIND_NAME = /\Acallgrind\.out(\..+)?\z/i

    # The Format named name (a Symbol); raises KeyError for an unknown one.
    def self.named(name) = BY_NAME.fetch(name)
  end
end

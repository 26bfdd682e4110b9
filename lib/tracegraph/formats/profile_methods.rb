# Profile's methods for each format, the public API docs/api.md shows
# (profile.write_json, Profile.load_json, ...). Each hands the profile to
# its format's module in this folder, where the format is written.
require "tracegraph/formats/registry"

module Tracegraph
  class Profile
    # The names these constants had when each format lived in Profile.
    DOT_DEFAULTS = Formats::Dot::DEFAULTS
    FOLDED_MAX_DEPTH = STACK_MAX_DEPTH
    SPEEDSCOPE_SCHEMA = Formats::Speedscope::SCHEMA

    # The call graph as a DOT string; see Formats::Dot.generate for the options.
    def to_dot(**options) = Formats::Dot.generate(self, **options)
    # Writes the DOT call graph to path; returns the path.
    #   dot -Tpdf call_graph.dot -o call_graph.pdf
    def write_dot(path = "call_graph.dot", **options) = Formats::Dot.write(self, path, **options)

    def to_h = Formats::Json.to_h(self)
    def to_json(*args) = Formats::Json.generate(self, *args)
    # Writes the profile as JSON; returns the path.
    def write_json(path, **view_options) = Formats::Json.write(self, path, **view_options)
    # Loads a profile from the JSON file at path; see Formats::Json.load.
    def self.load_json(path, max_bytes: nil) = Formats::Json.load(path, max_bytes: max_bytes)
    # Loads a profile from JSON text.
    def self.parse_json(text) = Formats::Json.parse(text)

    # Prints the flat table of the top methods by self time to io.
    def print_flat(io = $stdout, limit: 30, **view_options)
      Formats::FlatTable.print(self, io, limit: limit, **view_options)
    end

    def to_folded(**view_options) = Formats::Folded.generate(self, **view_options)
    def write_folded(path, **view_options) = Formats::Folded.write(self, path, **view_options)

    def to_callgrind(**view_options) = Formats::Callgrind.generate(self, **view_options)
    # Name it callgrind.out.<something> and KCachegrind recognises it.
    def write_callgrind(path = "callgrind.out.tracegraph", **view_options)
      Formats::Callgrind.write(self, path, **view_options)
    end

    def write_pprof(path, **view_options) = Formats::Pprof.write(self, path, **view_options)
    def write_speedscope(path, **view_options) = Formats::Speedscope.write(self, path, **view_options)
    def write_firefox(path, **view_options) = Formats::Firefox.write(self, path, **view_options)

    # The self-contained HTML report (table, method pages, call graph);
    # see Formats::Html. graph: false leaves out the graph (no Graphviz).
    def to_html(**options) = Formats::Html.generate(self, **options)
    def write_html(path = "profile.html", **options) = Formats::Html.write(self, path, **options)

    private

    # Streams a stack format to io (:folded, :pprof, :speedscope, :firefox).
    def write_stacks_to(format, io) = Formats::Stacks.stream(self, format, io)
  end
end

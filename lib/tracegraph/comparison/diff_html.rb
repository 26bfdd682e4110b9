# The diff report: `tracegraph diff a.json b.json -o d.html`, or
# ProfileDiff#write_html. One self-contained, offline page, in the same
# shell as the profile's report (Formats::Html.page: the data as
# script-safe JSON, a Content-Security-Policy that runs only the page's
# own scripts, by their hashes, and forbids every request), with a script
# of its own (formats/html/diff_report.js, after the helpers both pages
# share, formats/html/page_kit.js):
#   - the red/blue diff graph as ProfileDiff#to_dot draws it (its options:
#     normalize, size_by, the fractions, max_nodes), laid out by Graphviz
#     when the report is written, with pan, zoom and search;
#   - every method of either run, both sides' numbers and the change,
#     sorted by the size of the change in self, total, calls or
#     allocations (when both runs have them), filtered by name or file;
#   - a method's two sides: its callers and callees in base and in head;
#   - the gate's verdict, when a gate ran, at the top.
# Methods are matched by name, as in ProfileDiff#rows; a call between two
# names is the sum of the calls between methods of those names.
require "stringio"
require "tracegraph/version"
require "tracegraph/formats/html"
require "tracegraph/formats/html_graph"
require "tracegraph/comparison/diff_gate"

module Tracegraph
  class ProfileDiff
    # The diff report as a String; see DiffHtml.generate.
    def to_html(**options) = DiffHtml.generate(self, **options)

    # Writes the diff report to path; returns the path.
    def write_html(path = "diff.html", **options) = Tracegraph.write_output(path, to_html(**options))
  end

  module DiffHtml
    module_function

    # The report. gate: the DiffGate that judged this diff (its verdict is
    # shown at the top), or nil; graph: false leaves the graph out (no
    # Graphviz run); group_by: how both profiles were grouped before the
    # diff (Profile#group_by), which the page names; dot_options: to_dot's,
    # and normalize: scales the table's base times as it does the graph's.
    def generate(diff, gate: nil, graph: true, group_by: :method, **dot_options)
      o = DiffDotOptions.parse(dot_options)
      unless gate.nil? || gate.is_a?(DiffGate)
        raise ArgumentError, "gate must be a Tracegraph::DiffGate or nil, not #{gate.class}"
      end
      OptionChecks.boolean!(:graph, graph)
      unless Profile::GROUPINGS.include?(group_by)
        raise ArgumentError, "group_by must be one of #{Profile::GROUPINGS.join(', ')}, not #{group_by.inspect}"
      end

      svg, note = if graph then Formats::HtmlGraph.layout(diff.to_dot(**dot_options))
                  else [nil, "the graph view was left out (graph: false)"]
                  end
      Formats::Html.page(data(diff, o, gate, group_by, svg, note), title(diff),
                         scripts: %w[page_kit.js diff_report.js], styles: %w[report.css diff_report.css])
    end

    def title(diff)
      base, head = diff.base.program, diff.head.program
      "tracegraph diff: #{base == head ? base || 'profiles' : "#{base || 'base'} → #{head || 'head'}"}"
    end

    # What diff_report.js reads: rows and calls as arrays (the keys named
    # once, in the *_columns), times in nanoseconds (base's scaled when
    # normalized), allocations nil unless both runs have them.
    def data(diff, options, gate, group_by, svg, graph_note)
      normalize = options[:normalize]
      rows = diff.rows(normalize: normalize)
      index = rows.each_with_index.to_h { |r, i| [r.name, i] }
      scale = normalize ? diff.normalize_factor : 1.0
      {
        "tracegraph" => VERSION, "base" => side(diff.base), "head" => side(diff.head),
        "total_change_percent" => diff.total_change_percent, "normalized" => normalize,
        "normalize_factor" => diff.normalize_factor, "size_by" => options[:size_by].to_s,
        "group_by" => group_by.to_s, "allocations" => diff.allocations?,
        "row_columns" => %w[name file line c_method status base_calls head_calls base_self head_self
                            base_total head_total base_allocations head_allocations],
        "rows" => rows.map do |r|
          [r.name, r.file && Tracegraph.short_path(r.file), r.line, r.c_method, r.status.to_s, r.base_calls, r.head_calls,
           r.base_self, r.head_self, r.base_total, r.head_total, r.base_allocations, r.head_allocations]
        end,
        "edge_columns" => %w[caller callee calls total],
        "base_edges" => edges(diff.base, index, scale), "head_edges" => edges(diff.head, index, 1.0),
        "gate" => gate && gate_data(gate),
        "svg" => svg, "graph_note" => graph_note
      }
    end

    def side(profile)
      {"program" => profile.program&.to_s, "clock" => profile.clock.to_s, "total_time" => profile.total_time,
       "total_calls" => profile.total_calls, "total_allocations" => profile.total_allocations,
       "runs" => profile.runs ? profile.runs.count : 1}
    end

    # A profile's calls between names, summed: [caller row, callee row,
    # calls, total time].
    def edges(profile, index, scale)
      sums = Hash.new { |h, k| h[k] = [0, 0] }
      profile.edges.each do |e|
        sum = sums[[index.fetch(e.caller.name), index.fetch(e.callee.name)]]
        sum[0] += e.calls
        sum[1] += e.total_time
      end
      sums.map { |(caller, callee), (calls, total)| [caller, callee, calls, (total * scale).round] }
    end

    # The gate's verdict, its report's lines (without the command's
    # prefix) and the names of the methods it failed.
    def gate_data(gate)
      report = StringIO.new
      gate.report(report)
      {"failed" => gate.failed?, "checks" => gate.checks.size, "failures" => gate.failures.size,
       "undecided" => gate.undecided.size,
       "failed_names" => gate.failures.filter_map(&:name).uniq,
       "lines" => report.string.lines.map { |line| line.chomp.delete_prefix("tracegraph diff: ") }}
    end
  end
end

# The call graph for the HTML report's graph view: the DOT writer's graph
# (Formats::Dot, its defaults) laid out by Graphviz's `dot -Tsvg`. Unlike
# `-o x.svg` (output/graphviz_output.rb, a layer above this one), a missing,
# failing or slow `dot`, or a TRACEGRAPH_DOT_TIMEOUT that is no number,
# does not fail the report: it is written without the graph view and says
# why, since its table and method pages need no layout.
require "tracegraph/formats/dot"
require "tracegraph/formats/graphviz_run"

module Tracegraph
  module Formats
    module HtmlGraph
      module_function

      # [the SVG as a String, nil] or [nil, why there is no graph].
      def svg(profile, **dot_options) = layout(Dot.generate(profile, **dot_options))

      # The same for any DOT text (a diff's graph too).
      def layout(dot)
        require "tempfile" # on first use: it costs every `require "tracegraph"` 8 ms
        Tempfile.create(["tracegraph-report", ".dot"]) do |file|
          file.write(dot)
          file.close
          run_dot(file.path)
        end
      end

      # dot's SVG of dot_path, stopped after TRACEGRAPH_DOT_TIMEOUT
      # (GraphvizRun).
      def run_dot(dot_path)
        require "tempfile" # on first use: it costs every `require "tracegraph"` 8 ms
        limit = GraphvizRun.timeout
        Tempfile.create(["tracegraph-report", ".svg"]) do |out|
          Tempfile.create("tracegraph-report-err") do |err|
            unless (status = GraphvizRun.run(["dot", "-Tsvg", dot_path], limit, out: out.path, err: err))
              return [nil, "Graphviz did not lay the graph out within #{format('%g', limit)} s " \
                           "(TRACEGRAPH_DOT_TIMEOUT=seconds allows longer)"]
            end
            unless status.success?
              return [nil, "Graphviz could not lay the graph out (#{File.read(err.path).lines.first&.strip})"]
            end

            [File.read(out.path, encoding: "UTF-8"), nil]
          end
        end
      rescue Errno::ENOENT
        [nil, "Graphviz's `dot` was not installed when this report was written (apt-get install graphviz)"]
      rescue Error => e # a timeout setting that is not a number of seconds
        [nil, "Graphviz was not run: #{e.message}"]
      end
    end
  end
end

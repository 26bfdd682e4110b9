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
        scratch_file(".dot") do |dot_path|
          File.write(dot_path, dot)
          run_dot(dot_path)
        end
      end

      # dot's SVG of dot_path, stopped after TRACEGRAPH_DOT_TIMEOUT
      # (GraphvizRun).
      def run_dot(dot_path)
        limit = GraphvizRun.timeout
        scratch_file(".svg") do |out|
          scratch_file(".err") do |err|
            unless (status = GraphvizRun.run(["dot", "-Tsvg", dot_path], limit, out: out, err: err))
              return [nil, "Graphviz did not lay the graph out within #{format('%g', limit)} s " \
                           "(TRACEGRAPH_DOT_TIMEOUT=seconds allows longer)"]
            end
            unless status.success?
              return [nil, "Graphviz could not lay the graph out (#{File.read(err).lines.first&.strip})"]
            end

            [File.read(out, encoding: "UTF-8"), nil]
          end
        end
      rescue Errno::ENOENT
        [nil, "Graphviz's `dot` was not installed when this report was written (apt-get install graphviz)"]
      rescue Error => e # a timeout setting that is not a number of seconds
        [nil, "Graphviz was not run: #{e.message}"]
      end

      # Yields the path of a new, empty file of ours in the temporary
      # directory, and removes it after. Not Tempfile: a report is written
      # from signal handlers (trap("USR2") { Tracegraph.stop.write_html }),
      # where Ruby loads no code, and loading it up front would cost every
      # `require "tracegraph"` 10 ms and 2,600 objects the program's
      # collector then walks.
      def scratch_file(suffix)
        dir = ENV["TMPDIR"]
        dir = "/tmp" unless dir && File.directory?(dir) && File.writable?(dir)
        path = nil
        begin
          path = File.join(dir, format("tracegraph-report-%d-%08x%s", Process.pid, rand(1 << 32), suffix))
          File.open(path, File::WRONLY | File::CREAT | File::EXCL, 0o600, &:close)
        rescue Errno::EEXIST
          retry
        end
        begin
          yield path
        ensure
          File.delete(path) if File.exist?(path)
        end
      end
    end
  end
end

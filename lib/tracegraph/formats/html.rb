# One self-contained HTML report, opened offline by double-click: a
# summary it opens on (html/summary.js: what was profiled, the heaviest
# methods and paths, the command's grouping advice), a
# sortable, filterable table of every method, a page per method with its
# callers and callees (exact calls, self, total, share), and the call
# graph as the DOT writer draws it, laid out by Graphviz at write time
# (formats/html_graph.rb), with pan, zoom and search, and the call tree's
# flame graph (formats/html_flame.rb, html/flame.js). The page's scripts
# (SCRIPTS, each its own <script>) and style (html/report.css) are
# inlined; nothing is fetched, and a Content-Security-Policy forbids any
# request.
#
# Names are data: the profile is embedded as JSON in a
# <script type="application/json"> that no name can close (<, >, &,
# U+2028 and U+2029 are written as \uXXXX), the script puts names into
# the page with textContent only, and the policy runs only the report's
# own scripts (by their hashes), so an inline handler (<img onerror=...>) in a
# name could not run even if it reached the DOM.
require "digest/sha2" # now: Digest::SHA256 would load at its first use, and a signal handler loads nothing
require "json"
require "tracegraph/version"
require "tracegraph/formats/output_file"
require "tracegraph/formats/html_graph"
require "tracegraph/formats/html_flame"
require "tracegraph/formats/grouping_advice"

module Tracegraph
  module Formats
    module Html
      ASSETS = File.join(__dir__, "html")
      # The page's scripts, inlined in this order, each allowed by its own
      # hash: page_kit.js holds what this page and the diff report share
      # (window.tracegraphPageKit: text-only DOM helpers, formatting, the
      # search box, the router, the graph view with its pan, zoom and
      # search, a method page's frame); report.js draws the
      # page and its views and exposes hooks (window.tracegraphReport)
      # through which the others add theirs: the call tree, unpacked and
      # counted for the threads and waiting chosen in the page
      # (html/call_tree.js), the flame graph (html/flame.js), Graphviz in
      # WebAssembly (vendor/README.md), and the focused graph that lays
      # out with it (html/focus_graph.js); the summary the report opens on
      # (html/summary.js).
      GRAPHVIZ = "vendor/viz-global.js"
      SCRIPTS = ["page_kit.js", "report.js", "call_tree.js", "flame.js", GRAPHVIZ, "focus_graph.js", "summary.js"].freeze
      SCRIPT_SAFE = {"<" => "\\u003c", ">" => "\\u003e", "&" => "\\u0026",
                     "\u2028" => "\\u2028", "\u2029" => "\\u2029"}.freeze

      module_function

      # The report as a String. graph: false leaves the graph view out
      # (no Graphviz run); threads: and idle: choose a view as for every
      # format (Profile#view); the rest are write_dot's options (focus:,
      # ignore:, max_nodes:, group_by: ...), which the graph view is drawn
      # with, and which the page opens on and names (drawn_with). The
      # table, the method pages and the flame and focus views keep every
      # method: they have their own focus, ignore and search.
      def generate(profile, graph: true, **options)
        profile, graph_options = profile.viewed(options)
        DotOptions.parse(graph_options) # an unknown option or a bad value is refused, not left out
        unless graph || graph_options.empty?
          raise ArgumentError, "#{graph_options.keys.join(', ')}: the graph view draws with them, and graph: false leaves it out"
        end
        if graph
          svg, note = HtmlGraph.svg(profile, **graph_options)
        else
          svg, note = [nil, "the graph view was left out (graph: false)"]
        end
        extra = {"advice" => graph ? advice(profile, graph_options) : nil, "drawn_with" => drawn_with(graph_options)}
        page(data(profile, svg, note).merge(extra), title(profile))
      end

      # The graph options that are not the DOT writer's defaults, as the
      # command's flags name them (cli/graph_options.rb: --max-nodes 3,
      # --no-split-hubs), for the page to say what its graph was drawn
      # with; [] for none.
      def drawn_with(graph_options)
        graph_options.reject { |key, value| Dot::DEFAULTS[key].to_s == value.to_s }.map do |key, value|
          flag = "--#{key.to_s.tr('_', '-')}"
          next value ? flag : flag.sub("--", "--no-") if [true, false].include?(value)

          "#{flag} #{value.is_a?(Regexp) ? value.source : value}"
        end
      end

      # The command's grouping advice for the report's graph (drawn with
      # graph_options), as the summary shows it, or nil where the
      # command gives none (a graph grouped already): its text, and where it recommends a grouping,
      # which, its numbers and its graph laid out by Graphviz (svg, or
      # svg_note: why not). A report without the graph (graph: false) has
      # none: grouping a big profile three ways costs seconds of write
      # time (docs/formats-and-viewers.md, "Scale").
      def advice(profile, graph_options = {})
        return nil if Profile.grouping(graph_options.fetch(:group_by, :method)) != :method

        advice = GroupingAdvice.advice(profile, graph_options)
        return nil unless advice

        g = advice.advised
        # (A focus matches methods' names: drawn from the methods, as the advice measured it.)
        svg, note = if g.nil? then [nil, nil]
                    elsif graph_options[:focus] then HtmlGraph.svg(profile, **graph_options, group_by: g.grouping)
                    else HtmlGraph.svg(g.profile, **graph_options)
                    end
        {"text" => advice.text, "group_by" => g&.grouping&.to_s, "held" => g&.held, "biggest" => g&.biggest,
         "biggest_share" => g&.biggest_share, "svg" => svg, "svg_note" => note}
      rescue Tracegraph::Error, ArgumentError # advice only, as the command's (Output.grouping_note)
        nil
      end

      # Writes the report to path; returns the path.
      def write(profile, path, **options) = Tracegraph.write_output(path, generate(profile, **options))

      # What the page's script reads: methods and edges as arrays (the
      # keys are named once, in "columns"), times in nanoseconds.
      def data(profile, svg, graph_note)
        allocations = profile.allocations?
        {
          "tracegraph" => VERSION, "title" => title(profile), "program" => profile.program&.to_s, "clock" => profile.clock.to_s,
          "recorded_by" => profile.recorded_by,
          "total_time" => profile.total_time, "wall_time" => profile.wall_time,
          "total_calls" => profile.total_calls, "total_allocations" => profile.total_allocations,
          "threads" => profile.threads.map { |t| {"name" => t.name, "total_time" => t.total_time} },
          "complete" => profile.complete?, "yjit" => profile.yjit?, "tracing_cost" => tracing_cost(profile),
          "method_columns" => %w[name file line calls total self c_method allocations self_allocations],
          "methods" => profile.methods.map do |m|
            [m.name, m.file && Tracegraph.short_path(m.file), m.line, m.calls, m.total_time, m.self_time,
             m.c_method ? true : false, allocations ? m.allocations : nil, allocations ? m.self_allocations : nil]
          end,
          "edge_columns" => %w[caller callee calls total self allocations],
          "edges" => profile.edges.map do |e|
            [profile.index_of(e.caller), profile.index_of(e.callee), e.calls, e.total_time, e.self_time,
             allocations ? e.allocations : nil]
          end,
          "svg" => svg, "graph_note" => graph_note,
          "flame" => HtmlFlame.data(profile), "no_call_tree" => HtmlFlame.missing_reason(profile)
        }.merge(waiting(profile))
      end

      # What the summary says of tracing's own cost, as the graph's legend
      # and the table's header do: "412 ms of 1.20 s, ± 25 ms" taken out,
      # or nil for raw times (raw_times: true), which hold it.
      def tracing_cost(profile) = profile.tracing_cost && Tracegraph.tracing_cost_summary(profile)

      # The waiting the header reports: the waiting methods' time, where it
      # was (Profile#waiting_where, with the threads that waited when the
      # call tree can count them), and "idle_default": "hide" when the
      # page can hide it (a call tree) and there is some, so the report
      # opens on working time, as the command's graph and tables do; or
      # the waiting a view left out before it was written (--idle hide).
      def waiting(profile)
        if profile.hidden_waiting.positive?
          return {"hidden_waiting" => profile.hidden_waiting, "waiting_where" => profile.waiting_where,
                  "idle_default" => "show"}
        end
        waited = profile.waiting_time
        hidden = profile.call_tree && waited.positive? ? profile.view(idle: :hide) : nil
        # Hidden, the waiting methods go with what they call (hidden_time).
        {"waiting_time" => waited, "waiting_hidden_time" => hidden&.hidden_waiting,
         "waiting_where" => (hidden || profile).waiting_where, "idle_default" => hidden ? "hide" : "show"}
      rescue Tracegraph::Error
        {"waiting_time" => waited, "waiting_where" => profile.waiting_where, "idle_default" => "show"}
      end

      # "tracegraph: " and what was profiled: the profile's title (a
      # request's "GET /posts 200 · PostsController#index · 412 ms"), else
      # its program.
      def title(profile) = "tracegraph: #{profile.title || profile.program || 'profile'}"

      # JSON that cannot end the <script> it sits in, nor be read as
      # markup: every <, >, & and line separator as a \u escape.
      def script_safe_json(value)
        JSON.generate(value).gsub(/[<>&\u2028\u2029]/, SCRIPT_SAFE)
      end

      def escape_text(text) = text.gsub(/[&<>"]/, "&" => "&amp;", "<" => "&lt;", ">" => "&gt;", '"' => "&quot;")

      # The inline scripts (files of ASSETS), each as it is, refusing one
      # that could end its <script> early.
      def inline_scripts(names = SCRIPTS)
        names.map do |name|
          text = File.read(File.join(ASSETS, name), encoding: "UTF-8")
          raise Error, "#{name} holds \"</script\" or \"<!--\": it cannot be inlined" if text.match?(%r{</script|<!--}i)

          text
        end
      end

      # Only the page's own scripts run, by their hashes; WebAssembly may
      # compile where a page has Graphviz (wasm), and nothing may be
      # fetched or connected to.
      def policy(scripts, wasm:)
        hashes = scripts.map { |s| "'sha256-#{Digest::SHA256.base64digest(s)}'" }.join(" ")
        "default-src 'none'; script-src #{hashes}#{" 'wasm-unsafe-eval'" if wasm}; " \
          "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
      end

      # The page around data: scripts (SCRIPTS by default) and styles are
      # files of ASSETS, inlined in their order; the policy runs those
      # scripts (by their hashes) and nothing else. The diff report
      # (comparison/diff_html.rb) has a script and a style of its own.
      def page(data, title, scripts: SCRIPTS, styles: %w[report.css])
        style = styles.map { |name| File.read(File.join(ASSETS, name), encoding: "UTF-8") }.join("\n")
        inline = inline_scripts(scripts)
        <<~HTML
          <!DOCTYPE html>
          <html lang="en">
          <head>
          <meta charset="utf-8">
          <meta http-equiv="Content-Security-Policy" content="#{policy(inline, wasm: scripts.include?(GRAPHVIZ))}">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <meta name="generator" content="tracegraph #{VERSION}">
          <title>#{escape_text(title)}</title>
          <style>#{style}</style>
          </head>
          <body>
          <noscript>This report needs JavaScript (its own, inlined; it fetches nothing).</noscript>
          <script type="application/json" id="profile-data">#{script_safe_json(data)}</script>
          #{inline.map { |s| "<script>#{s}</script>" }.join("\n")}
          </body>
          </html>
        HTML
      end
    end
  end
end

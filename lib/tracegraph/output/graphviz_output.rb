# Running Graphviz's `dot` on a call graph, within limits: a graph that
# dot will take long to lay out is announced before it starts, with how
# to make it smaller, and a render that takes too long is stopped, with
# the .dot kept. (rubocop with --max-nodes 0 is 6,847 boxes and 21,118
# arrows: dot had not finished after 120 s.)
require "tempfile"
require "tracegraph/formats/graphviz_run"

module Tracegraph
  # A signal (SIGINT from Ctrl-C, SIGTERM) stopped Graphviz while it drew
  # path: dot is gone, the partial path removed, dot_path kept. A
  # SignalException, so it ends a program as the signal would unless
  # rescued; kept lists what else was written before, for the message.
  class RenderInterrupted < SignalException
    attr_accessor :path, :dot_path, :kept

    def initialize(signo, path:, dot_path:)
      super(signo)
      @path = path
      @dot_path = dot_path
      @kept = []
    end

    # The one line a command prints before it ends by the signal.
    def report(label)
      also = kept.empty? ? "" : " (also written: #{kept.join(', ')})"
      Tracegraph.printable("#{label}: interrupted by #{signm} while Graphviz drew #{path}: stopped it and removed " \
                           "the partial file; the call graph is in #{dot_path}#{also}")
    end

    # Ends the process by the signal, as ruby does for one it does not
    # handle (so a shell sees 128+n: 130 for SIGINT, 143 for SIGTERM): a
    # plain SignalException, which ruby reports with no backtrace, and
    # re-raises with the default handler after its at_exit handlers.
    def end_process
      raise SignalException, signo
    end
  end

  module DotRender
    # Past these, dot's layout takes seconds to minutes (dot's rank and
    # crossing-minimisation passes grow faster than the edge count).
    LARGE_NODES = 400
    LARGE_EDGES = 1500

    module_function

    # [boxes, arrows] of a DOT file tracegraph wrote.
    def size_of(dot_path)
      nodes = edges = 0
      File.foreach(dot_path) do |line|
        if line.match?(/\A  N\d+ -> N\d+ /) then edges += 1
        elsif line.match?(/\A  N\d+ \[/) then nodes += 1
        end
      end
      [nodes, edges]
    end

    # A warning for a graph dot will be slow on, or nil.
    def size_warning(dot_path, nodes, edges)
      return nil if nodes <= LARGE_NODES && edges <= LARGE_EDGES

      "#{dot_path} has #{Tracegraph.group_digits(nodes)} boxes and #{Tracegraph.group_digits(edges)} arrows: " \
        "Graphviz may take minutes to lay it out (it stops after #{format('%g', timeout)} s). For a smaller graph: " \
        "--max-nodes #{Tracegraph::GRAPH_DEFAULTS[:max_nodes]} (the default), --node-fraction 0.01, or --focus REGEX"
    end

    def timeout = Formats::GraphvizRun.timeout

    # Runs dot; raises Tracegraph::Error if it fails, is missing or takes
    # longer than the timeout (then it is killed). dot runs in a process
    # group of its own, which the terminal's Ctrl-C does not reach, so a
    # signal that stops this process (SIGINT, SIGTERM) stops dot here: its
    # group is killed, the partial path removed, and RenderInterrupted
    # raised, at once. Its stderr goes to a file, not a pipe: no reader
    # thread is left to meet a closed stream.
    def run(dot_path, path, warn: ->(message) { $stderr.puts("tracegraph: #{message}") })
      limit = timeout
      nodes, edges = size_of(dot_path)
      if (message = size_warning(dot_path, nodes, edges))
        warn.call(message)
      end
      format = File.extname(path).delete_prefix(".").downcase
      Tempfile.create("tracegraph-dot-stderr") do |err|
        # Absolute paths: a name such as -Kfoo.svg cannot pass for an option.
        command = ["dot", "-T#{format}", File.expand_path(dot_path), "-o", File.expand_path(path)]
        status = spawn_and_wait(command, err, limit, dot_path, path)
        unless status
          raise Error, "Graphviz did not finish #{path} within #{format("%g", limit)} s (#{Tracegraph.group_digits(nodes)} " \
                       "boxes, #{Tracegraph.group_digits(edges)} arrows) and was stopped; the call graph is in " \
                       "#{dot_path}. Draw fewer boxes (--max-nodes, --node-fraction, --focus) or allow longer " \
                       "(TRACEGRAPH_DOT_TIMEOUT=seconds)"
        end
        unless status.success?
          raise Error, "Graphviz could not render #{path} (#{File.read(err.path).lines.first&.strip}); " \
                       "the call graph is in #{dot_path}"
        end
      end
    end

    # dot's status, or nil if it ran past limit seconds (0: no limit);
    # unless it finished, dot is stopped and the partial path removed
    # (Formats::GraphvizRun.run, which says why signals are held off
    # around the spawn). A signal's exception (Ctrl-C's Interrupt,
    # SIGTERM's SignalException) becomes RenderInterrupted.
    def spawn_and_wait(command, err, limit, dot_path, path)
      Formats::GraphvizRun.run(command, limit, err: err, partial: path)
    rescue SignalException => e
      raise RenderInterrupted.new(e.signo, path: path, dot_path: dot_path)
    end
  end
end

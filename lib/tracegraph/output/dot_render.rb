# Running Graphviz's `dot` on a call graph, within limits: a graph that
# dot will take long to lay out is announced before it starts, with how
# to make it smaller, and a render that takes too long is stopped, with
# the .dot kept. (rubocop with --max-nodes 0 is 6,847 boxes and 21,118
# arrows: dot had not finished after 120 s.)
require "open3"

module Tracegraph
  module DotRender
    # Past these, dot's layout takes seconds to minutes (dot's rank and
    # crossing-minimisation passes grow faster than the edge count).
    LARGE_NODES = 400
    LARGE_EDGES = 1500
    # TRACEGRAPH_DOT_TIMEOUT (seconds) overrides it; 0 waits for ever.
    DEFAULT_TIMEOUT = 120

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
        "--max-nodes 80 (the default), --node-fraction 0.01, or --focus REGEX"
    end

    def timeout
      value = ENV.fetch("TRACEGRAPH_DOT_TIMEOUT", DEFAULT_TIMEOUT.to_s)
      seconds = Float(value, exception: false)
      raise Error, "TRACEGRAPH_DOT_TIMEOUT must be a number of seconds, not #{value.inspect}" unless seconds&.>=(0)

      seconds
    end

    # Runs dot; raises Tracegraph::Error if it fails, is missing or takes
    # longer than the timeout (then it is killed).
    def run(dot_path, path, warn: ->(message) { $stderr.puts("tracegraph: #{message}") })
      limit = timeout
      nodes, edges = size_of(dot_path)
      if (message = size_warning(dot_path, nodes, edges))
        warn.call(message)
      end
      format = File.extname(path).delete_prefix(".").downcase
      # Absolute paths: a name such as -Kfoo.svg cannot pass for an option.
      Open3.popen3("dot", "-T#{format}", File.expand_path(dot_path), "-o", File.expand_path(path),
                   pgroup: true) do |stdin, stdout, stderr, thread|
        stdin.close
        readers = [stdout, stderr].map { |io| Thread.new { io.read } }
        unless thread.join(limit.zero? ? nil : limit)
          stop(thread.pid)
          [thread, *readers].each(&:join) # the pipes close as dot dies
          File.delete(path) if File.exist?(path)
          raise Error, "Graphviz did not finish #{path} within #{format("%g", limit)} s (#{Tracegraph.group_digits(nodes)} " \
                       "boxes, #{Tracegraph.group_digits(edges)} arrows) and was stopped; the call graph is in " \
                       "#{dot_path}. Draw fewer boxes (--max-nodes, --node-fraction, --focus) or allow longer " \
                       "(TRACEGRAPH_DOT_TIMEOUT=seconds)"
        end
        err = readers.map(&:value).last.to_s # both joined: the block's end closes the pipes
        unless thread.value.success?
          raise Error, "Graphviz could not render #{path} (#{err.lines.first&.strip}); the call graph is in #{dot_path}"
        end
      end
    end

    def stop(pid)
      Process.kill(:KILL, -pid)
    rescue Errno::ESRCH
      nil
    end
  end
end

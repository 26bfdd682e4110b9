# speedscope's file format (https://www.speedscope.app/file-format-schema.json),
# which speedscope opens as it is, drag and drop or `speedscope x.speedscope.json`.
#   {"$schema": ".../file-format-schema.json", "exporter": "tracegraph 0.1.0",
#    "name": "app.rb", "activeProfileIndex": 0,
#    "shared": {"frames": [{"name": "Object#work", "file": "app.rb", "line": 1}, ...]},
#    "profiles": [{"type": "sampled", "name": "main", "unit": "nanoseconds",
#                  "startValue": 0, "endValue": 1234567,
#                  "samples": [[0], [0, 1], ...], "weights": [3000, 1200000, ...]}, ...]}
# One frame per method, shared; one sampled profile per thread, with one
# sample per call path (frame indexes from the bottom) weighted by that
# path's self time, so each profile's weights add up to its thread's time
# and speedscope's "total" of a frame in its left-heavy and sandwich views
# is our total time for that path. Paths without self time are left out.
# Needs a profile recorded with call_tree: true. Written as the tree is
# walked, never as one string.
require "json"
require "tracegraph/call_paths"

module Tracegraph
  class Profile
    SPEEDSCOPE_SCHEMA = "https://www.speedscope.app/file-format-schema.json"

    def write_speedscope(path)
      require_call_tree!("speedscope's format")
      Tracegraph.stream_output(path) { |io| write_speedscope_to(io) }
    end

    private

    def write_speedscope_to(io)
      io << "{" << JSON.generate("$schema") << ":" << JSON.generate(SPEEDSCOPE_SCHEMA)
      io << ',"exporter":' << JSON.generate("tracegraph #{Tracegraph::VERSION}")
      io << ',"name":' << JSON.generate(program || "tracegraph profile")
      io << ',"activeProfileIndex":0,"shared":{"frames":['
      methods.each_with_index do |m, i|
        frame = {"name" => m.name}
        frame["file"] = m.file if m.file
        frame["line"] = m.line if m.line
        io << (i.zero? ? "" : ",") << JSON.generate(frame)
      end
      io << ']},"profiles":['
      call_tree_threads.each_with_index do |thread, i|
        io << (i.zero? ? "" : ",")
        write_speedscope_thread(io, thread)
      end
      io << "]}\n"
    end

    # One thread's sampled profile: samples first, then their weights.
    def write_speedscope_thread(io, thread)
      total = 0
      io << '{"type":"sampled","name":' << JSON.generate(thread ? thread.name : "all threads")
      io << ',"unit":"nanoseconds","startValue":0,"samples":['
      first = true
      each_call_path(thread) do |node, frames|
        next if node.self_time.zero?

        io << (first ? "" : ",") << "[" << frames.map { |m| index_of(m) }.join(",") << "]"
        first = false
        total += node.self_time
      end
      io << '],"weights":['
      first = true
      each_call_path(thread) do |node, _|
        next if node.self_time.zero?

        io << (first ? "" : ",") << node.self_time.to_s
        first = false
      end
      io << '],"endValue":' << total.to_s << "}"
    end
  end
end

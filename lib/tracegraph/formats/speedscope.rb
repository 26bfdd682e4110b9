# speedscope's file format (https://www.speedscope.app/file-format-schema.json),
# which speedscope opens as it is, drag and drop or `speedscope x.speedscope.json`.
#   {"$schema": ".../file-format-schema.json", "exporter": "tracegraph 0.1.0",
#    "name": "app.rb", "activeProfileIndex": 0,
#    "shared": {"frames": [{"name": "Object#work", "file": "app.rb", "line": 1}, ...]},
#    "profiles": [{"type": "evented", "name": "main", "unit": "nanoseconds",
#                  "startValue": 0, "endValue": 1234567,
#                  "events": [{"type": "O", "frame": 0, "at": 0},
#                             {"type": "O", "frame": 1, "at": 3000}, ...,
#                             {"type": "C", "frame": 0, "at": 1234567}]}, ...]}
# One frame per method, shared; one evented profile per thread, in which
# each call-tree node opens its frame, its self time passes, its children
# follow and it closes: two events a node, so the file grows with the
# paths, not with their depth (the sampled form repeats each path's whole
# stack). The times lay each thread's self times end to end, so
# speedscope's self and total of every frame are ours (recursion counted
# once), and its "time order" view is the tree, not when calls happened.
# Needs a profile recorded with call_tree: true. Streamed from C
# (tg_stacks_write_speedscope) as the tree is walked.
require "tracegraph/formats/stacks"

module Tracegraph
  module Formats
    module Speedscope
      NAME = "speedscope's format"
      SCHEMA = "https://www.speedscope.app/file-format-schema.json"

      module_function

      def write(profile, path, **view_options) = Stacks.write(profile, path, :speedscope, NAME, view_options)
    end
  end
end

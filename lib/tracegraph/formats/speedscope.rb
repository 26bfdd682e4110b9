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

# The Firefox Profiler's processed profile format (profiler.firefox.com,
# "Load a profile from file"), version 47, which the profiler upgrades to
# its current version as it loads the file (processed-profile-versioning
# in github.com/firefox-devtools/profiler). Its Gecko format, which the
# profiler also upgrades, has no sample weights, so a traced profile's
# self times need this one.
#   {"meta": {"version": 27, "preprocessedProfileVersion": 47, "interval": 1,
#             "product": "app.rb (tracegraph, wall clock)", "categories": [...],
#             "markerSchema": [], ...},
#    "libs": [],
#    "threads": [{"name": "main", "isMainThread": true, "pid": "0", "tid": 0,
#                 "samples": {"weightType": "tracing-ms", "stack": [...],
#                             "time": [...], "weight": [1.25, ...], "length": n},
#                 "stackTable": {"frame": [...], "prefix": [null, 0, ...], ...},
#                 "frameTable": {...}, "funcTable": {...},
#                 "stringArray": ["Object#work", "app.rb", ...], ...}, ...]}
# One thread per profile thread, each with its own tables, as the format
# has them: a stack per call-tree path (its prefix is the caller's path), a
# frame and a func per method the thread ran (name, file, line), and one
# sample per path with self time, weighted by that self time in
# milliseconds (weight type tracing-ms). The profiler's call tree then
# shows our total and self times. Sample times only lay the self times
# end to end in depth-first order: the file has no timeline. Needs a
# profile recorded with call_tree: true. Streamed from C
# (tg_stacks_write_firefox) as the tree is walked.
require "tracegraph/formats/stacks"

module Tracegraph
  module Formats
    module Firefox
      NAME = "the Firefox Profiler's format"

      module_function

      def write(profile, path, **view_options) = Stacks.write(profile, path, :firefox, NAME, view_options)
    end
  end
end

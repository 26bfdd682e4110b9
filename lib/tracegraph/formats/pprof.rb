# pprof: a gzipped profile.proto (github.com/google/pprof, proto/profile.proto),
# read by `go tool pprof` (-top, -traces, -web, -http), Grafana Pyroscope
# and every pprof viewer.
#
# Encoded by hand in C (tg_stacks_write_pprof), as pprof's own
# profile/proto.go does: varints and length-delimited fields, no generated
# code, streamed through Ruby's zlib as the tree is walked. What we write:
#   sample_type    calls/count, time/nanoseconds (the default), and
#                  alloc_objects/count for a profile with allocations
#   sample         one per call-tree path: location_id from the leaf down,
#                  value [calls, self time(, self allocations)],
#                  label thread: NAME
#   mapping        one, for the program, marked as symbolized already
#   location       one per method, with one line pointing at its function
#   function       one per method: name, filename, start_line; no
#                  system_name, so that pprof does not take the name for
#                  C++ and cut what is between < > and ( ); a name that
#                  begins with a namespace fully qualified (::Foo::Bar#x),
#                  so that pprof's graphs do not cut it to two parts
#   string_table   "" first, then every string above, by index
#   comment        the clock, and how many calls were folded past the cap
# pprof's flat (leaf) sums are then exactly our self times and call
# counts (and with -sample_index=alloc_objects self allocations), and its
# cum sums our totals (a sample counts once however often its stack holds
# a method, as our totals count recursion once).
# Needs a profile recorded with call_tree: true.
require "zlib"
require "tracegraph/formats/stacks"

module Tracegraph
  module Formats
    module Pprof
      NAME = "pprof"

      module_function

      def write(profile, path, **view_options)
        profile = Stacks.source(profile, NAME, view_options)
        Tracegraph.stream_output(path) do |io|
          gz = Zlib::GzipWriter.new(io)
          Stacks.stream(profile, :pprof, gz)
          gz.finish
        end
      end
    end
  end
end

# Folded stacks, the input of flame graph tools: one line per call path,
#   Object#main;Integer#times;Math.sqrt 1403516
# with the path's self time in integer nanoseconds as its weight, so the
# weights add up to the profile's total time. flamegraph.pl, speedscope and
# `gprof2dot -f collapse` read it. Needs a profile recorded with
# call_tree: true, because edges alone cannot rebuild whole stacks.
# Threads are kept apart: when the stacks come from more than one thread,
# each line starts with a frame naming its thread ("thread: main").
# Lines come depth first, streamed from C (tg_stacks_write_folded); a line
# stops at STACK_MAX_DEPTH frames, the deeper frames' self time added to
# it, so the file is linear in the tree, not in the tree times its depth.
require "stringio"
require "tracegraph/formats/stacks"

module Tracegraph
  module Formats
    module Folded
      NAME = "folded stacks"

      module_function

      # The folded stacks as a String.
      def generate(profile, **view_options)
        profile = Stacks.source(profile, NAME, view_options)
        io = StringIO.new(+"")
        Stacks.stream(profile, :folded, io)
        io.string.force_encoding(Encoding::UTF_8)
      end

      def write(profile, path, **view_options) = Stacks.write(profile, path, :folded, NAME, view_options)
    end
  end
end

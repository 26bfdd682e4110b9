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

module Tracegraph
  class Profile
    # The deepest stack a folded line shows.
    FOLDED_MAX_DEPTH = STACK_MAX_DEPTH

    def to_folded(**view_options)
      return view(**view_options).to_folded unless view_options.empty?
      require_call_tree!("folded stacks")
      io = StringIO.new(+"")
      write_stacks_to(:folded, io)
      io.string.force_encoding(Encoding::UTF_8)
    end

    def write_folded(path, **view_options)
      return view(**view_options).write_folded(path) unless view_options.empty?
      require_call_tree!("folded stacks")
      Tracegraph.stream_output(path) { |io| write_stacks_to(:folded, io) }
    end
  end
end

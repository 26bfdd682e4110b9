# What the four stack formats (folded, pprof, speedscope, Firefox) share:
# the call tree streamed from C (ext/tracegraph/core/tg_stacks.c) in one
# of its forms, to an IO, and the checks before it.
require "tracegraph/version"
require "tracegraph/formats/output_file"

module Tracegraph
  module Formats
    module Stacks
      module_function

      # Streams the :folded, :pprof, :speedscope or :firefox output of
      # profile's call tree to io. Each tool merges frames by name, so
      # methods that share one get their place in it (Naming.distinct_names).
      def stream(profile, format, io)
        tree = profile.call_tree
        native = tree.native(profile.methods, profile.threads)
        methods = tree.native_methods
        names = Naming.distinct_names(methods, among: profile.methods)
        native._write(format, io, methods.each_with_index.map { |m, i| [names[i], m.file, m.line] },
                      tree.native_threads.map(&:name) + ["all threads"],
                      {max_depth: Profile::STACK_MAX_DEPTH, folded_calls: tree.folded_calls, clock: profile.clock.to_s,
                       program: profile.program, exporter: "tracegraph #{VERSION}", complete: profile.complete?})
      end

      # profile seen with view_options (Profile#view), checked to have the
      # call tree a stack format needs; what names the format in the error.
      def source(profile, what, view_options)
        profile = profile.view(**view_options) unless view_options.empty?
        profile.require_call_tree!(what)
        profile
      end

      # Writes format to path, streamed; returns the path.
      def write(profile, path, format, what, view_options)
        profile = source(profile, what, view_options)
        Tracegraph.stream_output(path) { |io| stream(profile, format, io) }
      end
    end
  end
end

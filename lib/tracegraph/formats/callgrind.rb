# The callgrind format, for KCachegrind / QCachegrind, callgrind_annotate
# and gprof2dot (-f callgrind).
#
#   profile.write_callgrind("callgrind.out.app")   # kcachegrind callgrind.out.app
#
# One event, Nanoseconds of the profile's clock. Each method is a function
# (fn=) in its defining file (fl=); C methods live in the synthetic file
# "[C]", methods whose file is unknown in "[unknown]". A function's cost
# line carries its self time at its definition line; each caller->callee
# edge is a call record (cfl=/cfn=, calls=) whose cost line carries the
# inclusive time of those calls, as callgrind itself writes them. The call
# site's line is not recorded by tracegraph, so calls are attributed to
# the caller's definition line. File and function names are compressed
# ("fl=(1) app.rb" the first time, "fl=(1)" after). A profile with
# allocations has a second event, Allocations (objects), beside the time
# in every cost line: self in a function's, inclusive in a call's.
require "tracegraph/formats/output_file"

module Tracegraph
  module Formats
    module Callgrind
      module_function

      # The profile in the callgrind format, as a String.
      def generate(profile, **view_options)
        profile = profile.view(**view_options) unless view_options.empty?
        Writer.new(profile).to_s
      end

      # Writes the callgrind file to path; returns the path.
      def write(profile, path, **view_options) = Tracegraph.write_output(path, generate(profile, **view_options))
    end
  end

  # Renders one profile; see the comment at the top of the file.
  class Formats::Callgrind::Writer
    C_FILE = "[C]"
    UNKNOWN_FILE = "[unknown]"

    def initialize(profile)
      @profile = profile
      @file_ids = {}
      @fn_ids = {}
      @names = function_names
    end

    def to_s
      out = +""
      header(out)
      calls_by_caller = @profile.edges.group_by(&:caller)
      @profile.methods.each do |m|
        out << "\n" << "fl=" << compressed(@file_ids, file_of(m)) << "\n"
        out << "fn=" << compressed(@fn_ids, @names[m]) << "\n"
        out << "#{line_of(m)} #{costs(m.self_time, m.self_allocations)}\n"
        (calls_by_caller[m] || []).each { |e| call(out, m, e) }
      end
      out << "\ntotals: #{totals}\n"
      out
    end

    private

    def header(out)
      out << "# callgrind format\n"
      out << "version: 1\n"
      out << "creator: tracegraph #{Tracegraph::VERSION}\n"
      out << "cmd: #{one_line(@profile.program.to_s)}\n" if @profile.program
      out << "# clock: #{one_line(@profile.clock.to_s)}; times are nanoseconds\n"
      out << "positions: line\n"
      out << "events: Nanoseconds#{' Allocations' if @profile.allocations?}\n"
      out << "summary: #{totals}\n"
    end

    # A cost line's numbers: the time, and the objects if recorded.
    def costs(time, allocations)
      @profile.allocations? ? "#{time} #{allocations}" : time.to_s
    end

    def totals = costs(@profile.total_time, @profile.total_allocations)

    def call(out, caller, edge)
      callee = edge.callee
      out << "cfl=" << compressed(@file_ids, file_of(callee)) << "\n" if file_of(callee) != file_of(caller)
      out << "cfn=" << compressed(@fn_ids, @names[callee]) << "\n"
      out << "calls=#{edge.calls} #{line_of(callee)}\n"
      out << "#{line_of(caller)} #{costs(edge.total_time, edge.allocations)}\n"
    end

    # "(3) name" the first time a name is used, "(3)" after.
    def compressed(ids, name)
      if (id = ids[name])
        "(#{id})"
      else
        id = ids[name] = ids.size + 1
        "(#{id}) #{name}"
      end
    end

    def file_of(m)
      return C_FILE if m.c_method
      return UNKNOWN_FILE unless m.file

      one_line(m.file)
    end

    def line_of(m) = m.line.to_i

    # Function names unique per file: callgrind merges same-named functions,
    # so a second anonymous "#<Class:0x...>#m" in one file becomes "... (2)".
    def function_names
      seen = Hash.new(0)
      @profile.methods.each_with_object({}.compare_by_identity) do |m, names|
        name = one_line(m.name)
        count = seen[[file_of(m), name]] += 1
        names[m] = count == 1 ? name : "#{name} (#{count})"
      end
    end

    # The format is line-based: newlines and other controls become visible escapes.
    def one_line(text)
      text.gsub(/[\x00-\x1f\x7f]/) { |c| format("\\x%02x", c.ord) }
    end
  end
end

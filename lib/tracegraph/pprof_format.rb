# pprof: a gzipped profile.proto (github.com/google/pprof, proto/profile.proto),
# read by `go tool pprof` (-top, -traces, -web, -http), Grafana Pyroscope
# and every pprof viewer.
#
# Encoded by hand, as pprof's own profile/proto.go does: varints and
# length-delimited fields, no generated code. What we write:
#   sample_type    calls/count, time/nanoseconds (the default)
#   sample         one per call-tree path: location_id from the leaf down,
#                  value [calls, self time], label thread: NAME
#   mapping        one, for the program, marked as symbolized already
#   location       one per method, with one line pointing at its function
#   function       one per method: name, system_name, filename, start_line
#   string_table   "" first, then every string above, by index
#   comment        the clock, and how many calls were folded past the cap
# pprof's flat (leaf) sums are then exactly our self times and call
# counts, and its cum sums our total times (a sample counts once however
# often its stack holds a method, as our totals count recursion once).
# Needs a profile recorded with call_tree: true. The samples are written
# to the gzip stream as the walk finds them, never as one string.
require "zlib"
require "tracegraph/call_paths"

module Tracegraph
  class Profile
    def write_pprof(path)
      require_call_tree!("pprof")
      Tracegraph.stream_output(path) do |io|
        gz = Zlib::GzipWriter.new(io)
        PprofEncoder.new(self, gz).write
        gz.finish
      end
    end

    # Raises unless the profile has the call tree a stack output needs.
    def require_call_tree!(what)
      return if call_tree

      raise Error, "this profile has no call tree: record it with Tracegraph.start(call_tree: true) " \
                   "(or tracegraph --call-tree) to write #{what}"
    end
  end

  # Writes one Profile message to an IO, field by field.
  class PprofEncoder
    # Field numbers of profile.proto.
    PROFILE_SAMPLE_TYPE = 1
    PROFILE_SAMPLE = 2
    PROFILE_MAPPING = 3
    PROFILE_LOCATION = 4
    PROFILE_FUNCTION = 5
    PROFILE_STRING_TABLE = 6
    PROFILE_COMMENT = 13
    PROFILE_DEFAULT_SAMPLE_TYPE = 14
    VALUE_TYPE_TYPE = 1
    VALUE_TYPE_UNIT = 2
    SAMPLE_LOCATION_ID = 1
    SAMPLE_VALUE = 2
    SAMPLE_LABEL = 3
    LABEL_KEY = 1
    LABEL_STR = 2
    MAPPING_ID = 1
    MAPPING_FILENAME = 5
    MAPPING_HAS_FUNCTIONS = 7
    MAPPING_HAS_FILENAMES = 8
    MAPPING_HAS_LINE_NUMBERS = 9
    LOCATION_ID = 1
    LOCATION_MAPPING_ID = 2
    LOCATION_LINE = 4
    LINE_FUNCTION_ID = 1
    LINE_LINE = 2
    FUNCTION_ID = 1
    FUNCTION_NAME = 2
    FUNCTION_SYSTEM_NAME = 3
    FUNCTION_FILENAME = 4
    FUNCTION_START_LINE = 5

    VARINT = 0
    LENGTH_DELIMITED = 2

    def initialize(profile, io)
      @profile = profile
      @io = io
      @strings = {"" => 0}
    end

    def write
      sample_types = [%w[calls count], %w[time nanoseconds]]
      sample_types.each do |type, unit|
        message(PROFILE_SAMPLE_TYPE, uint(VALUE_TYPE_TYPE, string(type)) + uint(VALUE_TYPE_UNIT, string(unit)))
      end
      write_samples
      write_mapping
      write_functions
      comments.each { |c| @io.write(uint(PROFILE_COMMENT, string(c))) }
      @io.write(uint(PROFILE_DEFAULT_SAMPLE_TYPE, string("time")))
      # Last: every string is known by now. Repeated fields keep their
      # order wherever they appear in the message.
      @strings.each_key { |s| @io.write(bytes(PROFILE_STRING_TABLE, s)) }
    end

    private

    def write_samples
      thread_key = string("thread")
      labels = {}.compare_by_identity
      @profile.each_call_path do |node, frames|
        next if node.calls.zero? && node.self_time.zero?

        label = labels[node.thread] ||= message_bytes(
          SAMPLE_LABEL, uint(LABEL_KEY, thread_key) + uint(LABEL_STR, string(thread_name(node.thread)))
        )
        locations = frames.reverse_each.map { |m| @profile.index_of(m) + 1 }
        message(PROFILE_SAMPLE, packed(SAMPLE_LOCATION_ID, locations) +
                                packed(SAMPLE_VALUE, [node.calls, node.self_time]) + label)
      end
    end

    # One mapping for the whole program, which says its locations are
    # symbolized already: pprof then looks for no binary.
    def write_mapping
      message(PROFILE_MAPPING, uint(MAPPING_ID, 1) + uint(MAPPING_FILENAME, string(@profile.program || "ruby")) +
                               uint(MAPPING_HAS_FUNCTIONS, 1) + uint(MAPPING_HAS_FILENAMES, 1) +
                               uint(MAPPING_HAS_LINE_NUMBERS, 1))
    end

    # Location n and function n are method n - 1 (ids start at 1).
    def write_functions
      @profile.methods.each_with_index do |m, i|
        id = i + 1
        message(PROFILE_LOCATION, uint(LOCATION_ID, id) + uint(LOCATION_MAPPING_ID, 1) +
                                  message_bytes(LOCATION_LINE, uint(LINE_FUNCTION_ID, id) + uint(LINE_LINE, m.line || 0)))
        message(PROFILE_FUNCTION, uint(FUNCTION_ID, id) + uint(FUNCTION_NAME, string(m.name)) +
                                  uint(FUNCTION_SYSTEM_NAME, string(m.name)) +
                                  uint(FUNCTION_FILENAME, string(m.file || "")) + uint(FUNCTION_START_LINE, m.line || 0))
      end
    end

    def comments
      tree = @profile.call_tree
      notes = ["tracegraph: #{@profile.clock} clock, times in nanoseconds"]
      notes << "tracegraph: #{tree.folded_calls} calls past the call tree's cap were folded into their nearest kept " \
               "ancestor (their time is its self time, their calls are not counted)" if tree.folded_calls.positive?
      notes << "tracegraph: the profile is incomplete (the profiler ran out of memory)" unless @profile.complete?
      notes
    end

    def thread_name(thread)
      thread ? thread.name : "all threads"
    end

    def string(s)
      @strings[s] ||= @strings.size
    end

    def varint(n)
      out = +"".b
      while n >= 0x80
        out << ((n & 0x7F) | 0x80)
        n >>= 7
      end
      out << n
    end

    def key(field, wire_type) = varint((field << 3) | wire_type)
    def uint(field, n) = n.zero? ? "".b : key(field, VARINT) + varint(n)

    def bytes(field, s)
      s = s.b
      key(field, LENGTH_DELIMITED) + varint(s.bytesize) + s
    end

    alias message_bytes bytes

    def packed(field, numbers)
      bytes(field, numbers.map { |n| varint(n) }.join)
    end

    def message(field, body)
      @io.write(bytes(field, body))
    end
  end
end

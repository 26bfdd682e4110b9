# JSON: the profile's archival format, versioned and validated on load.
#
# Schema (version 2); times are integer nanoseconds, "caller"/"callee" are
# indexes into "methods":
#   {"version": 2, "clock": "wall", "unit": "ns", "program": "app.rb",
#    "complete": true, "total_time": 1234567, "wall_time": 1300000,
#    "threads": [{"id": 1, "name": "main", "total_time": 1234567}],
#    "methods": [{"name": "Object#main", "file": "app.rb", "line": 1, "c_method": false,
#                 "waiting": false, "calls": 1, "total_time": 1200000, "self_time": 3000}],
#    "edges":   [{"caller": 0, "callee": 1, "calls": 3, "total_time": 600000, "self_time": 2000}],
#    "call_tree": {"folded_calls": 0, "nodes": [{"parent": null, "method": 0, "calls": 1,
#                                                "total_time": 1200000, "self_time": 3000, "thread": 1}]}}
# "call_tree" is present only for profiles recorded with call_tree: true;
# a node's "parent" indexes an earlier node, or is null for a bottom frame,
# which then names its thread's "id" in "thread" (a node is in its
# parent's thread; files without "thread" are read as one thread).
# "gc" (optional; files from before it load as no GC) summarises garbage
# collection: {"runs": 12, "entries": 40, "total_time": 45000000,
# "mark_time": 30000000, "sweep_time": 14000000}. Only "runs" is read
# back: the rest is what the "(garbage collection)" methods already hold.
#
# "allocations": true (optional) says the profile was recorded with
# allocations: true; then every method and edge also has "allocations"
# (objects allocated in it and what it called, recursion once) and
# "self_allocations" (in it alone), and a file that misses one is
# malformed. Files without the flag (all from before it) load as profiles
# without allocations. In such a profile the call tree's nodes have them
# too (a path's objects, and its own), if its first node does: files
# written before the tree kept them have none in any node, and load with
# a call tree without allocation counts. With the flag, each method may
# also have "allocations_by_type": {"String": 1000, "Array": 500}, its
# self allocations by type (model/allocation_types.rb; types it made none of
# left out); files without it load with no counts by type. Readers that do
# not know it ignore it, so it needs no new version.
#
# "title" (optional) says what was profiled in words, such as a web
# request's "GET /posts 200 · PostsController#index · 412 ms"; files
# without it load with none. Readers that do not know it ignore it.
#
# "yjit": true (optional) says YJIT was on in the recording process, so
# the times are the interpreter's (traced code is not compiled:
# docs/accuracy.md#yjit); files without it load as recorded without YJIT.
# Readers that do not know it ignore it.
#
# "recorded_by" (optional) says which of the hook's paths recorded the
# profile, on which Ruby, and why: "VM reads checked on 3.4.5", "public
# API only: TRACEGRAPH_NO_VM_READS is set (Ruby 3.4.5)" (docs/rubies.md);
# files without it load with none.
#
# "raw_times": false says tracing's own cost was taken out of the times,
# and "tracing_cost" what: {"removed": ns in all, "event_costs": {"ruby":
# {"inside": 4, "outside": 19}, "block": {...}, "c": {...}}} (ns per event,
# inside the frame and in its caller; see Tracegraph::Calibration), and
# how sure that is (optional: files from before it have neither):
# "uncertainty", ns in all, and "event_spread", {"ruby": 1.5, "block":
# 2.0, "c": 1.2} (ns per event; see Profile::TracingCost).
# "raw_times": true, or no "raw_times" at all (files from before it), says
# the times hold it. Readers that do not know them ignore both.
#
# Version 2 added "wall_time" (wall-clock time while recording, or null),
# each method's "waiting" (it blocks its thread: Tracegraph::WAITING_METHODS;
# written for readers, and worked out from the name on load), and, for a
# view of some threads or without waiting time (Profile#view),
# "threads_recorded" and "hidden_waiting". Version 1 files still load, with
# no wall time.
require "json"
require "tracegraph/formats/profile_file"
require "tracegraph/formats/output_file"

module Tracegraph
  # Raised by Profile.load_json and parse_json for input that is not a valid profile.
  class FormatError < Error; end

  module Formats
    module Json
      VERSION = 2
      # The versions load reads.
      VERSIONS = [1, 2].freeze

      module_function

      # The profile as the JSON document's Hash.
      def to_h(profile)
        p = profile
        {
          "version" => VERSION, "clock" => p.clock.to_s, "unit" => "ns", "program" => p.program,
          "complete" => p.complete?, "total_time" => p.total_time, "wall_time" => p.wall_time,
          "threads" => p.threads.map { |t| {"id" => t.id, "name" => t.name, "total_time" => t.total_time} },
          "methods" => p.methods.map do |m|
            {"name" => m.name, "file" => m.file, "line" => m.line, "c_method" => m.c_method ? true : false,
             "waiting" => m.waiting?, "calls" => m.calls, "total_time" => m.total_time, "self_time" => m.self_time}
              .merge(allocations_to_h(p, m), allocation_types_to_h(p, m))
          end,
          "edges" => p.edges.map do |e|
            {"caller" => p.index_of(e.caller), "callee" => p.index_of(e.callee), "calls" => e.calls,
             "total_time" => e.total_time, "self_time" => e.self_time}.merge(allocations_to_h(p, e))
          end,
          "gc" => p.gc.to_h.transform_keys(&:to_s)
        }.merge(p.title ? {"title" => p.title} : {}, p.recorded_by ? {"recorded_by" => p.recorded_by} : {},
                tracing_to_h(p), view_to_h(p),
                p.allocations? ? {"allocations" => true} : {}, p.yjit? ? {"yjit" => true} : {},
                p.call_tree ? {"call_tree" => call_tree_to_h(p)} : {},
                p.runs ? {"runs" => p.runs.to_h(p.methods)} : {})
      end

      # "raw_times" always (files without it are from before tracegraph took
      # tracing's cost out, so they hold raw times), and what was taken out.
      def tracing_to_h(profile)
        cost = profile.tracing_cost
        return {"raw_times" => true} unless cost

        costs = cost.event_costs.to_h { |kind, parts| [kind.to_s, parts.transform_keys(&:to_s)] }
        sure = cost.uncertainty ? {"uncertainty" => cost.uncertainty, "event_spread" => cost.event_spread.transform_keys(&:to_s)} : {}
        {"raw_times" => false, "tracing_cost" => {"removed" => cost.removed, "event_costs" => costs}.merge(sure)}
      end

      def generate(profile, *args) = JSON.generate(to_h(profile), *args)

      # Writes the profile as JSON; returns the path.
      def write(profile, path, **view_options)
        profile = profile.view(**view_options) unless view_options.empty?
        Tracegraph.write_output(path, generate(profile))
      end

      # Loads a profile from the JSON file at `path` (a String or Pathname),
      # always a path: JSON text goes to parse. Files over max_bytes
      # (default TRACEGRAPH_MAX_PROFILE_BYTES, else 1 GiB) are refused unread.
      def load(path, max_bytes: nil)
        path = path.to_path if path.respond_to?(:to_path)
        raise FormatError, "load_json needs a path (a String), not #{path.class}" unless path.is_a?(String)

        parse_document(ProfileFile.read(path, max_bytes: max_bytes), ProfileFile.display(path))
      rescue FormatError => e
        raise unless json_text_given_as_path?(path)

        raise FormatError, "#{e.message} (load_json takes a path; for JSON text use Profile.parse_json)"
      end

      # Loads a profile from JSON text.
      def parse(text)
        raise FormatError, "parse_json needs JSON text (a String), not #{text.class}" unless text.is_a?(String)

        text = text.encode(Encoding::UTF_8) if !text.encoding.ascii_compatible? && text.valid_encoding? # UTF-16 Strings
        parse_document(ProfileFile.text(text, "JSON text"), "JSON text")
      rescue EncodingError => e
        raise FormatError, "JSON text: not a profile (#{e.class})"
      end

      def allocations_to_h(profile, stats)
        return {} unless profile.allocations?

        {"allocations" => stats.allocations, "self_allocations" => stats.self_allocations}
      end

      def allocation_types_to_h(profile, method)
        profile.allocations? && method.allocations_by_type ? {"allocations_by_type" => method.allocations_by_type} : {}
      end

      def view_to_h(profile)
        return {} if profile.recorded_threads == profile.threads.size && profile.hidden_waiting.zero?

        {"threads_recorded" => profile.recorded_threads, "hidden_waiting" => profile.hidden_waiting}
      end

      def call_tree_to_h(profile)
        tree = profile.call_tree
        node_index = tree.nodes.each_with_index.with_object({}.compare_by_identity) { |(n, i), h| h[n] = i }
        counted = profile.allocations? && tree.allocations?
        {"folded_calls" => tree.folded_calls,
         "nodes" => tree.nodes.map do |n|
           node = {"parent" => n.parent && node_index.fetch(n.parent), "method" => profile.index_of(n.method),
                   "calls" => n.calls, "total_time" => n.total_time, "self_time" => n.self_time}
           node["thread"] = n.thread.id if n.parent.nil? && n.thread
           node.merge!("allocations" => n.allocations, "self_allocations" => n.self_allocations) if counted
           node
         end}
      end

      def parse_document(text, origin)
        data = begin
          JSON.parse(text, max_nesting: 8)
        rescue JSON::ParserError, EncodingError, ArgumentError => e
          raise FormatError, "#{origin}: not valid JSON (#{parser_complaint(e)})"
        end
        JsonLoader.new(data, origin).profile
      end

      # The parser's message, cut to one short line of valid UTF-8: it quotes
      # the input, which may be binary.
      def parser_complaint(error)
        line = error.message.b.lines.first.to_s.force_encoding(Encoding::UTF_8).scrub("?")
        line.gsub(/[[:cntrl:]]/, "?").strip[0, 200]
      end

      def json_text_given_as_path?(path)
        path.is_a?(String) && path.b.lstrip.start_with?("{", "[") && !File.exist?(path)
      rescue ArgumentError # a NUL in it
        true
      end
      private_class_method :allocations_to_h, :allocation_types_to_h, :view_to_h, :call_tree_to_h, :parse_document,
                           :parser_complaint, :json_text_given_as_path?
    end
  end

  # Validates parsed JSON field by field so a bad file gets an error that
  # names the field, never a crash or a half-built profile.
  class JsonLoader
    def initialize(data, origin)
      @data = data
      @origin = origin
    end

    def profile
      object!(@data, "the document")
      version = @data["version"]
      unless version.is_a?(Integer) && Formats::Json::VERSIONS.include?(version)
        fail!("unsupported version #{version.inspect[0, 40]} (this tracegraph reads versions " \
              "#{Formats::Json::VERSIONS.join(' and ')})")
      end
      clock = string!(@data, "clock", "the document")
      fail!("unknown clock #{clock.inspect}") unless Tracegraph::CLOCKS.map(&:to_s).include?(clock)
      fail!("unit must be \"ns\"") unless @data.fetch("unit", "ns") == "ns"

      @allocations = allocations_flag
      threads = array!(@data, "threads").each_with_index.map { |t, i| thread(t, "threads[#{i}]") }
      methods = array!(@data, "methods").each_with_index.map { |m, i| method_stats(m, "methods[#{i}]") }
      edges = array!(@data, "edges").each_with_index.map { |e, i| edge(e, "edges[#{i}]", methods) }
      program = @data["program"]
      fail!("program must be a string") unless program.nil? || program.is_a?(String)
      program &&= Profile.clean_name(program)
      title = @data["title"]
      fail!("title must be a string") unless title.nil? || title.is_a?(String)
      title &&= Profile.clean_name(title)
      recorded_by = @data["recorded_by"]
      fail!("recorded_by must be a string") unless recorded_by.nil? || recorded_by.is_a?(String)
      recorded_by &&= Profile.clean_name(recorded_by)
      Profile.new(clock: clock, threads: threads, methods: methods, edges: edges,
                  program: program, title: title, complete: @data.fetch("complete", true) == true,
                  call_tree: @data.key?("call_tree") ? call_tree(@data["call_tree"], methods, threads) : nil,
                  gc_runs: gc_runs, wall_time: optional_count("wall_time"), allocations: @allocations,
                  tracing_cost: tracing_cost, yjit: @data["yjit"] == true, recorded_by: recorded_by,
                  viewed_from: view_of(threads))
    end

    private

    # A view's recorded thread count and waiting left out (version 2), as
    # Profile.new's viewed_from:; nil for a file of a whole recording.
    def view_of(threads)
      recorded = optional_count("threads_recorded")
      hidden = optional_count("hidden_waiting")
      return unless recorded || hidden

      if recorded && recorded < threads.size
        fail!("threads_recorded (#{recorded}) is less than the #{threads.size} threads listed")
      end
      Profile::ViewOrigin.new(recorded_threads: recorded || threads.size, hidden_waiting: hidden || 0)
    end

    # Whether methods and edges carry allocation counts: "allocations": true.
    def allocations_flag
      flag = @data.fetch("allocations", false)
      fail!("allocations must be true or false, not #{flag.inspect[0, 40]}") unless [true, false].include?(flag)
      flag
    end

    # [allocations, self_allocations] of a method or an edge: both nil in a
    # profile without them, else counts, self never above the total.
    def allocations!(data, where)
      return [nil, nil] unless @allocations

      total = count!(data, "allocations", where)
      self_count = count!(data, "self_allocations", where)
      if self_count > total
        fail!("#{where}.self_allocations (#{self_count}) is more than its allocations (#{total})")
      end
      [total, self_count]
    end

    # A method's "allocations_by_type" (sorted as recorded ones are), or
    # nil if it has none. Names are any strings: a newer tracegraph may
    # count types this one does not know.
    def allocations_by_type!(data, where)
      return nil unless data.key?("allocations_by_type")
      fail!("#{where}.allocations_by_type needs \"allocations\": true in the document") unless @allocations

      where = "#{where}.allocations_by_type"
      types = data["allocations_by_type"]
      object!(types, where)
      counts = Hash.new(0)
      types.each_key { |name| counts[Profile.clean_name(name)] += count!(types, name, where) }
      AllocationTypes.sorted(counts)
    end

    # A non-negative integer that may be absent or null.
    def optional_count(key)
      @data[key].nil? ? nil : count!(@data, key, "the document")
    end

    # The kinds of event whose cost is calibrated, in "event_costs" and
    # "event_spread" alike (Tracegraph::Calibration::KINDS).
    COST_KINDS = %w[ruby block c].freeze

    # nil for raw times: "raw_times" true, or missing (older files).
    def tracing_cost
      raw = @data.fetch("raw_times", true)
      fail!("raw_times must be true or false, not #{raw.inspect[0, 40]}") unless [true, false].include?(raw)
      return nil if raw

      object!(@data["tracing_cost"], "tracing_cost")
      costs = @data["tracing_cost"]["event_costs"]
      object!(costs, "tracing_cost.event_costs")
      event_costs = COST_KINDS.to_h do |kind|
        where = "tracing_cost.event_costs.#{kind}"
        object!(costs[kind], where)
        [kind.to_sym, %w[inside outside].to_h { |part| [part.to_sym, count!(costs[kind], part, where)] }]
      end
      uncertainty, event_spread = tracing_sureness(@data["tracing_cost"])
      Profile::TracingCost.new(removed: count!(@data["tracing_cost"], "removed", "tracing_cost"),
                               event_costs: event_costs, uncertainty: uncertainty, event_spread: event_spread)
    end

    # "uncertainty" and "event_spread", both or neither (files from before).
    def tracing_sureness(cost)
      return [nil, nil] unless cost.key?("uncertainty") || cost.key?("event_spread")

      spread = cost["event_spread"]
      object!(spread, "tracing_cost.event_spread")
      event_spread = COST_KINDS.to_h do |kind|
        ns = spread[kind]
        unless ns.is_a?(Numeric) && ns >= 0 && ns.finite?
          fail!("tracing_cost.event_spread.#{kind} must be a non-negative number, not #{ns.inspect[0, 40]}")
        end
        [kind.to_sym, ns]
      end
      [count!(cost, "uncertainty", "tracing_cost"), event_spread]
    end

    def gc_runs
      return 0 unless @data.key?("gc")

      object!(@data["gc"], "gc")
      count!(@data["gc"], "runs", "gc")
    end

    # The tree packed in C as it is read (NativeCallTree: no Ruby object
    # per node until CallTree#nodes is asked for), its method indexes
    # into methods, its thread indexes into threads; a bottom frame of a
    # file without threads gets one more index.
    def call_tree(tree, methods, threads)
      object!(tree, "call_tree")
      threads_by_id = threads.to_h { |t| [t.id, t] }
      thread_index = threads.each_with_index.with_object({}.compare_by_identity) { |(t, i), h| h[t] = i }
      nodes = array!(tree, "nodes")
      # The nodes have allocation counts if the first does (see the top).
      counted = @allocations && (nodes.empty? || (nodes.first.is_a?(Hash) && nodes.first.key?("allocations")))
      columns = Array.new(counted ? 7 : 5) { [] }
      parents, method_indexes, calls, totals, selfs, allocations, self_allocations = columns
      nodes.each_with_index do |n, i|
        where = "call_tree.nodes[#{i}]"
        object!(n, where)
        parent = n["parent"]
        unless parent.nil? || (parent.is_a?(Integer) && parent >= 0 && parent < i)
          fail!("#{where}.parent must be null or the index of an earlier node, not #{parent.inspect[0, 40]}")
        end
        method = count!(n, "method", where)
        fail!("#{where}.method points at method #{method}, but there are #{methods.size}") unless method < methods.size
        parents << (parent || CallTree::ROOT - thread_index.fetch(node_thread(n, where, threads_by_id), threads.size))
        method_indexes << method
        calls << count!(n, "calls", where)
        totals << count!(n, "total_time", where)
        selfs << count!(n, "self_time", where)
        next unless counted

        total, self_count = allocations!(n, where)
        allocations << total
        self_allocations << self_count
      end
      native = begin
        NativeCallTree._pack(parents: parents.pack("L*"), methods: method_indexes.pack("L*"), calls: calls.pack("Q*"),
                             totals: totals.pack("Q*"), selfs: selfs.pack("Q*"),
                             allocations: counted ? allocations.pack("Q*") : nil,
                             self_allocations: counted ? self_allocations.pack("Q*") : nil)
      rescue ArgumentError => e
        fail!("call_tree: #{e.message}")
      end
      CallTree.new(native: native, methods: methods, threads: threads,
                   folded_calls: count!(tree, "folded_calls", "call_tree"))
    end

    # A bottom frame's thread, by id; nil in files written before threads
    # were kept apart.
    def node_thread(node, where, threads_by_id)
      return nil unless node.key?("thread")

      id = count!(node, "thread", where)
      threads_by_id.fetch(id) { fail!("#{where}.thread is #{id}, but no thread has that id") }
    end

    def thread(t, where)
      object!(t, where)
      ThreadStats.new(id: count!(t, "id", where), name: Profile.clean_name(string!(t, "name", where)),
                      total_time: count!(t, "total_time", where))
    end

    def method_stats(m, where)
      object!(m, where)
      file = m["file"]
      fail!("#{where}.file must be a string or null") unless file.nil? || file.is_a?(String)
      line = m["line"]
      unless line.nil? || (line.is_a?(Integer) && line >= 0 && line < 2**31)
        fail!("#{where}.line must be a line number or null, not #{line.inspect[0, 40]}")
      end
      total, self_time = times!(m, where)
      allocations, self_allocations = allocations!(m, where)
      MethodStats.new(name: Profile.clean_name(string!(m, "name", where)), file: file && Profile.clean_name(file),
                      line: line, calls: count!(m, "calls", where), total_time: total, self_time: self_time,
                      c_method: m["c_method"] == true, allocations: allocations, self_allocations: self_allocations,
                      allocations_by_type: allocations_by_type!(m, where))
    end

    def edge(e, where, methods)
      object!(e, where)
      caller, callee = %w[caller callee].map do |key|
        index = count!(e, key, where)
        fail!("#{where}.#{key} points at method #{index}, but there are #{methods.size}") unless index < methods.size

        methods[index]
      end
      total, self_time = times!(e, where)
      allocations, self_allocations = allocations!(e, where)
      EdgeStats.new(caller: caller, callee: callee, calls: count!(e, "calls", where),
                    total_time: total, self_time: self_time, allocations: allocations, self_allocations: self_allocations)
    end

    # A recorded profile never has self time above total time.
    def times!(data, where)
      total = count!(data, "total_time", where)
      self_time = count!(data, "self_time", where)
      fail!("#{where}.self_time (#{self_time}) is more than its total_time (#{total})") if self_time > total
      [total, self_time]
    end

    def object!(value, where)
      fail!("#{where} must be an object, not #{json_type(value)}") unless value.is_a?(Hash)
    end

    def array!(data, key)
      value = data[key]
      fail!("#{key} must be an array, not #{json_type(value)}") unless value.is_a?(Array)
      value
    end

    def string!(data, key, where)
      value = data[key]
      fail!("#{where}.#{key} must be a string, not #{json_type(value)}") unless value.is_a?(String)
      value
    end

    # Counts and times: integers from 0 up to what 64 bits hold.
    def count!(data, key, where)
      value = data[key]
      unless value.is_a?(Integer) && value >= 0 && value < 2**64
        fail!("#{where}.#{key} must be a non-negative integer, not #{value.inspect[0, 40]}")
      end
      value
    end

    def json_type(value)
      case value
      when nil then "null"
      when Hash then "an object"
      when Array then "an array"
      when String then "a string"
      else value.class.name.downcase
      end
    end

    def fail!(message)
      raise FormatError, "#{@origin}: #{message}"
    end
  end
end

require "tracegraph/formats/json_run_samples"

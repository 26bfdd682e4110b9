# The flat profile: a text table of the top methods by self time.
require "stringio"
require "tracegraph/formats/output_file"

module Tracegraph
  module Formats
    module FlatTable
      # The rows a .txt file gets (printing defaults to 30).
      FILE_LIMIT = 100

      module_function

      # Prints the top `limit` methods by self time to io:
      #   calls, self, total, self %, name, location;
      # with allocations recorded, the objects each allocated (self and
      # total) before the name.
      # Below the totals, lines on threads, waiting and garbage collection;
      # below the table, the objects allocated by type, if recorded.
      # threads: and idle: choose a view (Profile#view).
      def print(profile, io = $stdout, limit: 30, **view_options)
        return print(profile.view(**view_options), io, limit: limit) unless view_options.empty?
        raise ArgumentError, "limit must be a positive integer, not #{limit.inspect}" unless limit.is_a?(Integer) && limit > 0

        p = profile
        total = p.total_time
        allocated = p.allocations? ? ", #{Tracegraph.group_digits(p.total_allocations)} objects allocated" : ""
        rows = Profile::GROUPING_PLURALS.fetch(p.grouping) # a grouped profile's rows are groups
        io.puts "#{p.clock} time, total #{Tracegraph.human_time(total)} in #{p.methods.size} #{rows}, " \
                "#{Tracegraph.group_digits(p.total_calls)} calls#{allocated}"
        io.puts threads_line(p) if p.threads.size > 1 || p.recorded_threads > 1
        io.puts waiting_line(p, total) if p.waiting_time.positive? || p.hidden_waiting.positive?
        io.puts gc_line(p, total) if p.gc.runs.positive? || p.gc.entries.positive?
        io.puts tracing_line(p)
        io.puts "#{Profile::YJIT_NOTE}: traced code is not compiled (docs/accuracy.md#yjit)" if p.yjit?
        io.puts format("%12s  %10s  %10s  %6s  %s%s", "calls", "self", "total", "self%",
                       p.allocations? ? format("%12s  %12s  ", "self allocs", "total allocs") : "", p.grouping)
        top = p.methods.sort_by { |m| [-m.self_time, -m.total_time, m.name] }.first(limit)
        top.each do |m|
          share = total.zero? ? 0.0 : 100.0 * m.self_time / total
          where = m.file ? "  #{Tracegraph.printable(Tracegraph.short_path(m.file))}:#{m.line}" : ""
          io.puts format("%12s  %10s  %10s  %5.1f%%  %s%s%s%s", Tracegraph.group_digits(m.calls),
                         Tracegraph.human_time(m.self_time), Tracegraph.human_time(m.total_time), share,
                         allocation_cells(p, m), Tracegraph.printable(m.name), m.waiting? ? " (waiting)" : "", where)
        end
        hidden = p.methods.size - top.size
        io.puts "(#{hidden} more #{rows} not shown)" if hidden.positive?
        print_allocation_types(p, io)
        nil
      end

      # Writes the table's top FILE_LIMIT rows to path; returns the path.
      def write(profile, path, **view_options)
        io = StringIO.new
        print(profile, io, limit: FILE_LIMIT, **view_options)
        Tracegraph.write_output(path, io.string)
      end

      # "Allocations by type:", then per type its count and share, biggest first.
      def print_allocation_types(profile, io)
        types = profile.allocations_by_type
        return if types.nil? || types.empty?

        all = types.values.sum
        io.puts "Allocations by type:"
        types.each do |name, n|
          io.puts format("%12s  %5.1f%%  %s", Tracegraph.group_digits(n), 100.0 * n / all, Tracegraph.printable(name))
        end
      end

      # The allocation columns of a method's row, if recorded.
      def allocation_cells(profile, method)
        return "" unless profile.allocations?

        format("%12s  %12s  ", Tracegraph.group_digits(method.self_allocations),
               Tracegraph.group_digits(method.allocations))
      end

      # "Threads: 6 (main, puma srv tp 001, ...), 103 s of thread time in 17.7 s of wall time"
      # Whether the times hold tracing's own cost (docs/accuracy.md).
      def tracing_line(profile)
        cost = profile.tracing_cost
        return "raw times: tracing's own cost is in them" unless cost

        "tracing's cost taken out: #{Tracegraph.tracing_cost_summary(profile)}"
      end

      def threads_line(profile)
        p = profile
        of = p.recorded_threads > p.threads.size ? " of #{p.recorded_threads}" : ""
        wall = p.wall_time ? " in #{Tracegraph.human_time(p.wall_time)} of wall time" : ""
        "Threads: #{p.threads.size}#{of} (#{Tracegraph.printable(p.thread_names_summary)}), " \
          "#{Tracegraph.human_time(p.total_time)} of thread time#{wall}"
      end

      # "Waiting: 14.2 s (82.0%) in Kernel#sleep, Thread#join; working 3.1 s", or
      # once a view hid it "Waiting: 1.2 s in 3 threads, Thread::Queue#pop,
      # Kernel#sleep, left out (--idle show shows it)"
      def waiting_line(profile, total)
        where = profile.waiting_where
        where = "in sleep, join, locks and I/O waits" if where.empty?
        if profile.hidden_waiting.positive?
          return "Waiting: #{Tracegraph.human_time(profile.hidden_waiting)} #{Tracegraph.printable(where)}, " \
                 "left out (--idle show shows it)"
        end

        waiting = profile.waiting_time
        share = total.zero? ? 0.0 : 100.0 * waiting / total
        format("Waiting: %s (%.1f%%) %s; working %s",
               Tracegraph.human_time(waiting), share, Tracegraph.printable(where), Tracegraph.human_time(total - waiting))
      end

      # "GC: 12 runs, 40 steps, 45.0 ms (8.0%); marking 30.0 ms, sweeping 14.0 ms"
      def gc_line(profile, total)
        gc = profile.gc
        share = total.zero? ? 0.0 : 100.0 * gc.total_time / total
        runs = "#{Tracegraph.group_digits(gc.runs)} run#{'s' unless gc.runs == 1}"
        steps = "#{Tracegraph.group_digits(gc.entries)} step#{'s' unless gc.entries == 1}"
        format("GC: %s, %s, %s (%.1f%%); marking %s, sweeping %s", runs, steps, Tracegraph.human_time(gc.total_time),
               share, Tracegraph.human_time(gc.mark_time), Tracegraph.human_time(gc.sweep_time))
      end
      private_class_method :print_allocation_types, :allocation_cells, :threads_line, :waiting_line, :gc_line
    end
  end
end

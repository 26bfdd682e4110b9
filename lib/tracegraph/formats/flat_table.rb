# The flat profile: a text table of the top methods by self time.
module Tracegraph
  class Profile
    # Prints the top `limit` methods by self time to io:
    #   calls, self, total, self %, name, location;
    # with allocations recorded, the objects each allocated (self and
    # total) before the name.
    # Below the totals, lines on threads, waiting and garbage collection;
    # below the table, the objects allocated by type, if recorded.
    # threads: and idle: choose a view (Profile#view).
    def print_flat(io = $stdout, limit: 30, **view_options)
      return view(**view_options).print_flat(io, limit: limit) unless view_options.empty?
      raise ArgumentError, "limit must be a positive integer, not #{limit.inspect}" unless limit.is_a?(Integer) && limit > 0

      total = total_time
      allocated = allocations? ? ", #{Tracegraph.group_digits(total_allocations)} objects allocated" : ""
      io.puts "#{clock} time, total #{Tracegraph.human_time(total)} in #{methods.size} methods, " \
              "#{Tracegraph.group_digits(total_calls)} calls#{allocated}"
      io.puts threads_line if threads.size > 1 || recorded_threads > 1
      io.puts waiting_line(total) if waiting_time.positive? || hidden_waiting.positive?
      io.puts gc_line(total) if gc.runs.positive? || gc.entries.positive?
      io.puts format("%12s  %10s  %10s  %6s  %s%s", "calls", "self", "total", "self%",
                     allocations? ? format("%12s  %12s  ", "self allocs", "total allocs") : "", "method")
      top = methods.sort_by { |m| [-m.self_time, -m.total_time, m.name] }.first(limit)
      top.each do |m|
        share = total.zero? ? 0.0 : 100.0 * m.self_time / total
        where = m.file ? "  #{Tracegraph.printable(Tracegraph.short_path(m.file))}:#{m.line}" : ""
        io.puts format("%12s  %10s  %10s  %5.1f%%  %s%s%s%s", Tracegraph.group_digits(m.calls),
                       Tracegraph.human_time(m.self_time), Tracegraph.human_time(m.total_time), share,
                       allocation_cells(m), Tracegraph.printable(m.name), m.waiting? ? " (waiting)" : "", where)
      end
      hidden = methods.size - top.size
      io.puts "(#{hidden} more methods not shown)" if hidden.positive?
      print_allocation_types(io)
      nil
    end

    private

    # "Allocations by type:", then per type its count and share, biggest first.
    def print_allocation_types(io)
      types = allocations_by_type
      return if types.nil? || types.empty?

      all = types.values.sum
      io.puts "Allocations by type:"
      types.each do |name, n|
        io.puts format("%12s  %5.1f%%  %s", Tracegraph.group_digits(n), 100.0 * n / all, Tracegraph.printable(name))
      end
    end

    # The allocation columns of a method's row, if recorded.
    def allocation_cells(method)
      return "" unless allocations?

      format("%12s  %12s  ", Tracegraph.group_digits(method.self_allocations),
             Tracegraph.group_digits(method.allocations))
    end

    # "Threads: 6 (main, puma srv tp 001, ...), 103 s of thread time in 17.7 s of wall time"
    def threads_line
      of = recorded_threads > threads.size ? " of #{recorded_threads}" : ""
      wall = wall_time ? " in #{Tracegraph.human_time(wall_time)} of wall time" : ""
      "Threads: #{threads.size}#{of} (#{Tracegraph.printable(thread_names_summary)}), " \
        "#{Tracegraph.human_time(total_time)} of thread time#{wall}"
    end

    # "Waiting: 14.2 s (82.0%) in sleep, join, locks and I/O waits; working 3.1 s"
    def waiting_line(total)
      if hidden_waiting.positive?
        return "Waiting: #{Tracegraph.human_time(hidden_waiting)} in sleep, join, locks and I/O waits left out"
      end

      share = total.zero? ? 0.0 : 100.0 * waiting_time / total
      format("Waiting: %s (%.1f%%) in sleep, join, locks and I/O waits; working %s",
             Tracegraph.human_time(waiting_time), share, Tracegraph.human_time(total - waiting_time))
    end

    # "GC: 12 runs, 40 steps, 45.0 ms (8.0%); marking 30.0 ms, sweeping 14.0 ms"
    def gc_line(total)
      share = total.zero? ? 0.0 : 100.0 * gc.total_time / total
      runs = "#{Tracegraph.group_digits(gc.runs)} run#{'s' unless gc.runs == 1}"
      steps = "#{Tracegraph.group_digits(gc.entries)} step#{'s' unless gc.entries == 1}"
      format("GC: %s, %s, %s (%.1f%%); marking %s, sweeping %s", runs, steps, Tracegraph.human_time(gc.total_time),
             share, Tracegraph.human_time(gc.mark_time), Tracegraph.human_time(gc.sweep_time))
    end
  end

  # 3 significant digits in ns, µs, ms or s, as the graph labels show.
  def self.human_time(ns)
    units = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"]]
    scale, unit = units.find { |s, _| ns >= s } || [1, "ns"]
    value = ns / scale.to_f
    digits = value >= 100 ? 0 : value >= 10 ? 1 : 2
    digits = 0 if unit == "ns"
    format("%.#{digits}f %s", value, unit)
  end

  # Text for a terminal or a CI log: control characters (which could clear
  # the screen or forge log lines) and the Unicode characters that reorder
  # or break lines are shown escaped, as \e, \n or \u{202e}.
  UNPRINTABLE = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/
  CONTROL_ESCAPES = {"\e" => "\\e", "\n" => "\\n", "\r" => "\\r", "\t" => "\\t", "\0" => "\\0"}.freeze

  def self.printable(text)
    text.gsub(UNPRINTABLE) { |c| CONTROL_ESCAPES.fetch(c) { format("\\u{%x}", c.ord) } }
  end

  def self.group_digits(n)
    n.to_s.reverse.scan(/\d{1,3}/).join(",").reverse
  end

  # A source path as people name it: relative to the working directory,
  # the gem ("rubocop/cli.rb" for .../gems/rubocop-1.39.0/lib/rubocop/cli.rb)
  # or Ruby's own library ("(ruby) json/common.rb"); "<internal:...>"
  # paths are shortened inside. Full paths stay in tooltips and files.
  def self.short_path(path)
    if (inner = path[/\A<internal:(.+)>\z/m, 1])
      return "<internal:#{short_path(inner).delete_prefix('(ruby) ')}>"
    end

    pwd = begin
      "#{Dir.pwd}/"
    rescue SystemCallError # the working directory was removed
      nil
    end
    return path.delete_prefix(pwd) if pwd && path.start_with?(pwd) && path.length > pwd.length

    if (gem = path.match(%r{/gems/(?<gem>[^/]+-\d[^/]*)/(?<rest>.+)\z}m))
      return gem[:rest].start_with?("lib/") ? gem[:rest].delete_prefix("lib/") : "#{gem[:gem]}/#{gem[:rest]}"
    end

    dir = ruby_library_dirs.find { |d| path.start_with?(d) }
    dir ? "(ruby) #{path.delete_prefix(dir)}" : path
  end

  # Ruby's own library directories, longest first, each ending in "/".
  def self.ruby_library_dirs
    @ruby_library_dirs ||= %w[rubylibdir rubyarchdir vendorlibdir vendorarchdir vendordir sitelibdir sitearchdir sitedir]
                           .filter_map { |key| RbConfig::CONFIG[key] }
                           .reject(&:empty?).map { |d| d.end_with?("/") ? d : "#{d}/" }.uniq
                           .sort_by { |d| -d.length }.freeze
  end
end

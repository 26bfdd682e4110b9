# How numbers, names and paths read for people: times with their unit,
# counts with grouped digits, text safe for a terminal, short source
# paths. Shared by every layer that shows them; pure functions.
module Tracegraph
  # 3 significant digits in ns, µs, ms or s: "4.11 µs", "1.00 ms" for
  # 999,999 ns. The graph's own rule (tg_format.c), called here, so that a
  # time reads the same in a graph, a table and a log line; the cases are
  # test/fixtures/durations.txt. A Float is rounded to the nanosecond.
  def self.human_time(ns) = _human_time(ns)

  # What was taken out of a profile's times and how sure that is, for the
  # legends: "412 ms of 1.20 s, ± 25 ms" (the raw total is the times plus
  # what was taken out; files from before the ± have none).
  def self.tracing_cost_summary(profile)
    cost = profile.tracing_cost
    sure = cost.uncertainty ? ", ± #{human_time(cost.uncertainty)}" : ""
    "#{human_time(cost.removed)} of #{human_time(profile.total_time + cost.removed)}#{sure}"
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
  # pwd: the working directory with a "/", read once by a caller that
  # shortens many paths (a profile of 10,000 methods).
  def self.short_path(path, pwd: working_dir_prefix)
    if (inner = path[/\A<internal:(.+)>\z/m, 1])
      return "<internal:#{short_path(inner, pwd: pwd).delete_prefix('(ruby) ')}>"
    end

    return path.delete_prefix(pwd) if pwd && path.start_with?(pwd) && path.length > pwd.length

    if (gem = path.match(%r{/gems/(?<gem>[^/]+-\d[^/]*)/(?<rest>.+)\z}m))
      return gem[:rest].start_with?("lib/") ? gem[:rest].delete_prefix("lib/") : "#{gem[:gem]}/#{gem[:rest]}"
    end

    dir = ruby_library_dirs.find { |d| path.start_with?(d) }
    dir ? "(ruby) #{path.delete_prefix(dir)}" : path
  end

  # The working directory with a "/" after it, or nil if it was removed.
  def self.working_dir_prefix
    "#{Dir.pwd}/"
  rescue SystemCallError
    nil
  end

  # short_path of each of paths (nil stays nil), each file shortened once.
  def self.short_paths(paths)
    pwd = working_dir_prefix
    shortened = {}
    paths.map { |path| path && (shortened[path] ||= short_path(path, pwd: pwd)) }
  end

  # Ruby's own library directories, longest first, each ending in "/".
  def self.ruby_library_dirs
    @ruby_library_dirs ||= %w[rubylibdir rubyarchdir vendorlibdir vendorarchdir vendordir sitelibdir sitearchdir sitedir]
                           .filter_map { |key| RbConfig::CONFIG[key] }
                           .reject(&:empty?).map { |d| d.end_with?("/") ? d : "#{d}/" }.uniq
                           .sort_by { |d| -d.length }.freeze
  end
end

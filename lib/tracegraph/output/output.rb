# Writes a profile in the format its path's name asks for, rendering
# pdf/svg/png with Graphviz. Shared by the CLI, autorun and the rake task.
#
# The formats are Formats::ALL's (formats/registry.rb): a new format is a
# row there and, if its suffix was in FOREIGN_SUFFIXES, out of that list.
require "tracegraph/formats/registry"
require "tracegraph/formats/grouping_advice"
require "tracegraph/output/broken_pipe"
require "tracegraph/output/graphviz_output"
require "tracegraph/output/target"
require "tracegraph/output/delivery"

module Tracegraph
  module Output
    # Suffix => format; the longest suffix a name ends with wins.
    FORMATS = Formats::ALL.flat_map { |format| format.suffixes.map { |suffix| [suffix, format.name] } }.to_h.freeze
    # Formats written from the call tree, one stack per path: asking for
    # one records the call tree. Format => what it is called.
    STACK_FORMATS = Formats::ALL.select(&:call_tree).to_h { |format| [format.name, format.call_tree] }.freeze
    CALLGRIND_NAME = Formats::CALLGRIND_NAME
    # Other profilers' formats that end in a suffix of ours: the name asks
    # for a format tracegraph does not write, so it is refused rather than
    # silently given tracegraph's own JSON.
    FOREIGN_SUFFIXES = %w[.vernier.json].freeze
    # Words that, before a suffix of ours, name another format: x.gecko.json
    # or x.folded.txt asks for something other than what .json or .txt
    # writes, so the name is refused. (Any other word is a name's own:
    # run.2026-11-26.json, call_graph.12345.dot.)
    FOREIGN_WORDS = %w[vernier gecko stackprof chrome trace perfetto cpuprofile pprof collapsed flamegraph
                       heap heapprofile memprof rubyprof ruby-prof].freeze
    # A compressed name asks for compression, which tracegraph does not do.
    COMPRESSION_SUFFIXES = %w[.gz .tgz .bz2 .xz .zst .lz4 .lz .br .z .zip .7z].freeze
    GRAPH_FORMATS = Formats::ALL.select(&:graph).map(&:name).freeze

    module_function

    # The format path's name asks for (one of FORMATS' values), or nil.
    def format_of(path)
      name = File.basename(path.to_s).downcase(:ascii)
      return :callgrind if CALLGRIND_NAME.match?(name)

      suffix = suffix_of(path)
      suffix && FORMATS[suffix]
    end

    # The suffix that names path's format: the longest of FORMATS' and
    # FOREIGN_SUFFIXES' the name ends with (with the word before it if that
    # names another format: ".svg.json", ".folded.txt"), else its
    # extension, with the one before it if it is compressed (".json.gz");
    # nil if it has none.
    def suffix_of(path)
      name = File.basename(path.to_s).downcase(:ascii) # (:ascii keeps its length)
      longest = (FORMATS.keys + FOREIGN_SUFFIXES).select { |s| name.length > s.length && name.end_with?(s) }
                                                 .max_by(&:length)
      if longest
        before = File.extname(name.delete_suffix(longest))
        return before + longest if FORMATS.key?(before) || FOREIGN_WORDS.include?(before.delete_prefix("."))

        return longest
      end

      ext = File.extname(name)
      return nil if ext.empty?

      COMPRESSION_SUFFIXES.include?(ext) ? File.extname(name.delete_suffix(ext)) + ext : ext
    end

    # ".dot .json ... or callgrind.out[.NAME]", for help and errors.
    def known_formats
      "#{FORMATS.keys.join(' ')} or callgrind.out[.NAME]"
    end

    # The Target for path (a name or a Target; see tracegraph/output/target),
    # checked: raises Tracegraph::Error, in the user's terms, unless it can
    # be written, so a long run is not wasted on a typo.
    def check_path(path, format: nil)
      target = target(path, format: format)
      if target.direct?
        check_file_path(target.path)
      elsif target.file?
        dir = Tracegraph.check_output_location(target.path)
        raise Error, "cannot write #{target.path}: directory #{dir} is not writable" unless File.writable?(dir)

        probe_directory(target.path, dir)
        probe_file(target.path)
      elsif target.stream? && !File.writable?(target.path)
        raise Error, "cannot write #{target.path}: permission denied"
      end
      target
    rescue Error => e
      raise Error, target ? target.in_user_terms(e.message) : e.message
    end

    # check_path for each of paths, and at most one of them standard
    # output; returns their Targets.
    def check_paths(paths, format: nil)
      targets = paths.map { |path| check_path(path, format: format) }
      to_stdout = targets.select(&:stdout?)
      if to_stdout.size > 1
        raise Error, "only one output can go to standard output (got #{to_stdout.map(&:name).join(', ')})"
      end

      targets
    end

    # Raises Tracegraph::Error unless path names a known format in a
    # directory that exists.
    def check_file_path(path)
      unless format_of(path)
        suffix = suffix_of(path)
        raise Error, "cannot write #{path}: unknown format #{suffix || '(no extension)'} (known: #{known_formats})"
      end
      dir = Tracegraph.check_output_location(path)
      raise Error, "cannot write #{path}: directory #{dir} is not writable" unless File.writable?(dir)
      raise Error, "cannot write #{path}: it is not writable" if File.exist?(path) && !File.writable?(path)

      probe_directory(path, dir)
      probe_file(path)
      probe_file(dot_path_for(path)) if format_of(path) == :rendered
    end

    # Proves path itself can be written, by opening it: an existing file
    # for writing but not truncated (an earlier run's result stays until
    # the new one replaces it), a new one by creating it and removing it
    # again, so a run that dies leaves no empty file behind. Catches what
    # the directory's probe cannot: a name too long for the file system,
    # or one that is a FIFO, which would block the write at the end.
    def probe_file(path)
      if File.exist?(path) || File.symlink?(path)
        raise Error, "cannot write #{path}: it is not a regular file" unless File.file?(path)

        File.open(path, File::WRONLY) { nil }
      else
        File.open(path, File::WRONLY | File::CREAT | File::EXCL) { nil }
        File.delete(path)
      end
    rescue SystemCallError => e
      raise Error, "cannot write #{path}: #{e.message.sub(/ @ .*/, '').sub(/ - .*/, '')}"
    end

    # The .dot a pdf/svg/png is rendered from, kept beside it.
    def dot_path_for(path) = path.sub(/\.[^.\/]+\z/, ".dot")

    # Some directories say they are writable and are not (/proc, /sys, a
    # read-only mount as root): create and remove a file there, so the
    # run is not wasted on a profile that cannot be written.
    def probe_directory(path, dir)
      probe = File.join(dir, ".tracegraph-probe-#{Process.pid}-#{rand(1 << 30)}")
      File.open(probe, File::WRONLY | File::CREAT | File::EXCL) { nil }
      File.delete(probe)
    rescue SystemCallError => e
      raise Error, "cannot write #{path}: cannot create files in #{dir} (#{e.message.sub(/ @ .*/, '').sub(/ - .*/, '')})"
    end

    # Writes profile to path (a name or a Target); returns the paths
    # written, as the user would name them. For pdf/svg/png the .dot is
    # written beside it first, so the profile survives a missing or failing
    # `dot`: the error then says where it is. The options are write_dot's,
    # and threads:/idle: choose a view of the profile for every format
    # (Profile#view).
    def write(profile, path, dot_options = {})
      target = check_path(path)
      dot_options = dot_options.merge(idle: idle_for(profile, output_format(target))) if dot_options[:idle] == :auto
      profile, dot_options = profile.viewed(dot_options)
      check_focus!([profile], dot_options) if draws_graph?(target)
      deliver(target) { |file| write_file(profile, file, dot_options) }
    end

    # Writes profile to a file in the format its name asks for. The HTML
    # report's graph view is drawn with the graph options (focus, ignore,
    # the fractions, max_nodes, group_by ...), as a .svg would be.
    def write_file(profile, path, dot_options)
      format = Formats.named(format_of(path))
      return write_graph_file(profile, path, dot_options) if format.graph
      return [format.writer.write(grouped(profile, dot_options), path)] if format.name == :text
      return [format.writer.write(profile, path, **dot_options)] if format.name == :html

      check_call_tree(profile, path, format) if format.call_tree
      [format.writer.write(profile, path)]
    end

    # For a run that just ended: [the view the options ask for, the options
    # left, a message or nil]. A view that cannot be made (no thread of that
    # name ran) gives the whole profile and says why, rather than losing it.
    def view_of_run(profile, options)
      [*viewed(profile, options), nil]
    rescue Tracegraph::Error => e
      [profile, options.except(*VIEW_OPTIONS), "#{e.message}; writing every thread instead"]
    end

    # The formats that show groups (--group-by): the graph's, the HTML
    # report's graph view, and the text table (.txt, --flat), one row per
    # group.
    def shows_groups?(path) = draws_graph?(path) || output_format(path) == :text

    # Whether an output draws the call graph with the graph options: a
    # graph's format, or the HTML report (its graph view).
    def draws_graph?(path) = GRAPH_FORMATS.include?(output_format(path)) || output_format(path) == :html

    # The grouping dot_options ask for (:class, :file, :gem), or nil.
    def grouping(dot_options)
      group = dot_options[:group_by]
      group && group.to_s != "method" ? group.to_sym : nil
    end

    # profile with one row per group, if dot_options group it.
    def grouped(profile, dot_options)
      group = grouping(dot_options)
      group ? profile.group_by(group) : profile
    end

    # --group-by with no output that can show groups would be ignored:
    # refused before anything runs. Raises Tracegraph::Error.
    def check_group_by!(paths, dot_options, flat: false)
      group = grouping(dot_options)
      return if group.nil? || flat || paths.any? { |path| shows_groups?(path) }

      raise Error, "--group-by #{group} shows groups in the graph (.dot, .svg, .pdf, .png, and .html's graph view) and the text table " \
                   "(.txt, --flat), and #{paths.map { |path| shown(path) }.join(', ')} cannot show them: add one of those " \
                   "(-o by-#{group}.svg, -o by-#{group}.txt)"
    end

    # What --group-by did not apply to, when some outputs cannot show
    # groups: they are written one row per method. nil if none.
    def group_by_note(paths, dot_options)
      group = grouping(dot_options) or return nil
      others = paths.reject { |path| shows_groups?(path) }
      return nil if others.empty?

      "--group-by #{group} applies to the graph (and .html's graph view) and the text table; #{others.map { |path| shown(path) }.join(', ')} " \
        "#{others.size == 1 ? 'is' : 'are'} written by method, as recorded"
    end

    # A focus that matches no method of profiles would draw an empty
    # graph that only its legend explains: the command and render fail
    # that output instead, naming the pattern. Raises Tracegraph::Error.
    # (The API's to_dot still draws it, with the legend's note.)
    def check_focus!(profiles, dot_options)
      pattern = DotOptions.regexp(:focus, dot_options[:focus]) or return
      return if profiles.any? { |profile| profile.methods.any? { |m| pattern.match?(m.name) } }

      counts = profiles.map { |profile| Tracegraph.group_digits(profile.methods.size) }.join(" and ")
      raise Error, "--focus #{Tracegraph.printable(pattern.inspect)} matches no method of #{profiles.size == 1 ? 'the profile' : 'either run'} " \
                   "(#{counts} methods); the names are as the flat table prints them (Class#method, Class.method, " \
                   "block in ...)"
    end

    def shown(path) = path.respond_to?(:shown) ? path.shown : path.to_s

    # Profile#viewed, but idle: :auto stays in the options, for write to
    # choose per output.
    def viewed(profile, options)
      auto = options[:idle] == :auto
      view, rest = profile.viewed(auto ? options.except(:idle) : options)
      [view, auto ? rest.merge(idle: :auto) : rest]
    end

    # The flat table's view options: :auto chosen as for a .txt.
    def flat_view(profile, options)
      options[:idle] == :auto ? {idle: idle_for(profile, :text)} : {}
    end

    # Prints the flat table of profile as dot_options view and group it.
    def print_flat(profile, io, dot_options)
      grouped(profile.view(**flat_view(profile, dot_options)), dot_options).print_flat(io)
    end

    # The waiting choice the command makes when none is given (idle:
    # :auto): the outputs read as a ranking of where the time went (the
    # graph, the text table, --flat) leave waiting out, so a worker
    # blocked on a Queue does not head them, and say in one line how much
    # was left out and where; that needs the call tree, which the command
    # records for them. The others keep everything: the data formats are
    # for other tools and for render, and the HTML report opens with
    # waiting hidden by itself (Formats::Html), one choice away.
    def idle_for(profile, format)
      ranking = GRAPH_FORMATS.include?(format) || format == :text
      ranking && profile.call_tree && profile.waiting_time.positive? ? :hide : :show
    end

    # The outputs the command hides waiting in by default (see idle_for).
    def ranks_time?(paths)
      paths.any? { |path| GRAPH_FORMATS.include?(output_format(path)) || output_format(path) == :text }
    end

    # Writes each of paths with the block, which returns the paths it
    # wrote; one that fails does not stop the others. Returns whether all
    # were written, and one message per path ("LABEL: wrote ..." or the
    # error), in paths' order, for the caller to print when it is ready.
    # pdf/svg/png are written last, so a render stopped by a signal
    # (RenderInterrupted, which is not caught here: Ctrl-C stops the run)
    # costs no other output; it carries the files written before it.
    # A standard stream whose reader is gone is set aside first, and an
    # error of the system's is that path's failure, not the run's.
    def write_each(paths, label)
      BrokenPipe.settle_standard_streams
      messages = {}
      kept = []
      order = paths.each_index.sort_by { |i| [output_format(paths[i]) == :rendered ? 1 : 0, i] }
      ok = order.map do |i|
        path = paths[i]
        begin
          written = yield(path)
          kept.concat(written)
          messages[i] = Tracegraph.printable("#{label}: wrote #{written.join(', ')}")
          true
        rescue RenderInterrupted => e
          e.kept = kept
          if path.is_a?(Target) && path.direct?
            e.path = path.shown_path(e.path)
            e.dot_path = path.shown_path(e.dot_path)
          end
          raise
        rescue Tracegraph::Error => e
          messages[i] = Tracegraph.printable("#{label}: #{in_user_terms(path, e.message)}")
          false
        rescue SystemCallError, IOError => e
          messages[i] = Tracegraph.printable("#{label}: #{in_user_terms(path, "cannot write #{path_of(path)}: #{e.message}")}")
          false
        end
      end.all?
      [ok, messages.sort.map(&:last)]
    end

    def in_user_terms(path, message) = path.is_a?(Target) ? path.in_user_terms(message) : message
    def path_of(path) = path.is_a?(Target) ? path.path : path

    # check_path for outputs that can only be a graph; returns the Target.
    def check_graph_path(path, format: nil)
      target = check_path(path, format: format)
      return target if GRAPH_FORMATS.include?(target.format)

      suffixes = FORMATS.select { |_, f| GRAPH_FORMATS.include?(f) }.keys
      raise Error, "cannot write #{target.name}: a graph is #{suffixes.join(' ')} (or --format dot, svg, png, pdf)"
    end

    # check_path for a diff's outputs: a graph, or the HTML diff report
    # (ProfileDiff#write_html); returns the Target.
    def check_diff_path(path, format: nil)
      target = check_path(path, format: format)
      return target if target.format == :html || GRAPH_FORMATS.include?(target.format)

      suffixes = FORMATS.select { |_, f| GRAPH_FORMATS.include?(f) || f == :html }.keys
      raise Error, "cannot write #{target.name}: a diff is a graph or an HTML report: #{suffixes.join(' ')} " \
                   "(or --format dot, svg, png, pdf, html)"
    end

    # Writes a ProfileDiff as a graph (write_graph), or as the HTML diff
    # report, showing gate's verdict (a DiffGate or nil); dot_options are
    # to_dot's, group_by: how both profiles were grouped.
    def write_diff(diff, path, dot_options = {}, gate: nil, group_by: :method)
      target = check_diff_path(path)
      check_focus!([diff.base, diff.head], dot_options)
      return write_graph(diff, target, dot_options) unless target.format == :html

      deliver(target) { |file| [diff.write_html(file, gate: gate, group_by: group_by, **dot_options)] }
    end

    # Writes anything with a write_dot (a Profile, a ProfileDiff) as
    # .dot, .pdf, .svg or .png, to a name or a Target.
    def write_graph(graph, path, dot_options = {})
      target = check_graph_path(path)
      deliver(target) { |file| write_graph_file(graph, file, dot_options) }
    end

    def write_graph_file(graph, path, dot_options)
      if Formats.named(format_of(path)).graphviz
        render(graph, path, dot_options)
      else
        [graph.write_dot(path, **dot_options)]
      end
    end

    # The format an output (a name or a Target) asks for, or nil.
    def output_format(path) = path.is_a?(Target) ? path.format : format_of(path)

    # Stack outputs need the call tree, which costs a little: record it
    # only when one of these paths asks for it.
    def needs_call_tree?(paths)
      paths.any? { |path| STACK_FORMATS.key?(output_format(path)) }
    end

    # Whether one of these paths needs the call tree or shows it where it
    # is there (the HTML report's flame graph): a single run records it.
    def wants_call_tree?(paths)
      needs_call_tree?(paths) ||
        paths.any? { |path| (format = output_format(path)) && Formats::BY_NAME[format]&.shows_call_tree }
    end

    # path with a tag (a pid, "12345.2") added before the format's suffix
    # (graphs/call_graph.pdf -> graphs/call_graph.12345.pdf), or after a
    # callgrind name, as callgrind itself does (callgrind.out.app ->
    # callgrind.out.app.12345). See OutputNaming.
    def tagged_path(path, tag)
      return "#{path}.#{tag}" if CALLGRIND_NAME.match?(File.basename(path))

      suffix = suffix_of(path) or return "#{path}.#{tag}"
      "#{path[0...-suffix.length]}.#{tag}#{path[-suffix.length..]}"
    end

    # What the call tree's cap left out, for a run writing stack outputs
    # to paths; nil if nothing was folded. (pprof's file says it in a
    # comment, speedscope's in its name and the Firefox Profiler's in its
    # product; folded stacks cannot.)
    def folded_note(profile, paths)
      tree = profile.call_tree
      return nil unless tree && tree.folded_calls.positive? && needs_call_tree?(paths)

      "the call tree reached its cap (#{tree.size} paths kept): #{tree.folded_calls} calls on new paths " \
        "were folded into their nearest kept ancestor (raise the cap with --max-call-tree-nodes)"
    end

    # For a run or render writing a graph to one of paths with method-level
    # boxes that hold little of the time: which --group-by would hold more
    # (Formats::GroupingAdvice), or nil. profile and dot_options as after
    # Profile#viewed. Advice only: a graph that cannot be drawn says so
    # when it is written, not here.
    def grouping_note(profile, paths, dot_options)
      return nil unless paths.any? { |path| GRAPH_FORMATS.include?(output_format(path)) }

      dot_options = dot_options.merge(idle: idle_for(profile, GRAPH_FORMATS.first)) if dot_options[:idle] == :auto
      Formats::GroupingAdvice.note(profile, dot_options)
    rescue Tracegraph::Error, ArgumentError
      nil
    end

    # A saved profile has a call tree only if it was recorded with one.
    def check_call_tree(profile, path, format)
      return if profile.call_tree

      raise Error, "cannot write #{path}: this profile has no call tree; record it with " \
                   "`tracegraph --call-tree` (or Tracegraph.start(call_tree: true)) to write #{format.call_tree}"
    end

    def render(graph, path, dot_options)
      dot_path = dot_path_for(path)
      graph.write_dot(dot_path, **dot_options)
      DotRender.run(dot_path, path)
      [dot_path, path]
    rescue Errno::ENOENT
      raise Error, "cannot render #{path}: Graphviz's `dot` is not installed (apt-get install graphviz); " \
                   "the call graph is in #{dot_path}"
    end
  end
end

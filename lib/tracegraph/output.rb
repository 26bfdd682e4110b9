# Writes a profile in the format its path's extension names, rendering
# pdf/svg/png with Graphviz. Shared by the CLI, autorun and the rake task.
require "open3"
require "stringio"

module Tracegraph
  module Output
    TEXT_FORMATS = %w[.dot .json .txt .folded].freeze
    RENDERED_FORMATS = %w[.pdf .svg .png].freeze
    FORMATS = (TEXT_FORMATS + RENDERED_FORMATS).freeze

    module_function

    # Raises Tracegraph::Error unless path names a known format in a
    # directory that exists, so a long run is not wasted on a typo.
    def check_path(path)
      ext = File.extname(path).downcase
      unless FORMATS.include?(ext)
        raise Error, "cannot write #{path}: unknown format #{ext.empty? ? '(no extension)' : ext} " \
                     "(use #{FORMATS.join(' ')})"
      end
      dir = Tracegraph.check_output_location(path)
      raise Error, "cannot write #{path}: directory #{dir} is not writable" unless File.writable?(dir)
      raise Error, "cannot write #{path}: it is not writable" if File.exist?(path) && !File.writable?(path)

      probe_directory(path, dir)
    end

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

    GRAPH_FORMATS = (%w[.dot] + RENDERED_FORMATS).freeze

    # Writes profile to path; returns the paths written. For pdf/svg/png
    # the .dot is written beside it first, so the profile survives a
    # missing or failing `dot`: the error then says where it is.
    def write(profile, path, dot_options = {})
      check_path(path)
      case File.extname(path).downcase
      when ".json" then [profile.write_json(path)]
      when ".txt" then [Tracegraph.write_output(path, flat_text(profile))]
      when ".folded" then [profile.write_folded(path)]
      else write_graph(profile, path, dot_options)
      end
    end

    # check_path for outputs that can only be a graph.
    def check_graph_path(path)
      check_path(path)
      return if GRAPH_FORMATS.include?(File.extname(path).downcase)

      raise Error, "cannot write #{path}: a graph is #{GRAPH_FORMATS.join(' ')}"
    end

    # Writes anything with a write_dot (a Profile, a ProfileDiff) as
    # .dot, .pdf, .svg or .png.
    def write_graph(graph, path, dot_options = {})
      check_graph_path(path)
      if File.extname(path).casecmp?(".dot")
        [graph.write_dot(path, **dot_options)]
      else
        render(graph, path, dot_options)
      end
    end

    # Folded stacks need the call tree, which costs a little: record it
    # only when one of these paths asks for it.
    def needs_call_tree?(paths)
      paths.any? { |path| File.extname(path).casecmp?(".folded") }
    end

    def flat_text(profile)
      io = StringIO.new
      profile.print_flat(io, limit: 100)
      io.string
    end

    def render(graph, path, dot_options)
      dot_path = path.sub(/\.[^.\/]+\z/, ".dot")
      graph.write_dot(dot_path, **dot_options)
      format = File.extname(path).delete_prefix(".").downcase
      # Absolute paths: a name such as -Kfoo.svg cannot pass for an option.
      _, err, status = Open3.capture3("dot", "-T#{format}", File.expand_path(dot_path), "-o", File.expand_path(path))
      unless status.success?
        raise Error, "Graphviz could not render #{path} (#{err.lines.first&.strip}); the call graph is in #{dot_path}"
      end

      [dot_path, path]
    rescue Errno::ENOENT
      raise Error, "cannot render #{path}: Graphviz's `dot` is not installed (apt-get install graphviz); " \
                   "the call graph is in #{dot_path}"
    end
  end
end

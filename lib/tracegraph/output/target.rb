# Where one output goes, and in which format.
#
# A target is a file, standard output ("-", /dev/stdout), or something
# already there that is not a file: a FIFO with a reader, a pipe
# (`-o >(gzip > p.json.gz)` is /dev/fd/63), a character device (/dev/null,
# /dev/full). The format comes from the name (call_graph.svg, -.folded) or,
# for a name without a known one (-, /dev/stdout, a FIFO called `profile`),
# from --format. A name ending in .gz (p.json.gz, p.folded.gz) is
# compressed with gzip; .pb.gz is pprof's own compressed format.
#
# Files are written in place, as before. Everything else is written to a
# file in a temporary directory first, then copied (compressed, if asked)
# to where it goes: a stream cannot be reopened, seeked or given a .dot
# beside it, and a pipe is only opened once the whole profile exists, so a
# slow or missing reader never holds up the program.
require "tracegraph/formats/registry"

module Tracegraph
  module Output
    # --format's names, each with the suffix that names it, from the
    # registry (formats/registry.rb).
    FORMAT_NAMES = Formats::ALL.flat_map { |format| format.options.zip(format.suffixes) }.to_h.freeze
    STDOUT_NAMES = %w[- /dev/stdout /dev/fd/1 /proc/self/fd/1].freeze
    GZIP_SUFFIX = ".gz"

    class Target
      # name: as the user typed it; path: where the bytes go (absolute for a
      # file, "-" for standard output); suffix: the format's (".svg");
      # gzip: compress what the format writes.
      attr_reader :name, :path, :suffix, :base

      def initialize(name:, path:, suffix:, gzip:, kind:, named:, base: Dir.pwd)
        @name = name
        @path = path
        @suffix = suffix
        @gzip = gzip
        @kind = kind # :file, :stdout or :stream (a FIFO, pipe or device)
        @named = named # the name says the format (else --format did)
        @base = base # the directory the name was given in
      end

      # The same output under another name (a child process's, with its pid),
      # in the same format.
      def renamed
        new_name = yield(name)
        new_path = name == path ? new_name : File.expand_path(new_name, @base)
        Target.new(name: new_name, path: new_path, suffix: suffix, gzip: gzip?, kind: @kind, named: @named, base: @base)
      end

      # A copy whose path is absolute, so that the program changing its
      # directory cannot move it; messages still show the name as given.
      def absolute
        return self unless file?

        Target.new(name: name, path: File.expand_path(path, @base), suffix: suffix, gzip: gzip?, kind: @kind,
                   named: @named, base: @base)
      end

      def format_name = FORMAT_NAMES.key(suffix) || format.to_s

      # A path this output wrote, as the user would name it: the name they
      # gave, or relative to where they gave it when it is under there.
      def shown_path(written)
        return shown if written == path

        Output.relative_to(written, @base)
      end

      # message with this output's absolute paths as the user knows them.
      def in_user_terms(message)
        message = message.gsub(path, name) if file? && path != name
        message.gsub("#{File.expand_path(@base)}/", "")
      end

      def gzip? = @gzip
      def stdout? = @kind == :stdout
      def stream? = @kind == :stream
      def file? = @kind == :file

      # Written where it is named, by the format's own writer.
      def direct? = file? && !gzip? && @named
      def named_format? = @named

      def format = Output.format_of("x#{suffix}")
      def rendered? = format == :rendered

      # "standard output", or the name as the user typed it (relative to the
      # directory it was given in, when it is absolute and under there).
      def shown
        return "standard output" if stdout?

        name.start_with?("/") ? Output.relative_to(name, @base) : name
      end

      def to_s = name
    end

    module_function

    # The Target for spec (a name as typed on the command line, or a Target),
    # with --format's name for a spec whose own name has no known format.
    # Raises Tracegraph::Error for what cannot be written, before anything runs.
    def target(spec, format: nil, dir: Dir.pwd)
      return spec if spec.is_a?(Target)

      spec = spec.to_path if spec.respond_to?(:to_path)
      raise Error, "output path must be a String, not #{spec.class}" unless spec.is_a?(String)
      raise Error, "output path is empty" if spec.empty?
      shown = spec.start_with?("/") ? relative_to(spec, dir) : spec
      if spec.end_with?("/")
        raise Error, "cannot write #{shown}: a name ending in / names a directory (as in the shell's `> #{shown}`)"
      end

      check_format_name(format) if format
      kind = kind_of(spec, dir)
      name = kind == :stdout && !spec.start_with?("-.") ? "-" : spec # /dev/stdout's format is --format's
      compressed = name.downcase(:ascii).end_with?(GZIP_SUFFIX) && !name.downcase(:ascii).end_with?(".pb.gz")
      base = compressed ? name.delete_suffix(name[-GZIP_SUFFIX.length..]) : name
      suffix = format_of(base) ? suffix_for(base) : format && FORMAT_NAMES[format]
      unknown!(spec, shown) unless suffix
      gzip = compressed && suffix != ".pb.gz" # pprof's format is gzip already
      Target.new(name: spec, path: kind == :stdout ? "-" : spec, suffix: suffix, gzip: gzip, kind: kind,
                 named: format_of(base) ? true : false, base: dir)
    end

    # path relative to dir when it is under dir, else as it is.
    def relative_to(path, dir)
      prefix = "#{File.expand_path(dir)}/"
      path.start_with?(prefix) ? path.delete_prefix(prefix) : path
    end

    # --format, for the commands that write outputs.
    def define_format_option(parser, options)
      parser.on("--format FORMAT", FORMAT_NAMES.keys,
                "The format of -o - and of outputs whose name has none: #{FORMAT_NAMES.keys.join(', ')}") do |v|
        options[:format] = v
      end
    end

    # The suffix of a name whose format is known: ".svg", or ".callgrind"
    # for callgrind.out.NAME.
    def suffix_for(name)
      return ".callgrind" if CALLGRIND_NAME.match?(File.basename(name).downcase(:ascii))

      suffix_of(name)
    end

    def check_format_name(format)
      return if FORMAT_NAMES.key?(format)

      raise Error, "unknown --format #{format.inspect} (known: #{FORMAT_NAMES.keys.join(', ')})"
    end

    # :stdout, :stream for a FIFO, pipe, socket or device already there, or :file.
    def kind_of(spec, dir)
      return :stdout if STDOUT_NAMES.include?(spec) || File.basename(spec).start_with?("-.") && File.dirname(spec) == "."

      stat = File.stat(File.expand_path(spec, dir))
      stat.file? || stat.directory? ? :file : :stream
    rescue SystemCallError
      :file
    end

    def unknown!(spec, shown)
      suffix = suffix_of(spec)
      hint = suffix ? "" : "; give --format #{FORMAT_NAMES.keys.join('|')} to name one"
      raise Error, "cannot write #{shown}: unknown format #{suffix || '(no extension)'} (known: #{known_formats})#{hint}"
    end
  end
end

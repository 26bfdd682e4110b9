# Where Tracegraph::Rack puts each request's profile: one directory, files
# named by time, verb and path, never overwriting one another.
#
#   tmp/tracegraph/20261123-151502.123-GET-api-users.json (and .dot, .svg...)
#   tmp/tracegraph/20261123-151502.123-GET-api-users-2.json (same moment, same route)
require "fileutils"
require "tracegraph/output/output"

module Tracegraph
  class RequestFiles
    # What formats: may name besides the JSON, which is always written.
    FORMATS = Output::FORMATS.keys.map { |ext| ext.delete_prefix(".") }.freeze
    # The ones Graphviz draws from the .dot.
    RENDERED = Output::FORMATS.select { |_, format| format == :rendered }.keys.map { |ext| ext.delete_prefix(".") }.freeze
    MAX_PATH_PART = 80

    attr_reader :dir, :formats

    # Creates dir; raises Tracegraph::Error if it cannot, and ArgumentError
    # for a format it does not know, so a bad setting fails at boot, not at
    # the first profiled request.
    def initialize(dir:, formats:)
      @formats = self.class.check_formats(formats)
      # pdf, svg and png keep their .dot beside them.
      rendered = @formats.intersect?(RENDERED)
      @extensions = (@formats + (rendered ? ["dot"] : [])).uniq
      @dir = dir.to_s
      raise ArgumentError, "dir must not be empty" if @dir.empty?

      FileUtils.mkdir_p(@dir)
      Output.probe_directory(File.join(@dir, "x.json"), @dir)
    rescue SystemCallError => e
      raise Error, "cannot use #{@dir} for profiles: #{e.message.sub(/ @ .*/, '')}"
    end

    def self.check_formats(formats)
      unless formats.is_a?(Array) && formats.all? { |f| f.is_a?(String) || f.is_a?(Symbol) }
        raise ArgumentError, "formats must be an Array of format names, not #{formats.inspect}"
      end
      formats = formats.map { |f| f.to_s.downcase.delete_prefix(".") }
      unknown = formats - FORMATS
      unless unknown.empty?
        raise ArgumentError, "unknown format#{'s' if unknown.size > 1} #{unknown.join(', ')} " \
                             "(allowed: #{FORMATS.join(', ')})"
      end
      rendered = formats & RENDERED
      if rendered.any? && !graphviz?
        raise ArgumentError, "formats #{rendered.join(', ')} need Graphviz's `dot`, which is not installed " \
                             "(apt-get install graphviz), or use dot"
      end
      (formats - ["json"]).uniq
    end

    def self.graphviz?
      ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).any? { |d| File.executable?(File.join(d, "dot")) }
    end

    # Stack formats (folded, pprof, speedscope, Firefox Profiler) need the call tree recorded.
    def call_tree? = Output.needs_call_tree?(formats.map { |format| "x.#{format}" })

    # A file name part from a request's path: letters, digits, _ and -,
    # everything else one "-": "/api/users/42.json" -> "api-users-42-json".
    def self.path_part(path, max: MAX_PATH_PART)
      part = path.to_s.gsub(/[^A-Za-z0-9_-]+/, "-").gsub(/\A-+|-+\z/, "")[0, max].delete_suffix("-")
      part.empty? ? "root" : part
    end

    def self.verb_part(verb)
      part = verb.to_s.gsub(/[^A-Za-z0-9]/, "")[0, 16]
      part.empty? ? "REQUEST" : part
    end

    def self.stamp(time) = time.utc.strftime("%Y%m%d-%H%M%S.%L")

    # Writes one request's profile; returns the paths written.
    def write_request(profile, time:, verb:, path:)
      write(profile, "#{self.class.stamp(time)}-#{self.class.verb_part(verb)}-#{self.class.path_part(path)}")
    end

    # Writes a profile summed over `count` requests; returns the paths.
    def write_merged(profile, time:, count:)
      write(profile, "#{self.class.stamp(time)}-merged-#{count}-requests")
    end

    # Claims the name stem (or stem-2, stem-3...) now, by creating its
    # .json empty, and returns the path without extension, for
    # write_reserved to fill later (Tracegraph::RailsMiddleware names the
    # file in the response, then writes it after the response has gone).
    def reserve(stem)
      (1..).each do |n|
        base = File.join(dir, n == 1 ? stem : "#{stem}-#{n}")
        next if @extensions.any? { |ext| File.exist?("#{base}.#{ext}") }

        begin
          File.open("#{base}.json", File::WRONLY | File::CREAT | File::EXCL) { nil }
          return base
        rescue Errno::EEXIST
          next
        rescue SystemCallError => e
          raise Error, "cannot write #{base}.json: #{e.message.sub(/ @ .*/, '')}"
        end
      end
    end

    # Writes the profile at a base path from reserve: the JSON, then the
    # other formats beside it. Returns the paths written.
    def write_reserved(profile, base)
      written = [profile.write_json("#{base}.json")]
      formats.each { |format| written.concat(Output.write(profile, "#{base}.#{format}")) }
      written.uniq
    end

    private

    # The JSON first, in a file reserve creates (O_EXCL), so two writers
    # never get the same name; then the other formats beside it.
    def write(profile, stem) = write_reserved(profile, reserve(stem))
  end
end

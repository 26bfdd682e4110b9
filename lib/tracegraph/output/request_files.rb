# Where Tracegraph::Rack puts each request's profile: one directory, files
# named by time, verb and path, never overwriting one another, and only
# the newest `keep` requests' files kept.
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
    # How many requests' files are kept by default.
    KEEP = 20
    # The name of a file this class writes: the time (stamp), then
    # letters, digits, - and _; then a dot and the format's extension
    # (OWN_EXTENSIONS). Only such files are ever removed.
    OWN_NAME = /\A(?<base>\d{8}-\d{6}\.\d{3}-[A-Za-z0-9_-]+)\.(?<ext>[a-z.]+)\z/
    OWN_EXTENSIONS = (FORMATS + %w[json dot]).uniq.freeze
    # The name of a sum write_merged writes.
    MERGED = /-merged-\d+-requests(?:-\d+)?\z/

    attr_reader :dir, :formats, :keep

    # Creates dir; raises Tracegraph::Error if it cannot, and ArgumentError
    # for a format it does not know, so a bad setting fails at boot, not at
    # the first profiled request. keep: how many requests' files to keep,
    # the newest (0: all).
    def initialize(dir:, formats:, keep: KEEP)
      raise ArgumentError, "keep must be an Integer >= 0 (0 keeps all), not #{keep.inspect}" unless keep.is_a?(Integer) && keep >= 0

      @keep = keep
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
      write(profile, "#{self.class.stamp(time)}-merged-#{count}-requests") # (MERGED)
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
    # other formats beside it; then removes the files of all but the
    # newest `keep` requests (prune). Returns the paths written.
    def write_reserved(profile, base)
      written = [profile.write_json("#{base}.json")]
      formats.each { |format| written.concat(Output.write(profile, "#{base}.#{format}")) }
      prune
      written.uniq
    end

    # Removes the files of all but the newest `keep` requests (none with
    # keep 0): files of this directory named as this class names them,
    # newest by their names' time. The sums write_merged writes are
    # neither counted nor removed: there is one for many requests.
    # Returns the paths removed.
    def prune
      return [] if keep.zero?

      own = own_files
      requests = own.keys.grep_v(MERGED)
      remove(requests.sort.reverse.drop(keep).flat_map { |base| own[base] })
    end

    # Removes every file of this directory named as this class names
    # them (bin/rails tmp:clear); returns the paths removed.
    def clear = remove(own_files.values.flatten)

    private

    # {base => [its files' names]} for the files this class writes.
    def own_files
      Dir.children(dir).each_with_object({}) do |name, bases|
        found = OWN_NAME.match(name)
        next unless found && OWN_EXTENSIONS.include?(found[:ext]) && File.file?(File.join(dir, name))

        (bases[found[:base]] ||= []) << name
      end
    rescue SystemCallError
      {}
    end

    def remove(names)
      names.filter_map do |name|
        path = File.join(dir, name)
        File.delete(path)
        path
      rescue SystemCallError # gone already, or not ours to remove
        nil
      end
    end

    # The JSON first, in a file reserve creates (O_EXCL), so two writers
    # never get the same name; then the other formats beside it.
    def write(profile, stem) = write_reserved(profile, reserve(stem))
    private :write
  end
end

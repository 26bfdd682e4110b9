# Reads a profile file for Profile.load_json, refusing what cannot be one
# before it costs anything: only regular files (a FIFO would block, a
# device never ends), at most max_bytes, and only UTF-8 text. A gzip file
# (p.json.gz, as `-o p.json.gz` writes) is inflated, to at most max_bytes.
require "stringio"
require "zlib"

module Tracegraph
  module ProfileFile
    # 1 GiB: ten times a profile with the default million-node call tree,
    # yet refused before it is read, so a stray huge file cannot eat memory.
    DEFAULT_MAX_BYTES = 1 << 30
    MAX_BYTES_VARIABLE = "TRACEGRAPH_MAX_PROFILE_BYTES"
    CHUNK = 1 << 20
    KINDS = {"directory" => "a directory", "characterSpecial" => "a character device",
             "blockSpecial" => "a block device", "fifo" => "a FIFO (named pipe)", "socket" => "a socket"}.freeze
    UTF8_BOM = "\xEF\xBB\xBF".b.freeze
    GZIP_MAGIC = "\x1F\x8B".b.freeze
    UTF16_BOMS = ["\xFF\xFE".b, "\xFE\xFF".b].freeze

    # The file's text as a valid UTF-8 String, or FormatError naming the path.
    def self.read(path, max_bytes: nil)
      limit = max_bytes.nil? ? limit_from_env : check_limit(max_bytes, "max_bytes")
      regular!(path, File.stat(path), limit) # before opening: a FIFO's open would wait for a writer
      bytes = File.open(path, File::RDONLY | File::NONBLOCK | File::BINARY) do |file|
        # The path may have been swapped for a FIFO since the stat: NONBLOCK
        # kept the open from waiting, this check keeps us from reading it.
        regular!(path, file.stat, limit)
        read_at_most(file, limit)
      end
      too_big!(path, "grew past", limit) if bytes.bytesize > limit
      bytes = inflate(bytes, path, limit) if bytes.start_with?(GZIP_MAGIC)
      text(bytes, display(path))
    rescue SystemCallError, IOError => e
      reason = Profile.clean_name(e.message).sub(/ @ .*/m, "") # the rest repeats the path
      raise FormatError, "cannot read profile #{display(path)}: #{reason}"
    rescue ArgumentError => e # a NUL in the path
      raise FormatError, "cannot read profile #{display(path)}: #{e.message}"
    end

    # Bytes as UTF-8 text (a UTF-8 byte order mark is dropped), or FormatError.
    def self.text(bytes, origin)
      bytes = bytes.b
      if UTF16_BOMS.any? { |bom| bytes.start_with?(bom) }
        raise FormatError, "#{origin}: not a profile (UTF-16 text; profiles are UTF-8 JSON)"
      end

      bytes = bytes.byteslice(UTF8_BOM.bytesize..) if bytes.start_with?(UTF8_BOM)
      text = bytes.force_encoding(Encoding::UTF_8)
      raise FormatError, "#{origin}: not a profile (invalid UTF-8: binary data or another encoding)" unless text.valid_encoding?

      text
    end

    # A path as one line of valid UTF-8, quoted if it holds control characters.
    def self.display(path)
      name = Profile.clean_name(path.to_s)
      name = name.length > 120 ? "#{name[0, 120]}..." : name
      name.match?(/[[:cntrl:]]/) ? name.inspect : name
    end

    def self.regular!(path, stat, limit)
      unless stat.file?
        kind = KINDS.fetch(stat.ftype, "not a regular file")
        raise FormatError, "cannot read profile #{display(path)}: it is #{kind}, not a profile file"
      end
      too_big!(path, "is #{stat.size} bytes, over", limit) if stat.size > limit
    end

    def self.too_big!(path, what, limit)
      raise FormatError, "cannot read profile #{display(path)}: it #{what} the #{limit}-byte limit " \
                         "(set #{MAX_BYTES_VARIABLE} to raise it)"
    end

    # At most limit + 1 bytes, even if the file grows while it is read.
    def self.read_at_most(file, limit)
      bytes = String.new(capacity: [file.size, limit].min + 1, encoding: Encoding::BINARY)
      chunk = String.new(encoding: Encoding::BINARY)
      bytes << chunk while bytes.bytesize <= limit && file.read([CHUNK, limit + 1 - bytes.bytesize].min, chunk)
      bytes
    end

    # The inflated bytes, at most limit of them: a small file that inflates
    # to gigabytes is refused as it grows, not after.
    #
    # Zlib::BufError is tried once more: GzipReader raises it now and then
    # on valid data, when the thread is woken in the middle of a read
    # (ruby/zlib#49 and #57). Broken gzip raises other errors, or the same
    # one twice.
    def self.inflate(bytes, path, limit)
      tries = 0
      begin
        tries += 1
        inflate_once(bytes, path, limit)
      rescue Zlib::BufError
        retry if tries < 2
        raise
      end
    rescue Zlib::Error => e
      raise FormatError, "cannot read profile #{display(path)}: it starts as gzip but is not valid gzip (#{e.message})"
    end

    def self.inflate_once(bytes, path, limit)
      gz = Zlib::GzipReader.new(StringIO.new(bytes))
      out = String.new(encoding: Encoding::BINARY)
      while (chunk = gz.read(CHUNK))
        out << chunk
        too_big!(path, "inflates past", limit) if out.bytesize > limit
      end
      out
    end

    def self.limit_from_env
      value = ENV[MAX_BYTES_VARIABLE].to_s
      value.empty? ? DEFAULT_MAX_BYTES : check_limit(Integer(value, 10, exception: false), MAX_BYTES_VARIABLE, value)
    end

    def self.check_limit(limit, name, shown = limit)
      return limit if limit.is_a?(Integer) && limit.positive?

      raise Error, "#{name} must be a positive whole number of bytes, not #{shown.inspect}"
    end

    private_class_method :regular!, :too_big!, :read_at_most, :inflate, :limit_from_env, :check_limit
  end
end

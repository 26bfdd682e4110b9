# Writing output files with errors that say what is wrong with the path,
# so a profile is never lost to a cryptic Errno.
module Tracegraph
  # Writes content to path atomically enough for our use: the bytes go to
  # path itself, and any problem raises Tracegraph::Error naming the path.
  def self.write_output(path, content)
    path = path.to_path if path.respond_to?(:to_path)
    raise Error, "output path must be a String, not #{path.class}" unless path.is_a?(String)
    raise Error, "output path is empty" if path.empty?

    check_output_location(path)
    File.binwrite(path, content)
    path
  rescue SystemCallError => e
    raise Error, "cannot write #{path}: #{e.message.sub(/ @ .*/, '')}"
  end

  # Opens path for writing and yields the IO, so a writer can stream its
  # output instead of building it as one string; returns the path. Any
  # problem raises Tracegraph::Error naming the path.
  def self.stream_output(path)
    path = path.to_path if path.respond_to?(:to_path)
    raise Error, "output path must be a String, not #{path.class}" unless path.is_a?(String)
    raise Error, "output path is empty" if path.empty?

    check_output_location(path)
    File.open(path, "wb") { |io| yield io }
    path
  rescue SystemCallError => e
    raise Error, "cannot write #{path}: #{e.message.sub(/ @ .*/, '')}"
  end

  # Raises Tracegraph::Error unless path names a file in a directory that
  # exists; returns that directory.
  def self.check_output_location(path)
    raise Error, "cannot write #{path}: it is a directory" if File.directory?(path)

    dir = File.dirname(path)
    raise Error, "cannot write #{path}: directory #{dir} does not exist" unless File.directory?(dir)

    dir
  end
end

# A reader that went away (`tracegraph --flat app.rb | head -3`) must never
# cost a file.
#
# Ruby flushes $stdout and $stderr before it starts a process, and a
# flush into a pipe whose reader is gone raises Errno::EPIPE, again and
# again, since the buffered bytes stay. Rendering a graph starts `dot`, so
# a script that died with output still buffered, or a --flat table that
# met the broken pipe, would stop every output after it.
module Tracegraph
  module BrokenPipe
    STREAMS = %i[$stdout $stderr].freeze

    module_function

    # Points $stdout or $stderr at /dev/null if its reader is gone, so that
    # what follows (starting dot, writing files) goes on. The stream's
    # buffered bytes had nowhere to go anyway.
    def settle_standard_streams
      STREAMS.each do |name|
        stream = name == :$stdout ? $stdout : $stderr
        next if stream.closed?

        begin
          stream.flush
        rescue Errno::EPIPE, IOError
          null = File.open(File::NULL, "w")
          name == :$stdout ? ($stdout = null) : ($stderr = null)
        end
      end
    end

    # Prints with the block to a stream whose reader may be gone: stops
    # quietly if it is, and returns whether everything got through.
    def print_quietly(io)
      yield
      io.flush
      true
    rescue Errno::EPIPE, IOError
      settle_standard_streams
      false
    end
  end
end

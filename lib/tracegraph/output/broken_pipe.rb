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
    module_function

    # Points $stdout or $stderr at /dev/null if its reader is gone, so that
    # what follows (starting dot, writing files) goes on. The stream's
    # buffered bytes had nowhere to go anyway.
    def settle_standard_streams
      $stdout = File.open(File::NULL, "w") if reader_gone?($stdout)
      $stderr = File.open(File::NULL, "w") if reader_gone?($stderr)
    end

    def reader_gone?(stream)
      return false if stream.closed?

      stream.flush
      false
    rescue Errno::EPIPE, IOError
      true
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

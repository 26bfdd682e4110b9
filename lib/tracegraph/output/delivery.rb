# Getting a written output to a target that is not a plain file named by
# its format: standard output, a pipe, a FIFO, a device, a gzip file, or a
# file whose format came from --format. The format's writer writes a file
# in a temporary directory; it is then copied (and compressed, if asked)
# to the target. See tracegraph/output/target.
require "fcntl"
require "fileutils"
require "tmpdir"
require "zlib"
require "tracegraph/model/option_checks"

module Tracegraph
  module Output
    PIPE_TIMEOUT_VARIABLE = "TRACEGRAPH_PIPE_TIMEOUT"
    # A FIFO is opened only once the profile is written, at the end; a
    # reader that never comes costs at most this long, then the profile is
    # left in a file and the message says where.
    DEFAULT_PIPE_TIMEOUT = 30
    # Waiting longer than this is announced, so a silent pause has a reason.
    PIPE_WAIT_NOTICE = 1.0

    # Standard output as the run found it. The tracegraph command, when a
    # profile goes to standard output, keeps the real one here and points
    # the script's at standard error, so the two never mix (claim_stdout).
    @profile_stdout = nil

    class << self
      attr_reader :profile_stdout
    end

    module_function

    # Keeps standard output for the profile: the program's own output
    # (its prints, and its children's, which inherit it) goes to standard
    # error from now on. The kept descriptor is closed on exec.
    def claim_stdout
      return if @profile_stdout

      $stdout.flush
      STDOUT.flush
      @profile_stdout = STDOUT.dup
      STDOUT.reopen(STDERR)
    end

    def stdout_io = @profile_stdout || STDOUT

    # Writes target with the block, which writes the format to the path it
    # is given and returns the paths it wrote. Returns the names to report,
    # in the user's terms.
    def deliver(target)
      return yield(target.path).map { |path| target.shown_path(path) } if target.direct?

      dir = Dir.mktmpdir("tracegraph-")
      keep = false
      begin
        staged = File.join(dir, "profile#{target.suffix}")
        begin
          yield staged
        rescue RenderInterrupted => e
          keep = true # its .dot is all there is of this output
          e.path = target.shown
          raise
        rescue Error => e
          message = e.message.gsub(staged, target.shown)
          keep = message.include?(dir) # "the call graph is in /tmp/.../profile.dot"
          raise Error, message
        end
        cut_short = send_file(staged, target, dir) { keep = true }
        [target.shown + delivery_note(target, cut_short)]
      ensure
        FileUtils.rm_rf(dir) unless keep
      end
    end

    def delivery_note(target, cut_short)
      notes = []
      notes << "its .dot is not kept" if target.rendered?
      notes << "cut short: its reader closed it" if cut_short
      notes.unshift(target.format_name) unless target.named_format?
      notes.empty? ? "" : " (#{notes.join('; ')})"
    end

    # Copies staged to the target; returns true if the target's reader went
    # away before the end (`| head`), which is the reader's choice and not
    # an error. Calls keep if the staged file must outlive this call.
    def send_file(staged, target, dir, &keep)
      if target.file?
        File.open(target.path, "wb") { |io| copy(staged, io, target.gzip?) }
        return false
      end

      io = target.stdout? ? stdout_io : open_stream(target, staged, &keep)
      begin
        io.flush if target.stdout?
        copy(staged, io, target.gzip?)
        io.flush
        false
      rescue Errno::EPIPE
        true
      ensure
        io.close unless target.stdout? || io.closed?
      end
    rescue Errno::EPIPE
      true
    rescue SystemCallError, IOError => e
      raise Error, "cannot write #{target.shown}: #{e.message.sub(/ @ .*/, '').sub(/ - .*/, '')}"
    end

    def copy(staged, io, gzip)
      if gzip
        gz = Zlib::GzipWriter.new(io)
        File.open(staged, "rb") { |file| IO.copy_stream(file, gz) }
        gz.finish # not close: the stream is the caller's to close
      else
        File.open(staged, "rb") { |file| IO.copy_stream(file, io) }
      end
    end

    # Opens a FIFO, pipe, socket or device for writing without waiting for
    # ever: a FIFO without a reader refuses a non-blocking open (ENXIO), so
    # it is tried again until a reader comes or the time is up.
    def open_stream(target, staged)
      limit = pipe_timeout
      start = clock
      announced = false
      begin
        io = File.open(target.path, File::WRONLY | File::NONBLOCK | File::BINARY)
        io.fcntl(Fcntl::F_SETFL, io.fcntl(Fcntl::F_GETFL) & ~File::NONBLOCK) # writes wait for the reader again
        io
      rescue Errno::ENXIO
        waited = clock - start
        if waited >= limit
          yield # the profile stays where the message says
          raise Error, "no reader opened #{target.shown} within #{format('%g', limit)} s; the profile is in #{staged}"
        end
        if !announced && waited >= PIPE_WAIT_NOTICE
          announced = true
          tell("tracegraph: waiting up to #{format('%g', limit)} s for a reader of #{target.shown}")
        end
        sleep 0.05
        retry
      end
    end

    def pipe_timeout = OptionChecks.seconds_from_env!(PIPE_TIMEOUT_VARIABLE, DEFAULT_PIPE_TIMEOUT)

    def clock = Process.clock_gettime(Process::CLOCK_MONOTONIC)

    def tell(message)
      $stderr.puts(Tracegraph.printable(message))
    rescue IOError, SystemCallError
      nil
    end
  end
end

require_relative "../ruby/test_helper"
require_relative "../ruby/cli_helper"
require "pathname"
require "zlib"

# Profile.load_json and `tracegraph diff` on what is not a profile: each is
# refused at once with a one-line FormatError (status 2 from the CLI), never
# a hang, a memory blow-up or an encoding error from inside the reader.
class TestHostileReaders < Minitest::Test
  include CliHelper

  DEADLINE = 30 # seconds; a reader that blocks or eats memory is killed and fails
  # What one load_json costs in a child: a run that gets there is a refusal.
  READER = <<~RUBY.freeze
    begin
      Tracegraph::Profile.load_json(ARGV[0], max_bytes: ARGV[1].empty? ? nil : Integer(ARGV[1]))
      puts "loaded"
    rescue Tracegraph::FormatError => e
      puts e.message
      exit 2
    end
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-hostile-readers")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def leaf = :leaf

  def profile_json
    @profile_json ||= Tracegraph.profile { 3.times { leaf } }.to_json
  end

  def write(name, bytes)
    path = File.join(@dir, name)
    File.binwrite(path, bytes)
    path
  end

  # Runs a command with a deadline and, unless ASan needs the address space,
  # a 2 GiB memory cap. Returns its output (stdout and stderr) and status.
  def run_bounded(*command)
    reader, writer = IO.pipe
    limits = ENV["LD_PRELOAD"].to_s.include?("asan") ? {} : {rlimit_as: 2 << 30}
    pid = Process.spawn(*command, in: File::NULL, out: writer, err: writer, chdir: @dir, **limits)
    writer.close
    status = wait_until_deadline(pid, command)
    [reader.read, status]
  ensure
    reader&.close
    writer&.close unless writer&.closed?
  end

  def wait_until_deadline(pid, command)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + DEADLINE
    loop do
      _, status = Process.wait2(pid, Process::WNOHANG)
      return status if status

      if Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
        Process.kill(:KILL, pid)
        Process.wait(pid)
        flunk "still running after #{DEADLINE} s: #{command.last(2).inspect}"
      end
      sleep 0.02
    end
  end

  def assert_one_line(message)
    assert message.valid_encoding?, message.inspect
    assert_equal 1, message.lines.size, message.inspect
    refute_match(/[\0-\x08\x0b-\x1f]/, message)
  end

  # load_json(path) in a child: for inputs that could block or eat memory.
  def assert_refused_in_child(path, message, max_bytes: nil)
    out, status = run_bounded(RbConfig.ruby, "-I#{LIB}", "-rtracegraph", "-e", READER, path, max_bytes.to_s)
    assert_equal 2, status.exitstatus, "#{path}: #{status.inspect}: #{out}"
    assert_one_line out.force_encoding(Encoding::UTF_8)
    assert_match message, out
  end

  def assert_refused(path, message, **options)
    error = assert_raises(Tracegraph::FormatError) { Tracegraph::Profile.load_json(path, **options) }
    assert_one_line error.message
    assert_match message, error.message
  end

  def test_a_fifo_without_a_writer_is_refused_without_blocking
    fifo = File.join(@dir, "pipe.json")
    File.mkfifo(fifo)
    assert_refused_in_child(fifo, %r{\Acannot read profile .*/pipe.json: it is a FIFO \(named pipe\), not a profile file$})
  end

  def test_devices_are_refused_unread
    %w[/dev/zero /dev/urandom].each do |device|
      next unless File.exist?(device)

      assert_refused_in_child(device, %r{\Acannot read profile #{device}: it is a character device, not a profile file$})
    end
  end

  def test_a_directory_is_refused
    assert_refused(@dir, /it is a directory, not a profile file\z/)
  end

  def test_a_file_over_the_limit_is_refused_and_says_how_to_raise_it
    path = write("big.json", profile_json)
    size = profile_json.bytesize
    assert_refused(path, /it is #{size} bytes, over the 100-byte limit \(set TRACEGRAPH_MAX_PROFILE_BYTES to raise it\)\z/,
                   max_bytes: 100)
    assert_refused_in_child(path, /over the 100-byte limit/, max_bytes: 100)
    Tracegraph::Profile.load_json(path, max_bytes: size)
    begin
      ENV["TRACEGRAPH_MAX_PROFILE_BYTES"] = (size - 1).to_s
      assert_refused(path, /over the #{size - 1}-byte limit/)
      ENV["TRACEGRAPH_MAX_PROFILE_BYTES"] = "lots"
      error = assert_raises(Tracegraph::Error) { Tracegraph::Profile.load_json(path) }
      assert_match(/TRACEGRAPH_MAX_PROFILE_BYTES must be a positive whole number of bytes, not "lots"/, error.message)
    ensure
      ENV.delete("TRACEGRAPH_MAX_PROFILE_BYTES")
    end
    assert_raises(Tracegraph::Error) { Tracegraph::Profile.load_json(path, max_bytes: 0) }
  end

  def test_binary_garbage
    assert_refused(write("random.json", Random.new(7).bytes(64 * 1024)), /random.json: not a profile \(invalid UTF-8/)
    # Valid UTF-8, yet binary: NULs and control characters.
    assert_refused(write("nuls.json", "\0" * 4096), /nuls.json: not valid JSON/)
    assert_refused(write("controls.json", (0..127).map(&:chr).join * 8), /controls.json: not valid JSON/)
    assert_refused(write("empty.json", ""), /empty.json: not valid JSON/)
  end

  def test_other_encodings
    %w[UTF-16LE UTF-16BE].each do |encoding|
      with_bom = "\uFEFF#{profile_json}".encode(encoding).b
      assert_refused(write("#{encoding}.json", with_bom), /#{encoding}.json: not a profile \(UTF-16 text/)
      assert_refused(write("#{encoding}-no-bom.json", profile_json.encode(encoding).b), /not valid JSON/)
    end
    assert_refused(write("latin1.json", profile_json.sub("leaf", "l\xE9af".b).b), /latin1.json: not a profile \(invalid UTF-8/)
  end

  def test_invalid_utf8
    ["\xFF", "\xC3\x28", "\xED\xA0\x80", "\xF8\x88\x80\x80\x80", "\xE2\x82"].each do |bad|
      assert_refused(write("bad.json", profile_json.b.sub("leaf", "le#{bad}af".b)), /bad.json: not a profile \(invalid UTF-8/)
    end
    assert_refused(write("cut.json", "#{profile_json.b}\xE2\x82".b), /invalid UTF-8/) # a character cut at the end
  end

  def test_truncated_json
    path = File.join(@dir, "cut.json")
    [1, 10, profile_json.bytesize / 2, profile_json.bytesize - 1].each do |n|
      File.binwrite(path, profile_json.byteslice(0, n))
      assert_refused(path, /cut.json: not valid JSON/)
    end
  end

  def test_gzip_that_is_cut_short_corrupt_or_a_bomb_is_refused
    gz = Zlib.gzip(profile_json)
    [10, gz.bytesize / 2, gz.bytesize - 1].each do |n|
      assert_refused(write("cut.json.gz", gz.byteslice(0, n)), /cut.json.gz: it starts as gzip but is not valid gzip/)
    end
    crc = gz.dup
    crc.setbyte(gz.bytesize - 6, crc.getbyte(gz.bytesize - 6) ^ 1) # the trailer's CRC-32
    assert_refused(write("crc.json.gz", crc), /crc.json.gz: .* not valid gzip \(.*crc error\)/)
    bomb = write("bomb.json.gz", Zlib.gzip("[#{' ' * (64 << 20)}]"))
    assert_operator File.size(bomb), :<, 100_000
    assert_refused(bomb, /bomb.json.gz: it inflates past the 1048576-byte limit/, max_bytes: 1 << 20)
    assert_equal 3, Tracegraph::Profile.load_json(write("good.json.gz", gz))["TestHostileReaders#leaf"].calls
  end

  # GzipReader can raise Zlib::BufError on valid data (ruby/zlib#57): the
  # reader tries once more, and only a second BufError refuses the file.
  module FailingReads
    class << self
      attr_accessor :failures
    end

    def read(...)
      if FailingReads.failures.positive?
        FailingReads.failures -= 1
        raise Zlib::BufError, "buffer error"
      end
      super
    end
  end
  Zlib::GzipReader.prepend(FailingReads)
  FailingReads.failures = 0

  def test_a_spurious_zlib_buffer_error_is_read_again
    path = write("good.json.gz", Zlib.gzip(profile_json))
    FailingReads.failures = 1
    assert_equal 3, Tracegraph::Profile.load_json(path)["TestHostileReaders#leaf"].calls
    assert_equal 0, FailingReads.failures
    FailingReads.failures = 2
    assert_refused(path, /good.json.gz: it starts as gzip but is not valid gzip \(buffer error\)/)
  ensure
    FailingReads.failures = 0
  end

  def test_a_valid_profile_still_loads
    path = write("good.json", profile_json)
    assert_equal 3, Tracegraph::Profile.load_json(path)["TestHostileReaders#leaf"].calls
    assert_equal 3, Tracegraph::Profile.load_json(Pathname(path), max_bytes: profile_json.bytesize)["TestHostileReaders#leaf"].calls
    assert_equal 3, Tracegraph::Profile.load_json(write("bom.json", "\uFEFF#{profile_json}"))["TestHostileReaders#leaf"].calls
    out, status = run_bounded(RbConfig.ruby, "-I#{LIB}", "-rtracegraph", "-e", READER, path, "")
    assert_equal ["loaded\n", 0], [out, status.exitstatus]
  end

  def test_diff_refuses_with_status_2_and_one_line
    good = write("good.json", profile_json)
    fifo = File.join(@dir, "pipe.json")
    File.mkfifo(fifo)
    {
      write("garbage.bin", Random.new(3).bytes(4096)) => /\Atracegraph diff: .*garbage.bin: not a profile \(invalid UTF-8/,
      write("utf16.json", "\uFEFF#{profile_json}".encode("UTF-16LE").b) => /utf16.json: not a profile \(UTF-16 text/,
      fifo => /it is a FIFO/,
      "/dev/zero" => %r{\Atracegraph diff: cannot read profile /dev/zero: it is a character device}
    }.each do |bad, message|
      out, status = run_bounded(RbConfig.ruby, "-I#{LIB}", EXE, "diff", "--text", good, bad)
      assert_equal 2, status.exitstatus, "#{bad}: #{out}"
      assert_one_line out
      assert_match message, out
    end
    out, status = run_bounded({"TRACEGRAPH_MAX_PROFILE_BYTES" => "10"}, RbConfig.ruby, "-I#{LIB}", EXE, "diff", "--text", good, good)
    assert_equal 2, status.exitstatus, out
    assert_match(/over the 10-byte limit \(set TRACEGRAPH_MAX_PROFILE_BYTES to raise it\)$/, out)
  end
end

require_relative "../test_helper"
require "tmpdir"
require "tracegraph/output/request_files"

# Tracegraph::RequestFiles: the newest `keep` requests' files stay, and
# only files named as it names them are ever removed.
class TestRequestFiles < TracegraphTest
  def setup
    @dir = Dir.mktmpdir("tracegraph-request-files")
  end

  def teardown
    super
    FileUtils.rm_rf(@dir)
  end

  def profile = @profile ||= Tracegraph.profile(call_tree: true) { [3, 1, 2].sort }

  def names = Dir.children(@dir).sort

  # Requests one second apart, oldest first, so their names sort by time.
  def write_requests(files, count, from: Time.utc(2026, 11, 27, 12, 0, 0))
    Array.new(count) { |i| files.write_request(profile, time: from + i, verb: "GET", path: "/posts/#{i}") }
  end

  def test_keep_leaves_the_newest_requests_files_and_nothing_else_goes
    foreign = %w[notes.txt 20261127-120000.000-GET-posts-0.json.bak 20261127-115959.000-GET-old.log posts-index-20261126-142233.json]
    foreign.each { |name| File.write(File.join(@dir, name), "mine") }
    FileUtils.mkdir_p(File.join(@dir, "20261127-110000.000-GET-a-dir.json"))
    files = Tracegraph::RequestFiles.new(dir: @dir, formats: %w[dot folded], keep: 3)
    written = write_requests(files, 5)
    assert_equal 5, written.size
    kept = written.last(3).flatten.map { |path| File.basename(path) }
    assert_equal 9, kept.size # .json, .dot, .folded each
    assert_equal (kept + foreign + ["20261127-110000.000-GET-a-dir.json"]).sort, names
    foreign.each { |name| assert_equal "mine", File.read(File.join(@dir, name)) }
    # The same moment twice: -2 is kept beside the first, both newest.
    twice = Array.new(2) { files.write_request(profile, time: Time.utc(2026, 11, 28), verb: "GET", path: "/x") }
    assert_equal ["20261128-000000.000-GET-x.json", "20261128-000000.000-GET-x-2.json"], twice.map { |w| File.basename(w[0]) }
    assert_equal 3, names.grep(/\.json\z/).grep(/\A2026112[78]-\d{6}\.000-GET-(posts-4|x|x-2)\.json\z/).size
  end

  # The sums of save_every are neither counted nor removed.
  def test_merged_sums_stay
    files = Tracegraph::RequestFiles.new(dir: @dir, formats: [], keep: 2)
    merged = files.write_merged(profile, time: Time.utc(2026, 11, 27, 11), count: 3)
    write_requests(files, 4)
    assert_equal [File.basename(merged[0]), "20261127-120002.000-GET-posts-2.json", "20261127-120003.000-GET-posts-3.json"],
                 names
    assert_equal 3, files.clear.size
  end

  def test_keep_zero_keeps_all_and_clear_removes_only_ours
    files = Tracegraph::RequestFiles.new(dir: @dir, formats: [], keep: 0)
    File.write(File.join(@dir, "notes.txt"), "mine")
    write_requests(files, 25)
    assert_equal 25, names.grep(/\.json\z/).size
    assert_equal 25, files.clear.size
    assert_equal ["notes.txt"], names
  end

  def test_the_default_keeps_twenty_and_bad_keeps_are_refused
    files = Tracegraph::RequestFiles.new(dir: @dir, formats: [])
    assert_equal 20, files.keep
    write_requests(files, 25)
    assert_equal Array.new(20) { |i| format("20261127-1200%02d.000-GET-posts-%d.json", i + 5, i + 5) }, names
    [-1, 2.5, "3", nil].each do |keep|
      error = assert_raises(ArgumentError) { Tracegraph::RequestFiles.new(dir: @dir, formats: [], keep: keep) }
      assert_equal "keep must be an Integer >= 0 (0 keeps all), not #{keep.inspect}", error.message
    end
  end
end

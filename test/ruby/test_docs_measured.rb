require_relative "test_helper"
require "open3"

# The measured tables in the docs say which commit they measured, and
# what they predate: a line "*Measured on commit `abc1234` (YYYY-MM-DD);
# predates `def5678` (...), ...*" beside each. This test fails when a
# table has no such line, when its commit or date is wrong, when a commit
# it predates is not one made after it, or when the code it measures has
# changed since its commit and the line does not say what it predates.
# (docs/overhead.md's main table once came from a run 400 commits old and
# said nothing of it.)
class TestDocsMeasured < Minitest::Test
  ROOT = File.expand_path("../..", __dir__)
  MARKER = /^\*?Measured on commit `(\h{7,40})` \((\d{4}-\d\d-\d\d)\)(.*)$/
  # What the tables measure: the recorder and the gate.
  MEASURED = %w[ext lib/tracegraph.rb lib/tracegraph/calibration.rb lib/tracegraph/recording_options.rb
                lib/tracegraph/comparison lib/tracegraph/model/run_stats.rb lib/tracegraph/cli/repeated_run.rb].freeze

  def self.files = ["README.md", "docs/overhead.md", *Dir.chdir(ROOT) { Dir["bench/GATE*.md"].sort }]

  # [output, success]; ["", false] where git is not installed (the
  # chroots of rake test:rubies), so that the tests skip.
  def git(*args)
    out, status = Open3.capture2("git", "-C", ROOT, *args, err: File::NULL)
    [out.strip, status.success?]
  rescue Errno::ENOENT
    ["", false]
  end

  def setup
    shallow, ok = git("rev-parse", "--is-shallow-repository")
    skip "not a git checkout with its history (the tables' commits are checked against it)" if !ok || shallow == "true"
  end

  def markers(file) = File.read(File.join(ROOT, file)).scan(MARKER)

  def test_every_measured_file_says_what_it_measured
    self.class.files.each { |file| refute_empty markers(file), "#{file}: a line saying which commit it measured" }
  end

  # In docs/overhead.md, each table has its own line, just below it.
  def test_every_table_of_the_overhead_page_has_its_line
    lines = File.readlines(File.join(ROOT, "docs/overhead.md"))
    ends = lines.each_index.select { |i| lines[i].start_with?("|") && !lines[i + 1].to_s.start_with?("|") }
    ends.each do |i|
      following = lines[i + 1, 3].join
      assert_match MARKER, following, "docs/overhead.md: the table ending at line #{i + 1} has no Measured line below it"
    end
  end

  def test_each_line_names_a_real_commit_and_what_came_after_it
    self.class.files.each do |file|
      markers(file).each do |commit, date, rest|
        where = "#{file}: #{commit}"
        committed, ok = git("log", "-1", "--format=%cs", "#{commit}^{commit}")
        assert ok, "#{where} is not a commit"
        assert_equal date, committed, "#{where}: its date"
        predates = rest[/predates(.*)/, 1].to_s.scan(/`(\h{7,40})`/).flatten
        predates.each do |later|
          _, after = git("merge-base", "--is-ancestor", commit, later)
          assert after && !git("rev-parse", commit)[0].start_with?(git("rev-parse", later)[0]),
                 "#{where} predates #{later}, which is not a later commit"
        end
        changed, = git("log", "--no-merges", "--format=%h", "#{commit}..HEAD", "--", *MEASURED)
        next if changed.empty?

        refute_empty predates, "#{where}: the code it measures changed since (#{changed.lines.size} commits, " \
                               "the last #{changed.lines.first.strip}): run it again, or say what it predates"
      end
    end
  end
end

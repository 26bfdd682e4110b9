require_relative "../test_helper"
require "fileutils"

# The DOT text of a few recorded real programs (test/fixtures/real), each
# compared whole with a file under test/fixtures/golden: a change in what
# the graph shows (boxes, arrows, labels, layout hints, the legend) shows
# up here as a diff that someone reads, where the other tests check only
# parts of it. When a change is meant:
#   UPDATE_GOLDEN=1 ruby -Ilib -Itest test/ruby/formats/test_dot_golden.rb
# and commit the new files with it.
class TestDotGolden < TracegraphTest
  REAL = File.expand_path("../../fixtures/real", __dir__)
  GOLDEN = File.expand_path("../../fixtures/golden", __dir__)
  ACTUAL = File.expand_path("../../../tmp/golden", __dir__)

  def real(name) = Tracegraph::Profile.load_json(File.join(REAL, "#{name}.json.gz"))

  # Each method of the profile with every third one's self time (and so
  # its callers' totals, approximately) doubled: a diff with reds and blues.
  def slowed(profile)
    copy = Tracegraph::Profile.parse_json(profile.to_json)
    copy.methods.each_with_index do |m, i|
      next unless (i % 3).zero?

      m.total_time += m.self_time
      m.self_time *= 2
    end
    copy
  end

  CASES = {
    "kramdown" => ->(t) { t.real("kramdown").to_dot },
    "rubocop-by-gem" => ->(t) { t.real("rubocop").to_dot(group_by: :gem) },
    "sinatra-by-class-20" => ->(t) { t.real("sinatra").to_dot(group_by: :class, max_nodes: 20) },
    "rdoc-focus" => ->(t) { t.real("rdoc").to_dot(focus: /RDoc::Markup::Paragraph#accept/) },
    "rake-diff" => ->(t) { t.real("rake").diff(t.slowed(t.real("rake"))).to_dot }
  }.freeze

  CASES.each do |name, draw|
    define_method(:"test_#{name.tr('-', '_')}_draws_as_its_golden_file") do
      # Paths are shortened against the working directory: the checkout's.
      dot = Dir.chdir(File.expand_path("../../..", __dir__)) { draw.(self) }
      golden = File.join(GOLDEN, "#{name}.dot")
      if ENV["UPDATE_GOLDEN"] == "1"
        File.write(golden, dot)
        skip "wrote #{golden}"
      end
      expected = File.read(golden)
      return pass if dot == expected

      FileUtils.mkdir_p(ACTUAL)
      actual = File.join(ACTUAL, "#{name}.dot")
      File.write(actual, dot)
      flunk "the DOT of #{name} changed: diff -u #{golden} #{actual}; if the change is meant, " \
            "UPDATE_GOLDEN=1 ruby -Ilib -Itest #{__FILE__} and commit the new file"
    end
  end
end

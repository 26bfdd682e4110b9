require_relative "test_helper"
require_relative "cli_helper"

# examples/allocations.rb, profiled as the README shows, draws the
# picture of where its garbage comes from, with exact counts.
class TestAllocationsExample < Minitest::Test
  include CliHelper

  def setup
    @dir = Dir.mktmpdir("tracegraph-allocations-example")
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def test_the_example_shows_which_methods_allocate
    example = File.expand_path("../../examples/allocations.rb", __dir__)
    _, err, status = tracegraph("--allocations", "--size-by", "allocations", "-o", "allocs.json", "-o", "allocs.svg", example)
    assert status.success?, err
    refute_match(/warning/i, err)
    profile = Tracegraph::Profile.load_json(File.join(@dir, "allocs.json"))
    # 5 imports of 2,000 rows: each row's split makes an Array and 4
    # Strings, its to_h one Hash, and typed's merge another.
    assert_equal 10_000, profile["String#split"].calls
    assert_equal 50_000, profile["String#split"].self_allocations
    assert_equal({"String" => 40_000, "Array" => 10_000}, profile["String#split"].allocations_by_type)
    assert_equal 10_000, profile["Array#to_h"].self_allocations
    assert_equal 10_000, profile["Hash#merge"].self_allocations
    # Everything a row's parse allocates is under Importer#parse.
    parse = profile["Importer#parse"]
    assert_equal parse.self_allocations + %w[Array#zip String#split Array#to_h].sum { |m| profile[m].allocations },
                 parse.allocations
    biggest = profile.methods.max_by(2, &:self_allocations).map(&:name)
    assert_equal %w[Array#zip String#split].sort, biggest.sort
    svg = File.read(File.join(@dir, "allocs.svg"))
    assert_includes svg, "allocs 50,000"
    assert_includes svg, "Box size = self allocations"
  end
end

require_relative "../test_helper"
require "tracegraph/output/output"

# formats/registry.rb is the one list of formats: Output chooses by it and
# each row's writer writes the file its suffixes ask for.
class TestRegistry < Minitest::Test
  def test_names_and_suffixes_are_each_in_one_row
    names = Tracegraph::Formats::ALL.map(&:name)
    suffixes = Tracegraph::Formats::ALL.flat_map(&:suffixes)
    assert_equal names.uniq, names
    assert_equal suffixes.uniq, suffixes
  end

  def test_output_chooses_by_the_table
    Tracegraph::Formats::ALL.each do |format|
      format.suffixes.each do |suffix|
        assert_equal format.name, Tracegraph::Output.format_of("x#{suffix}"), suffix
      end
    end
    assert_equal Tracegraph::Formats::ALL.sum { |format| format.suffixes.size }, Tracegraph::Output::FORMATS.size
    assert_equal %i[folded pprof speedscope firefox], Tracegraph::Output::STACK_FORMATS.keys
    assert_equal %i[dot rendered], Tracegraph::Output::GRAPH_FORMATS
  end

  def test_every_writer_writes_its_format_to_a_path
    profile = Tracegraph.profile(call_tree: true) { 2.times { [1].map(&:to_s) } }
    Dir.mktmpdir("tracegraph-registry") do |dir|
      Tracegraph::Formats::ALL.reject(&:graphviz).each do |format|
        path = File.join(dir, "out#{format.suffixes.first}")
        assert_equal path, format.writer.write(profile, path), format.name
        assert_operator File.size(path), :>, 0, format.name
      end
    end
  end

  def test_a_stack_format_without_the_call_tree_says_what_it_needs
    profile = Tracegraph.profile { 1 + 1 }
    Tracegraph::Formats::ALL.select(&:call_tree).each do |format|
      error = assert_raises(Tracegraph::Error) { format.writer.write(profile, "unused#{format.suffixes.first}") }
      assert_includes error.message, "to write #{format.call_tree}"
    end
  end
end

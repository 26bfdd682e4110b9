require_relative "../test_helper"
require "tracegraph/cli/env_config"

# autorun's TRACEGRAPH_* variables: one for each graph flag of the
# command, derived from the same table (GraphOptions::FLAGS), so a flag
# added to the command is a variable too (--group-by, --size-by,
# --split-hubs and --fold-chains had none).
class TestEnvConfig < Minitest::Test
  # A value each flag takes, and what the option becomes.
  VALUES = {node_fraction: ["0.02", 0.02], edge_fraction: ["0", 0.0], max_nodes: ["12", 12],
            focus: ["Foo#bar", "Foo#bar"], ignore: ["Logger", "Logger"], split_hubs: ["0", false],
            fold_chains: ["false", false], size_by: ["time", "time"], group_by: ["gem", "gem"]}.freeze

  def config(env) = Tracegraph::EnvConfig.new({"TRACEGRAPH_OUTPUT" => "/tmp/x.json"}.merge(env))

  def test_every_graph_flag_has_its_variable
    assert_equal Tracegraph::GraphOptions::FLAGS.keys.sort, VALUES.keys.sort, "a new flag needs a value here"
    VALUES.each do |key, (text, value)|
      assert_equal({key => value}, config("TRACEGRAPH_#{key.upcase}" => text).dot_options, key)
    end
  end

  def test_a_grouping_records_the_call_tree_as_the_flag_does
    assert config("TRACEGRAPH_GROUP_BY" => "class").start_options[:call_tree]
    refute config("TRACEGRAPH_GROUP_BY" => "method").start_options[:call_tree]
  end

  def test_bad_values_name_the_variable
    {"TRACEGRAPH_GROUP_BY" => ["module", /TRACEGRAPH_GROUP_BY must be one of method, class, file, gem, not "module"/],
     "TRACEGRAPH_SPLIT_HUBS" => ["maybe", %r{TRACEGRAPH_SPLIT_HUBS must be 1/true or 0/false}],
     "TRACEGRAPH_EDGE_FRACTION" => ["a lot", /TRACEGRAPH_EDGE_FRACTION must be a number/],
     "TRACEGRAPH_SIZE_BY" => ["allocations", /needs allocation counts/]}.each do |name, (text, message)|
      error = assert_raises(Tracegraph::Error) { config(name => text) }
      assert_match message, error.message
    end
  end
end

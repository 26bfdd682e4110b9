require_relative "test_helper"
require "stringio"
require "tracegraph/cli/cli"
require "tracegraph/cli/env_config"
require "tracegraph/rack"

# The recording options are declared once (RecordingOptions::TABLE): each
# test here reads one of the places that take them and fails when a row
# is missing there, or when the place reads it otherwise than the table
# says. (Tracegraph::Rack once refused c_calls: :all, and exact_clock:
# had neither a flag nor a variable.)
class TestRecordingOptions < Minitest::Test
  TABLE = Tracegraph::RecordingOptions::TABLE
  ROOT = File.expand_path("../..", __dir__)

  # What a value is written as in a TRACEGRAPH_* variable.
  def env_text(value) = {true => "1", false => "0"}.fetch(value, value.to_s)

  def cli_start(argv)
    Tracegraph::CLI.new(out: StringIO.new, err: StringIO.new).send(:parse, argv + ["script.rb"])[:start]
  end

  # A tree's cap goes to runs that record a tree (--idle hide): with it.
  def runs_argv(start)
    dot = start.key?(:max_call_tree_nodes) ? {idle: :hide} : {}
    Tracegraph::RepeatedRun.new(2, ["script.rb"], [], outputs: [], start_options: start, dot_options: dot, flat: false,
                                                      err: StringIO.new).send(:child_options)
  end

  def test_every_start_option_has_its_row_and_every_row_is_one
    assert_equal Tracegraph::START_OPTIONS.sort, TABLE.keys.sort
  end

  def test_every_row_is_documented_where_start_and_the_api_page_list_them
    start_doc = File.read(File.join(ROOT, "lib/tracegraph.rb"))[/    # Starts profiling the whole process\.\n(.*?)    def start/m, 1]
    api = File.read(File.join(ROOT, "docs/api.md"))
    TABLE.each_key do |name|
      assert_match(/^    #   #{name}:/, start_doc, "Tracegraph.start's comment")
      assert_includes api, "| `#{name}:` |", "docs/api.md"
    end
  end

  # Each value reaches the extension's _start (raw_times: as no event
  # costs, in start_recording); a wrong one is refused.
  def test_every_value_reaches_the_extension_and_a_wrong_one_is_refused
    parse = ->(options) { Tracegraph.send(:parse_start_options, {call_tree: true}.merge(options), hide_next_call: false) }
    TABLE.each_value do |option|
      option.other_values.each do |value|
        next if option.name == :raw_times || (option.name == :call_tree && value == true)

        refute_equal parse.call({}), parse.call(option.name => value), "#{option.name}: #{value.inspect}"
      end
      assert_raises(ArgumentError, option.name.to_s) { Tracegraph::RecordingOptions.checked(option.name => "nonsense") }
    end
  end

  # Each other value, by the flag that asks for it; and every flag is in
  # docs/command-line.md.
  def test_the_command_has_a_flag_for_every_value
    page = File.read(File.join(ROOT, "docs/command-line.md"))
    TABLE.each_value do |option|
      if option.flags.empty?
        assert option.no_flag, "#{option.name}: a flag, or why it has none"
        next
      end
      option.other_values.each do |value|
        assert_equal({option.name => value}, cli_start(option.argv(value)).slice(option.name), option.name)
      end
      option.flags.each do |switches, *|
        flag = "`#{Array(switches).first.split.first}"
        assert page.include?(flag), "docs/command-line.md has no #{flag}"
      end
    end
  end

  def test_autorun_has_a_variable_for_every_flag
    page = File.read(File.join(ROOT, "docs/command-line.md"))
    TABLE.each_value do |option|
      assert_equal option.flags.any?, !option.env.nil?, "#{option.name}: a flag and a variable, or neither"
      next unless option.env

      assert page.include?("`#{option.env}`"), "docs/command-line.md has no #{option.env}"
      option.other_values.each do |value|
        # A tree's cap, with the tree it caps (alone it is refused: test_autorun.rb)
        tree = option.name == :max_call_tree_nodes ? {"TRACEGRAPH_CALL_TREE" => "1"} : {}
        config = Tracegraph::EnvConfig.new({"TRACEGRAPH_OUTPUT" => "/tmp/x.dot", option.env => env_text(value)}.merge(tree))
        assert_equal value, config.start_options[option.name], option.env
      end
    end
  end

  # What --runs hands its runs reads back, by the command, as the same
  # options; what it keeps to itself says why.
  def test_runs_hand_on_what_they_say_they_do
    TABLE.each_value do |option|
      option.other_values.each do |value|
        argv = runs_argv(option.name => value)
        if option.runs
          assert_equal({option.name => value}, cli_start(argv).slice(option.name), option.name)
        else
          assert option.no_runs, "#{option.name}: handed on, or why not"
          assert_empty argv, option.name
        end
      end
    end
    all = TABLE.values.select(&:runs).to_h { |option| [option.name, option.other_values.last] }
    assert_equal all, cli_start(runs_argv(all)).slice(*all.keys)
  end

  def test_rack_takes_its_rows_as_start_does
    assert_equal Tracegraph::RecordingOptions.rack_names.sort,
                 (Tracegraph::Rack::OPTIONS & Tracegraph::START_OPTIONS).sort
    TABLE.each_value do |option|
      option.other_values.each do |value|
        if option.rack
          rack = Tracegraph::Rack.new(->(_) {}, option.name => value)
          assert_equal value, rack.send(:start_options_for, {})[option.name], option.name
        else
          assert_raises(ArgumentError, option.name.to_s) { Tracegraph::Rack.new(->(_) {}, option.name => value) }
        end
      end
    end
  end

  def test_the_railtie_has_a_setting_for_each_of_its_rows
    source = File.read(File.join(ROOT, "lib/tracegraph/rails.rb"))
    Tracegraph::RecordingOptions.railtie_names.each do |name|
      assert_match(/^#   config\.tracegraph\.#{name} /, source, "rails.rb's list of settings")
      assert_includes File.read(File.join(ROOT, "docs/rails.md")), "config.tracegraph.#{name}", "docs/rails.md"
    end
  end

  # The calibrated costs cross to C by name, each kind and part read by
  # its key (start_stop.c, read_event_costs): one missing or unknown is an
  # error, not a shifted slot.
  def test_the_extension_reads_the_event_costs_by_name
    args = Tracegraph.send(:parse_start_options, {}, hide_next_call: false).merge(hide_next_block: false)
    part = {inside: 1, outside: 2, hook_call: 3, hook_return: 4}
    costs = {ruby: part, block: part, c: part}
    error = assert_raises(KeyError) { Tracegraph._start(args.merge(event_costs: costs.except(:block))) }
    assert_match(/:block/, error.message)
    error = assert_raises(ArgumentError) { Tracegraph._start(args.merge(event_costs: costs.merge(c: part.merge(slot: 5)))) }
    assert_match(/event_costs: unknown option :slot/, error.message)
    assert_raises(TypeError) { Tracegraph._start(args.merge(event_costs: [1] * 12)) }
    refute Tracegraph.running?
    Tracegraph._start(args.merge(event_costs: costs))
    assert Tracegraph.running?
  ensure
    Tracegraph._stop if Tracegraph.running?
  end

  # The extension knows the clocks by the same names (start_stop.c lists
  # its own in its error).
  def test_the_extension_knows_the_same_clocks
    args = Tracegraph.send(:parse_start_options, {}, hide_next_call: false)
    error = assert_raises(ArgumentError) { Tracegraph._start(args.merge(clock: :gpu, hide_next_block: false, event_costs: nil)) }
    assert_equal "unknown clock :gpu (allowed: #{Tracegraph::CLOCKS.map(&:inspect).join(', ')})", error.message
  end
end

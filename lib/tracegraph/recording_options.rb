# The recording options, Tracegraph.start's keywords, declared once: each
# one's values, default, flag of the `tracegraph` command, TRACEGRAPH_*
# variable of autorun, whether Tracegraph::Rack and the Railtie take it,
# and whether `tracegraph --runs` hands it to its runs. Tracegraph.start
# checks its options here (Tracegraph.parse_start_options), the command
# makes its flags from it (cli/cli.rb), autorun reads its variables
# (cli/env_config.rb), --runs turns options back into flags with it
# (cli/repeated_run.rb), and Rack (rack.rb) and the Railtie (rails.rb)
# check and pass theirs through it; test/ruby/test_recording_options.rb
# fails when an option is missing from one of them.
#
# What a row's fields say:
#   values:  what it takes: [true, false], a list of Symbols (a String
#            naming one is taken too), or a Range of Integers
#   default: its value when not given
#   flags:   the command's flags, each [switches, what, *help]: what is
#            the value the flag sets, or ARGUMENT for a flag that takes one;
#            [] where the command has none, and no_flag says why
#   env:     autorun's variable, or nil (no_flag says why)
#   rack:    Tracegraph::Rack takes it (and so the Railtie's middleware)
#   railtie: config.tracegraph.<name> sets it
#   runs:    --runs gives each run its flag (else the parent's choice is
#            not the runs', and no_runs says why)
require "tracegraph/model/option_checks"
require "tracegraph/model/profile"

module Tracegraph
  DEFAULT_MAX_CALL_TREE_NODES = 1_000_000
  # The core's limit (TG_CALLTREE_MAX_NODES): node indexes stay below the
  # codes of the threads' roots.
  MAX_CALL_TREE_NODES = 2**31 - 1

  module RecordingOptions
    # A flag that takes its value as an argument (--clock cpu).
    ARGUMENT = :argument
    BOOLEAN = [true, false].freeze
    Option = Struct.new(:name, :values, :default, :flags, :no_flag, :env, :rack, :railtie, :runs, :no_runs,
                        keyword_init: true) do
      # The value the option stands for, given as value (Strings naming a
      # Symbol taken), or ArgumentError.
      def check(given)
        value = given.is_a?(String) && values.is_a?(Array) && values.any?(Symbol) ? given.to_sym : given
        return value if allows?(value)

        raise ArgumentError, message(name == :clock ? value : given)
      end

      def allows?(value)
        values.is_a?(Range) ? value.is_a?(Integer) && values.cover?(value) : values.include?(value)
      end

      # The values other than the default, for the tests, and the flags
      # that ask for them.
      def other_values
        values.is_a?(Range) ? [values.min, 12_345].reject { |v| v == default } : values - [default]
      end

      # The command's arguments that ask for value ([] for the default).
      def argv(value)
        return [] if value == default

        flags.each do |switches, what, *|
          long = Array(switches).last.split(" ").first
          return [long, value.to_s] if what == ARGUMENT
          return [long] if what == value
        end
        raise ArgumentError, "no flag of tracegraph asks for #{name}: #{value.inspect}"
      end

      private

      def message(value)
        shown = value.inspect[0, 40]
        if name == :clock
          "unknown clock #{value.inspect} (allowed: #{values.map(&:inspect).join(', ')})"
        elsif values.is_a?(Range)
          "#{name} must be an integer from #{values.min} to #{values.max}, not #{shown}"
        else
          *first, last = values.map(&:inspect)
          "#{name} must be #{first.join(', ')} or #{last}, not #{shown}"
        end
      end
    end

    TABLE = [
      Option.new(name: :clock, values: CLOCKS, default: :wall,
                 flags: [[["-c", "--clock CLOCK"], ARGUMENT, "wall (default), cpu or thread_cpu"]],
                 env: "TRACEGRAPH_CLOCK", rack: true, railtie: true, runs: true),
      Option.new(name: :c_calls, values: [true, false, :all], default: true,
                 flags: [[["--no-c-calls"], false, "Record only methods written in Ruby"],
                         [["--all-c-calls"], :all,
                          "Also record the operators Ruby runs inline (1 + 2, a[i]) as calls; Ruby then",
                          "runs them as calls, slower, while it records (docs/accuracy.md)"]],
                 env: "TRACEGRAPH_C_CALLS", rack: true, railtie: true, runs: true),
      Option.new(name: :raw_times, values: BOOLEAN, default: false,
                 flags: [[["--raw-times"], true,
                          "Keep tracing's own cost in the times (by default it is measured and taken out)"]],
                 env: "TRACEGRAPH_RAW_TIMES", rack: false, railtie: false, runs: true),
      Option.new(name: :gc, values: BOOLEAN, default: true,
                 flags: [[["--no-gc"], false,
                          "Leave garbage collection out (its time stays in the methods it interrupted)"]],
                 env: "TRACEGRAPH_GC", rack: true, railtie: false, runs: true),
      Option.new(name: :blocks, values: BOOLEAN, default: true,
                 flags: [[["--no-blocks"], false, "No nodes for blocks: their work is charged to what runs them"]],
                 env: "TRACEGRAPH_BLOCKS", rack: true, railtie: false, runs: true),
      Option.new(name: :allocations, values: BOOLEAN, default: false,
                 flags: [[["--allocations"], true, "Also count the objects each method and call allocates (self and total)"]],
                 env: "TRACEGRAPH_ALLOCATIONS", rack: true, railtie: true, runs: true),
      Option.new(name: :call_tree, values: BOOLEAN, default: false,
                 flags: [[["--call-tree"], true,
                          "Keep every distinct call path (implied by .folded, .pb.gz, .speedscope.json, " \
                          ".firefox.json, and .html but with --runs)"]],
                 env: "TRACEGRAPH_CALL_TREE", rack: false, railtie: true, runs: false,
                 no_runs: "--runs keeps medians, not call trees; a run records one when its own flags need it"),
      Option.new(name: :max_call_tree_nodes, values: 1..MAX_CALL_TREE_NODES, default: DEFAULT_MAX_CALL_TREE_NODES,
                 flags: [[["--max-call-tree-nodes N"], ARGUMENT,
                          "Cap the call tree at N paths (default #{DEFAULT_MAX_CALL_TREE_NODES}); deeper ones fold"]],
                 env: "TRACEGRAPH_MAX_CALL_TREE_NODES", rack: false, railtie: false, runs: true),
      Option.new(name: :exact_clock, values: BOOLEAN, default: false,
                 flags: [[["--exact-clock"], true,
                          "Read the kernel's clock on every event (slower): not the TSC for wall, nor a CPU",
                          "clock estimated between readings for cpu (docs/overhead.md)"]],
                 env: "TRACEGRAPH_EXACT_CLOCK", rack: false, railtie: false, runs: true),
      Option.new(name: :threads, values: %i[all current], default: :all, flags: [],
                 no_flag: "the command and autorun profile the whole program, every thread",
                 env: nil, rack: false, railtie: false, runs: false, no_runs: "no flag")
    ].to_h { |option| [option.name, option.freeze] }.freeze

    module_function

    def [](name) = TABLE.fetch(name)

    def names = TABLE.keys

    def rack_names = TABLE.values.select(&:rack).map(&:name)

    def railtie_names = TABLE.values.select(&:railtie).map(&:name)

    # Every option, checked, the defaults filled in. Unknown keys raise
    # ArgumentError naming the allowed ones, in allowed's order.
    def checked(options, allowed: names)
      OptionChecks.known!(options, allowed)
      TABLE.to_h { |name, option| [name, option.check(options.fetch(name, option.default))] }
    end

    # The command's arguments that ask for these options, for those --runs
    # hands to its runs.
    def runs_argv(options)
      TABLE.values.select(&:runs).flat_map { |option| options.key?(option.name) ? option.argv(options[option.name]) : [] }
    end
  end
end

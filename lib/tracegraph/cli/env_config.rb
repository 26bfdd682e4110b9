# The TRACEGRAPH_* variables that say what autorun records and draws,
# read in one place. Used by tracegraph/autorun; a bad value raises
# Tracegraph::Error naming it. (Four others belong to the one thing each
# sets, and are read there: TRACEGRAPH_DOT_TIMEOUT by
# formats/graphviz_run.rb, TRACEGRAPH_PIPE_TIMEOUT by output/delivery.rb,
# TRACEGRAPH_MAX_PROFILE_BYTES by formats/profile_file.rb when a profile
# is loaded, and TRACEGRAPH_RUN, autorun's own, exported to the processes
# a run starts, by output/output_naming.rb.)
#
#   TRACEGRAPH_OUTPUT         where to write at exit (default call_graph.dot; any name Output.check_path takes)
#   TRACEGRAPH_<OPTION>       each recording option that has a flag (RecordingOptions::TABLE, so
#                             the two cannot drift), with the values Tracegraph.start takes:
#                             TRACEGRAPH_CLOCK (wall | cpu | thread_cpu), _C_CALLS (1/true, the
#                             default, 0/false, or all, as --all-c-calls), _RAW_TIMES, _GC,
#                             _BLOCKS, _ALLOCATIONS, _CALL_TREE, _EXACT_CLOCK (1/true or 0/false),
#                             _MAX_CALL_TREE_NODES (a whole number: the cap of a call tree
#                             recorded); _CALL_TREE=0 where the output or a view needs the tree
#                             is refused (settle_call_tree)
#   TRACEGRAPH_<OPTION>       each graph flag of the command (GraphOptions::FLAGS, so the two
#                             lists cannot drift): TRACEGRAPH_NODE_FRACTION, _EDGE_FRACTION,
#                             _MAX_NODES, _FOCUS, _IGNORE, _SPLIT_HUBS, _FOLD_CHAINS (0/1),
#                             _SIZE_BY, _GROUP_BY, with the values their flags take
#   TRACEGRAPH_THREADS        threads to show, comma-separated (names, globs or ids), as --thread
#   TRACEGRAPH_IDLE           show (default) or hide, as --idle
require "tracegraph/output/output"
require "tracegraph/cli/graph_options"
require "tracegraph/recording_options"

module Tracegraph
  class EnvConfig
    attr_reader :output, :start_options, :dot_options

    def initialize(env = ENV)
      @env = env
      # Absolute from the start: the program may change directory.
      @output = File.expand_path(env.fetch("TRACEGRAPH_OUTPUT", "call_graph.dot"))
      @start_options = {}
      RecordingOptions::TABLE.each_value do |option|
        @start_options[option.name] = recording_value(option) if option.env && set?(option.env)
      end
      @dot_options = {}
      GraphOptions::FLAGS.each do |key, (_, type, *)|
        name = "TRACEGRAPH_#{key.upcase}"
        @dot_options[key] = graph_value(name, type) if set?(name)
      end
      @dot_options[:threads] = env["TRACEGRAPH_THREADS"].split(",").map(&:strip) if set?("TRACEGRAPH_THREADS")
      @dot_options[:idle] = Profile.idle_choice(env["TRACEGRAPH_IDLE"]) if set?("TRACEGRAPH_IDLE")
      settle_call_tree
      DotOptions.parse(@dot_options.except(*VIEW_OPTIONS))
      GraphOptions.check_allocations!(@start_options, @dot_options)
    rescue ArgumentError => e
      raise Error, "bad TRACEGRAPH_* setting: #{e.message}"
    end

    private

    def set?(name) = !@env[name].to_s.empty?

    # The call tree, as the command records it: where the output or a view
    # needs it or shows it (the HTML report's flame graph), or a grouping
    # is exact from it. TRACEGRAPH_CALL_TREE=0 is kept where the output
    # is written without one (the report, with no flame graph; a grouping,
    # its arrows estimated), and refused where it cannot be.
    def settle_call_tree
      unless @start_options[:call_tree] == false
        @start_options[:call_tree] = true if Output.wants_call_tree?([@output]) || GraphOptions.needs_call_tree?(@dot_options)
        return refuse_cap_without_tree
      end
      refuse_cap_without_tree
      needs = []
      needs << "TRACEGRAPH_OUTPUT=#{@env['TRACEGRAPH_OUTPUT']} is written from it" if Output.needs_call_tree?([@output])
      needs << "TRACEGRAPH_THREADS is counted from it" if @dot_options.key?(:threads)
      needs << "TRACEGRAPH_IDLE=hide is counted from it" if @dot_options[:idle] == :hide
      return if needs.empty?

      raise Error, "TRACEGRAPH_CALL_TREE=#{@env['TRACEGRAPH_CALL_TREE']} records no call tree, but #{needs.join(', and ')}: " \
                   "unset TRACEGRAPH_CALL_TREE"
    end

    # TRACEGRAPH_MAX_CALL_TREE_NODES where no call tree is recorded would
    # be ignored: refused, saying how to get one.
    def refuse_cap_without_tree
      return if @start_options[:call_tree] || !@start_options.key?(:max_call_tree_nodes)

      raise Error, "TRACEGRAPH_MAX_CALL_TREE_NODES=#{@env['TRACEGRAPH_MAX_CALL_TREE_NODES']} caps the call tree, and " \
                   "none is recorded for #{File.basename(@output)}: set TRACEGRAPH_CALL_TREE=1, " \
                   "or unset TRACEGRAPH_MAX_CALL_TREE_NODES"
    end

    # A graph flag's value, as OptionParser would read it for the flag.
    def graph_value(name, type)
      if type == Float then number(name)
      elsif type == Integer then integer(name)
      elsif type == TrueClass then boolean(name)
      elsif type.is_a?(Array)
        value = @env[name].strip
        return value if type.include?(value)

        raise Error, "#{name} must be one of #{type.join(', ')}, not #{@env[name].inspect}"
      else @env[name]
      end
    end

    # A recording option's value as Tracegraph.start takes it, which checks
    # it: a Symbol the variable names ("all" for c_calls: :all, "cpu"),
    # else a boolean or a whole number, as the option's values are.
    def recording_value(option)
      name = option.env
      symbols = option.values.is_a?(Array) ? option.values.grep(Symbol) : []
      word = @env[name].strip
      symbol = symbols.find { |value| value.to_s == word.downcase }
      return symbol if symbol
      return integer(name) if option.values.is_a?(Range)
      return boolean(name) if option.values.include?(true)

      word.to_sym
    end

    def boolean(name)
      case @env[name].downcase
      when "1", "true", "yes" then true
      when "0", "false", "no" then false
      else raise Error, "#{name} must be 1/true or 0/false, not #{@env[name].inspect}"
      end
    end

    def number(name)
      Float(@env[name])
    rescue ArgumentError
      raise Error, "#{name} must be a number, not #{@env[name].inspect}"
    end

    def integer(name)
      Integer(@env[name], 10)
    rescue ArgumentError
      raise Error, "#{name} must be a whole number, not #{@env[name].inspect}"
    end
  end
end

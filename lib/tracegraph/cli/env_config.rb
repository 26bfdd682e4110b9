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
#   TRACEGRAPH_CLOCK          wall | cpu | thread_cpu
#   TRACEGRAPH_C_CALLS        1/true (default), 0/false, or all (as --all-c-calls)
#   TRACEGRAPH_RAW_TIMES      1/true (keep tracing's cost in the times) or 0/false (default)
#   TRACEGRAPH_BLOCKS         1/true (default: blocks as frames) or 0/false
#   TRACEGRAPH_GC             1/true (default: garbage collection as nodes) or 0/false
#   TRACEGRAPH_ALLOCATIONS    1/true (count allocations, as allocations: true) or 0/false (default)
#   TRACEGRAPH_<OPTION>       each graph flag of the command (GraphOptions::FLAGS, so the two
#                             lists cannot drift): TRACEGRAPH_NODE_FRACTION, _EDGE_FRACTION,
#                             _MAX_NODES, _FOCUS, _IGNORE, _SPLIT_HUBS, _FOLD_CHAINS (0/1),
#                             _SIZE_BY, _GROUP_BY, with the values their flags take
#   TRACEGRAPH_THREADS        threads to show, comma-separated (names, globs or ids), as --thread
#   TRACEGRAPH_IDLE           show (default) or hide, as --idle
require "tracegraph/output/output"
require "tracegraph/cli/graph_options"

module Tracegraph
  class EnvConfig
    attr_reader :output, :start_options, :dot_options

    def initialize(env = ENV)
      @env = env
      # Absolute from the start: the program may change directory.
      @output = File.expand_path(env.fetch("TRACEGRAPH_OUTPUT", "call_graph.dot"))
      @start_options = {}
      @start_options[:clock] = env["TRACEGRAPH_CLOCK"].to_sym if set?("TRACEGRAPH_CLOCK")
      @start_options[:c_calls] = c_calls("TRACEGRAPH_C_CALLS") if set?("TRACEGRAPH_C_CALLS")
      @start_options[:raw_times] = boolean("TRACEGRAPH_RAW_TIMES") if set?("TRACEGRAPH_RAW_TIMES")
      @start_options[:gc] = boolean("TRACEGRAPH_GC") if set?("TRACEGRAPH_GC")
      @start_options[:blocks] = boolean("TRACEGRAPH_BLOCKS") if set?("TRACEGRAPH_BLOCKS")
      @start_options[:allocations] = boolean("TRACEGRAPH_ALLOCATIONS") if set?("TRACEGRAPH_ALLOCATIONS")
      @start_options[:call_tree] = true if Output.wants_call_tree?([@output])
      @dot_options = {}
      GraphOptions::FLAGS.each do |key, (_, type, *)|
        name = "TRACEGRAPH_#{key.upcase}"
        @dot_options[key] = graph_value(name, type) if set?(name)
      end
      @dot_options[:threads] = env["TRACEGRAPH_THREADS"].split(",").map(&:strip) if set?("TRACEGRAPH_THREADS")
      @dot_options[:idle] = Profile.idle_choice(env["TRACEGRAPH_IDLE"]) if set?("TRACEGRAPH_IDLE")
      @start_options[:call_tree] = true if GraphOptions.needs_call_tree?(@dot_options)
      DotOptions.parse(@dot_options.except(*VIEW_OPTIONS))
      GraphOptions.check_allocations!(@start_options, @dot_options)
    rescue ArgumentError => e
      raise Error, "bad TRACEGRAPH_* setting: #{e.message}"
    end

    private

    def set?(name) = !@env[name].to_s.empty?

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

    # A boolean, or "all" (c_calls: :all).
    def c_calls(name)
      @env[name].strip.downcase == "all" ? :all : boolean(name)
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

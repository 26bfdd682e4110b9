# Checks on keyword options, shared by every API that takes them, so a
# mistake gets the same clear ArgumentError wherever it is made.
module Tracegraph
  module OptionChecks
    module_function

    # Raises ArgumentError naming the unknown keys and the allowed ones.
    def known!(options, allowed)
      unknown = options.keys - allowed
      return if unknown.empty?

      raise ArgumentError, "unknown option#{'s' if unknown.size > 1} #{unknown.map(&:inspect).join(', ')} " \
                           "(allowed: #{allowed.map(&:inspect).join(', ')})"
    end

    # A limit in seconds from the environment variable, or default; raises
    # Tracegraph::Error naming the variable for anything but a number >= 0.
    # (TRACEGRAPH_DOT_TIMEOUT for Graphviz, in the HTML report's graph and
    # the rendered outputs; TRACEGRAPH_PIPE_TIMEOUT for a FIFO's reader.)
    def seconds_from_env!(variable, default)
      value = ENV.fetch(variable, default.to_s)
      seconds = Float(value, exception: false)
      raise Error, "#{variable} must be a number of seconds, not #{value.inspect}" unless seconds&.>=(0)

      seconds
    end

    # Returns value if it is true or false; raises ArgumentError otherwise.
    def boolean!(key, value)
      raise ArgumentError, "#{key} must be true or false, not #{value.inspect}" unless [true, false].include?(value)

      value
    end
  end
end

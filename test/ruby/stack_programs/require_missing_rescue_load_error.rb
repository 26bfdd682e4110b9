# require of a missing library raises LoadError through RubyGems' require
# and the original C require; require_relative raises it from C alone.
# The fallback belongs to the caller.
module StackPrograms
  module RequireMissingRescueLoadError
    def self.fallback(name) = name.size
    def self.after = :after

    def self.optional(name)
      require name
      :loaded
    rescue LoadError
      fallback(name)
    end

    def self.optional_relative(name)
      require_relative name
    rescue LoadError
      fallback(name)
    end

    def self.run
      optional("tracegraph_stack_programs_no_such_library")
      after
      optional_relative("tracegraph_stack_programs_no_such_file")
      after
    end
  end
end

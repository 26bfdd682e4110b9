# Endless recursion ends in SystemStackError, rescued by the caller of
# the recursion, twice. Ruby reports no returns while a SystemStackError
# unwinds (TracePoint misses them too), so this program is checked
# against the hand-checked expectations below, not against the tracer.
#
# Expectations: calls are exact except on the recursion itself. Runs of
# more than LONG_RUN frames of RECURSIVE methods in a path are folded
# into one "..." element and edges between RECURSIVE methods, and such
# folded paths, expect :many (at least LONG_RUN calls).
module StackPrograms
  module StackOverflowRescuedByCaller
    NAME = name
    LONG_RUN = 100
    RECURSIVE = ["#{NAME}.descend"].freeze

    def self.descend = descend
    def self.recovered = :recovered
    def self.after = :after

    def self.guarded
      descend
    rescue SystemStackError
      recovered
    end

    def self.run
      guarded
      after
      guarded
      after
    end

    def self.expected_edges(c_calls, _blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      edges = {
        [q[:run], q[:guarded]] => 2,
        [q[:guarded], q[:descend]] => 2,
        [q[:descend], q[:descend]] => :many,
        [q[:guarded], q[:recovered]] => 2,
        [q[:run], q[:after]] => 2,
      }
      edges[[q[:guarded], "Module#==="]] = 2 if c_calls # SystemStackError === $!
      edges
    end

    def self.expected_stacks(c_calls, _blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      run = q[:run]
      guarded = "#{run};#{q[:guarded]}"
      stacks = { run => 1, guarded => 2, "#{guarded};..." => :many, "#{guarded};#{q[:recovered]}" => 2,
                 "#{run};#{q[:after]}" => 2 }
      (1..LONG_RUN).each { |k| stacks[([guarded] + [q[:descend]] * k).join(";")] = 2 }
      stacks["#{guarded};Module#==="] = 2 if c_calls
      stacks
    end
  end
end

# SystemStackError through a method with an ensure (which calls
# cleanup), rescued a frame further up. Checked against hand-checked
# expectations; see stack_overflow_rescued_by_caller.rb for the rules.
module StackPrograms
  module StackOverflowThroughEnsure
    NAME = name
    LONG_RUN = 100
    RECURSIVE = ["#{NAME}.descend"].freeze

    def self.descend = descend
    def self.cleanup = :cleanup
    def self.recovered = :recovered
    def self.after = :after

    def self.with_ensure
      descend
    ensure
      cleanup
    end

    def self.run
      begin
        with_ensure
      rescue SystemStackError
        recovered
      end
      after
    end

    def self.expected_edges(c_calls, _blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      edges = {
        [q[:run], q[:with_ensure]] => 1,
        [q[:with_ensure], q[:descend]] => 1,
        [q[:descend], q[:descend]] => :many,
        [q[:with_ensure], q[:cleanup]] => 1,
        [q[:run], q[:recovered]] => 1,
        [q[:run], q[:after]] => 1,
      }
      edges[[q[:run], "Module#==="]] = 1 if c_calls
      edges
    end

    def self.expected_stacks(c_calls, _blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      run = q[:run]
      with_ensure = "#{run};#{q[:with_ensure]}"
      stacks = { run => 1, with_ensure => 1, "#{with_ensure};..." => :many, "#{with_ensure};#{q[:cleanup]}" => 1,
                 "#{run};#{q[:recovered]}" => 1, "#{run};#{q[:after]}" => 1 }
      (1..LONG_RUN).each { |k| stacks[([with_ensure] + [q[:descend]] * k).join(";")] = 1 }
      stacks["#{run};Module#==="] = 1 if c_calls
      stacks
    end
  end
end

# Endless recursion through Array#each (a C frame between every two Ruby
# frames) ends in SystemStackError, rescued by the caller. Checked
# against hand-checked expectations; see stack_overflow_rescued_by_caller.rb
# for the rules.
module StackPrograms
  module StackOverflowThroughCEach
    NAME = name
    LONG_RUN = 100
    BLOCK = "block in #{NAME}.spiral".freeze
    RECURSIVE = ["#{NAME}.spiral", "Array#each", BLOCK].freeze

    def self.spiral = [0].each { spiral }
    def self.recovered = :recovered
    def self.after = :after

    def self.guarded
      spiral
    rescue SystemStackError
      recovered
    end

    def self.run
      guarded
      after
    end

    # Array#each is written in C here (Ruby 3.1); where it is written in
    # Ruby it is traced without c_calls too.
    def self.each_traced?(c_calls) = c_calls || !Array.instance_method(:each).source_location.nil?

    # The cycle of names the recursion repeats.
    def self.cycle(c_calls, blocks)
      [
        "#{NAME}.spiral", ("Array#each" if each_traced?(c_calls)), (BLOCK if blocks)
      ].compact
    end

    def self.expected_edges(c_calls, blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      edges = {
        [q[:run], q[:guarded]] => 1,
        [q[:guarded], q[:spiral]] => 1,
        [q[:guarded], q[:recovered]] => 1,
        [q[:run], q[:after]] => 1,
      }
      names = cycle(c_calls, blocks)
      names.each_with_index { |name, i| edges[[name, names[(i + 1) % names.size]]] = :many }
      edges[[q[:guarded], "Module#==="]] = 1 if c_calls
      edges
    end

    def self.expected_stacks(c_calls, blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      run = q[:run]
      guarded = "#{run};#{q[:guarded]}"
      stacks = { run => 1, guarded => 1, "#{guarded};..." => :many, "#{guarded};#{q[:recovered]}" => 1,
                 "#{run};#{q[:after]}" => 1 }
      cycle = cycle(c_calls, blocks)
      (1..LONG_RUN).each { |k| stacks[([guarded] + Array.new(k) { |i| cycle[i % cycle.size] }).join(";")] = 1 }
      stacks["#{guarded};Module#==="] = 1 if c_calls
      stacks
    end
  end
end

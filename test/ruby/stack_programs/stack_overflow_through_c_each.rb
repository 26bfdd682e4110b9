# Endless recursion through Array#each (a C frame between every two Ruby
# frames) ends in SystemStackError, rescued by the caller. Checked
# against hand-checked expectations; see stack_overflow_rescued_by_caller.rb
# for the rules.
module StackPrograms
  module StackOverflowThroughCEach
    NAME = name
    LONG_RUN = 100
    RECURSIVE = ["#{NAME}.spiral", "Array#each"].freeze

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

    def self.expected_edges(c_calls)
      q = ->(m) { "#{NAME}.#{m}" }
      edges = {
        [q[:run], q[:guarded]] => 1,
        [q[:guarded], q[:spiral]] => 1,
        [q[:guarded], q[:recovered]] => 1,
        [q[:run], q[:after]] => 1,
      }
      if each_traced?(c_calls)
        edges[[q[:spiral], "Array#each"]] = :many
        edges[["Array#each", q[:spiral]]] = :many
      else
        edges[[q[:spiral], q[:spiral]]] = :many
      end
      edges[[q[:guarded], "Module#==="]] = 1 if c_calls
      edges
    end

    def self.expected_stacks(c_calls)
      q = ->(m) { "#{NAME}.#{m}" }
      run = q[:run]
      guarded = "#{run};#{q[:guarded]}"
      stacks = { run => 1, guarded => 1, "#{guarded};..." => :many, "#{guarded};#{q[:recovered]}" => 1,
                 "#{run};#{q[:after]}" => 1 }
      cycle = each_traced?(c_calls) ? [q[:spiral], "Array#each"] : [q[:spiral]]
      (1..LONG_RUN).each { |k| stacks[([guarded] + Array.new(k) { |i| cycle[i % cycle.size] }).join(";")] = 1 }
      stacks["#{guarded};Module#==="] = 1 if c_calls
      stacks
    end
  end
end

# SystemStackError on a fiber's own (smaller) stack, rescued inside the
# fiber, which then yields and is resumed once more. Checked against
# hand-checked expectations; see stack_overflow_rescued_by_caller.rb for
# the rules.
module StackPrograms
  module StackOverflowInFiber
    NAME = name
    LONG_RUN = 100
    RECURSIVE = ["#{NAME}.descend"].freeze

    def self.descend = descend
    def self.recovered = :recovered
    def self.after = :after

    def self.body
      begin
        descend
      rescue SystemStackError
        recovered
      end
      Fiber.yield(:overflowed)
      recovered
    end

    def self.run
      fiber = Fiber.new { body }
      fiber.resume
      after
      fiber.resume
      after
    end

    # With blocks, the fiber's block is its stack's bottom frame.
    BLOCK = "block in #{NAME}.run".freeze

    def self.expected_edges(c_calls, blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      # The fiber's stack is its own: body (or its block) is a bottom frame.
      edges = {
        [q[:body], q[:descend]] => 1,
        [q[:descend], q[:descend]] => :many,
        [q[:body], q[:recovered]] => 2,
        [q[:run], q[:after]] => 2,
      }
      if c_calls
        edges[[q[:run], "Class#new"]] = 1
        edges[["Class#new", "Fiber#initialize"]] = 1
        edges[[q[:run], "Fiber#resume"]] = 2
        edges[[q[:body], "Module#==="]] = 1
        edges[[q[:body], "Fiber.yield"]] = 1
      end
      edges[[BLOCK, q[:body]]] = 1 if blocks
      edges
    end

    def self.expected_stacks(c_calls, blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      run = q[:run]
      body = blocks ? "#{BLOCK};#{q[:body]}" : q[:body]
      stacks = blocks ? { BLOCK => 1 } : {}
      stacks.merge!(run => 1, "#{run};#{q[:after]}" => 2, body => 1, "#{body};..." => :many,
                 "#{body};#{q[:recovered]}" => 2)
      (1..LONG_RUN).each { |k| stacks[([body] + [q[:descend]] * k).join(";")] = 1 }
      if c_calls
        stacks["#{run};Class#new"] = 1
        stacks["#{run};Class#new;Fiber#initialize"] = 1
        stacks["#{run};Fiber#resume"] = 2
        stacks["#{body};Module#==="] = 1
        stacks["#{body};Fiber.yield"] = 1
      end
      stacks
    end
  end
end

# A generator fiber: Fiber.yield and resume back and forth, with calls on
# both sides; one fiber runs to its end, one is left suspended.
module StackPrograms
  module FiberYieldResume
    def self.produce(i) = i
    def self.consume(x) = x
    def self.generate(n)
      n.times { |i| Fiber.yield(produce(i)) }
      :done
    end

    def self.after = :after

    def self.run
      gen = Fiber.new { generate(2) }
      3.times { consume(gen.resume) }
      after
      left = Fiber.new { generate(5) }
      consume(left.resume)
      after
    end
  end
end

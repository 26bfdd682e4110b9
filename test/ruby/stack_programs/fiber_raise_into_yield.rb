# Fiber#raise into a fiber suspended in Fiber.yield: the fiber's own stack
# unwinds the C frame of Fiber.yield and rescues inside the fiber.
module StackPrograms
  module FiberRaiseIntoYield
    def self.before_yield = :before
    def self.recovered(error) = error.message
    def self.finished = :finished
    def self.after = :after

    def self.body
      before_yield
      begin
        Fiber.yield(:first)
      rescue ArgumentError => e
        recovered(e)
      end
      finished
    end

    def self.run
      fiber = Fiber.new { body }
      fiber.resume
      after
      fiber.raise(ArgumentError, "wake up")
      after
    end
  end
end

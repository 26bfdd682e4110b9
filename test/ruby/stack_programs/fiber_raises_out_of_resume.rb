# A fiber whose body raises: the exception comes out of Fiber#resume in
# the resuming stack and is rescued there.
module StackPrograms
  module FiberRaisesOutOfResume
    def self.inside = :inside
    def self.fail_inside = raise(IOError, "fiber failed")
    def self.recovered = :recovered
    def self.after = :after

    def self.drive(fiber)
      fiber.resume
    rescue IOError
      recovered
    end

    def self.run
      drive(Fiber.new { inside; fail_inside })
      after
      drive(Fiber.new { [1].each { fail_inside } })
      after
    end
  end
end

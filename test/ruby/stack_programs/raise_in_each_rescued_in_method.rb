# `[1, 2].each { raise "x" }` rescued by the method that called each:
# the handler and the calls after it belong to that method.
module StackPrograms
  module RaiseInEachRescuedInMethod
    def self.handle(error) = error.message
    def self.after = :after

    def self.scan(items)
      items.each { |i| raise "bad #{i}" if i > 1 }
      :clean
    rescue RuntimeError => e
      handle(e)
      after
    end

    def self.run
      scan([1, 2])
      after
      scan([0, 1])
      scan([5])
    end
  end
end

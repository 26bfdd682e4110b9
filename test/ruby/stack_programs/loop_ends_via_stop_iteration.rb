# Kernel#loop ends when Enumerator#next raises StopIteration inside it.
module StackPrograms
  module LoopEndsViaStopIteration
    def self.consume(x) = x
    def self.after = :after

    def self.drain(enum)
      result = loop { consume(enum.next) }
      after
      result
    end

    def self.run
      drain([1, 2].each)
      after
      drain(Enumerator.new { |y| y << 3 })
    end
  end
end

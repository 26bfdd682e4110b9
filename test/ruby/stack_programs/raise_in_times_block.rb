# A raise inside Integer#times' block, rescued by the method around it.
module StackPrograms
  module RaiseInTimesBlock
    def self.step(i) = i
    def self.recover = :recovered
    def self.after = :after

    def self.repeat(limit)
      3.times do |i|
        step(i)
        raise IndexError, "too far" if i == limit
      end
    rescue IndexError
      recover
    end

    def self.run
      repeat(1)
      after
      repeat(5)
      after
    end
  end
end

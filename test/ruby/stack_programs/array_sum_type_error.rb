# Array#sum and inject hit a TypeError deep in C (Integer#+ with a
# String); the caller rescues.
module StackPrograms
  module ArraySumTypeError
    def self.mixed = [1, "a"]
    def self.bad_sum = :bad_sum
    def self.after = :after

    def self.total(list)
      list.sum
    rescue TypeError
      bad_sum
    end

    def self.run
      total(mixed)
      after
      begin
        mixed.inject { |a, b| a + b }
      rescue TypeError
        bad_sum
      end
      after
      total([1, 2])
    end
  end
end

# Enumerable#take on an endless generator: take breaks out of the
# generator's Kernel#loop, Enumerator::Yielder#<< and Enumerator#each
# (internal iteration, no fiber).
module StackPrograms
  module EnumeratorTakeBreaksGenerator
    def self.produce(i) = i
    def self.after = :after

    def self.run
      counter = 0
      enum = Enumerator.new do |y|
        loop { y << produce(counter += 1) }
      end
      enum.take(2)
      after
      enum.first
      after
    end
  end
end

# External iteration with Enumerator#next (the enumerator runs in a fiber
# of its own) until StopIteration, rescued by the consumer.
module StackPrograms
  module EnumeratorNextStopIteration
    def self.produce(x) = x
    def self.consume(x) = x
    def self.done = :done
    def self.after = :after

    def self.drain(enum)
      begin
        3.times { consume(enum.next) }
      rescue StopIteration
        done
      end
      after
    end

    def self.run
      enum = Enumerator.new do |y|
        y << produce(1)
        y << produce(2)
      end
      drain(enum)
      after
      drain([7].each)
    end
  end
end

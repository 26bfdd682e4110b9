# An Enumerator whose generator block raises: Enumerator#next re-raises it
# in the consumer, out of the enumerator's fiber.
module StackPrograms
  module EnumeratorGeneratorRaises
    def self.produce(x) = x
    def self.broken_source = raise(EOFError, "source gone")
    def self.handled = :handled
    def self.after = :after

    def self.pull(enum)
      enum.next
      enum.next
    rescue EOFError
      handled
    end

    def self.run
      enum = Enumerator.new do |y|
        y << produce(1)
        broken_source
      end
      pull(enum)
      after
      begin
        enum.each { |x| produce(x) }
      rescue EOFError
        handled
      end
      after
    end
  end
end

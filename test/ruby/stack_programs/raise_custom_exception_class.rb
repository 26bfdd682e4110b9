# raise of a custom exception class whose initialize and message are Ruby
# methods: Kernel#raise calls exception, new and initialize; the rescuer
# then calls message.
module StackPrograms
  module RaiseCustomExceptionClass
    class Problem < StandardError
      def initialize(code)
        @code = describe(code)
        super("problem")
      end

      def describe(code) = "E#{code}"
      def message = "problem #{@code}"
    end

    def self.report(text) = text
    def self.after = :after

    def self.fail_with(code) = raise(Problem, code)

    def self.run
      begin
        fail_with(7)
      rescue Problem => e
        report(e.message)
      end
      after
      begin
        raise Problem.new(8)
      rescue Problem => e
        report(e.message)
      end
      after
    end
  end
end

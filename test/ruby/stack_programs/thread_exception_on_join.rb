# An exception ends a thread; Thread#join re-raises it in the joiner,
# which rescues and calls on.
module StackPrograms
  module ThreadExceptionOnJoin
    def self.work = :work
    def self.crash = raise(RangeError, "thread crashed")
    def self.failed(error) = error.class
    def self.after = :after

    def self.wait(thread)
      thread.join
    rescue RangeError => e
      failed(e)
    end

    def self.run
      thread = Thread.new do
        Thread.current.report_on_exception = false
        work
        crash
      end
      wait(thread)
      after
    end
  end
end

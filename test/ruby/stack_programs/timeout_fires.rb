# Timeout.timeout that fires: the timer thread raises into this thread,
# blocked in Queue#pop (a C frame); the caller rescues.
require "timeout"

module StackPrograms
  module TimeoutFires
    def self.expired = :expired
    def self.after = :after
    def self.wait_forever(queue) = queue.pop

    def self.guarded
      Timeout.timeout(0.001) { wait_forever(Queue.new) }
    rescue Timeout::Error
      expired
    end

    def self.run
      guarded
      after
    end
  end
end

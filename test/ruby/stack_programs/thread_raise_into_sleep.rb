# Thread#raise into a thread asleep in Kernel#sleep (a C frame), which
# rescues and calls on; the thread is joined.
module StackPrograms
  module ThreadRaiseIntoSleep
    class Wakeup < StandardError; end

    def self.ready(queue) = queue << :ready
    def self.woken(error) = error.class
    def self.finish = :finish
    def self.after = :after

    def self.sleeper(queue)
      ready(queue)
      sleep
    rescue Wakeup => e
      woken(e)
      finish
    end

    def self.run
      queue = Queue.new
      thread = Thread.new { sleeper(queue) }
      queue.pop
      thread.raise(Wakeup)
      thread.join
      after
    end
  end
end

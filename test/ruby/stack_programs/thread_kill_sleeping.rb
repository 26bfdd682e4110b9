# Thread#kill of a thread asleep inside an ensure-protected method: the
# ensure runs on the dying thread; the thread is joined.
module StackPrograms
  module ThreadKillSleeping
    def self.ready(queue) = queue << :ready
    def self.cleanup = :cleanup
    def self.after = :after

    def self.worker(queue)
      ready(queue)
      sleep
    ensure
      cleanup
    end

    def self.run
      queue = Queue.new
      thread = Thread.new { worker(queue) }
      queue.pop
      thread.kill
      thread.join
      after
    end
  end
end

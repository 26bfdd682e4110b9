# A raise inside Mutex#synchronize: the lock is released by the C code,
# the exception reaches the caller, which then calls on.
module StackPrograms
  module RaiseInMutexSynchronize
    def self.work = :working
    def self.recover(lock) = lock.locked?
    def self.after = :after

    def self.guarded(lock, fail)
      lock.synchronize do
        work
        raise "inside the lock" if fail
        work
      end
    rescue RuntimeError
      recover(lock)
    end

    def self.run
      lock = Mutex.new
      guarded(lock, true)
      after
      guarded(lock, false)
      after
    end
  end
end

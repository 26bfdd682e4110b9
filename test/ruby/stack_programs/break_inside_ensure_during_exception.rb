# While an exception unwinds, an ensure clause iterates with Array#each
# and breaks out of it; the exception then goes on to the caller.
module StackPrograms
  module BreakInsideEnsureDuringException
    def self.fail_now = raise(IOError, "failed")
    def self.flush(x) = x
    def self.caught = :caught
    def self.after = :after

    def self.work
      fail_now
    ensure
      [1, 2, 3].each do |x|
        break if x == 2
        flush(x)
      end
      flush(0)
    end

    def self.run
      begin
        work
      rescue IOError
        caught
      end
      after
    end
  end
end

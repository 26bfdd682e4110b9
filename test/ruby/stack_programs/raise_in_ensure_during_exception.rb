# While an exception unwinds, an ensure calls a C method that raises:
# the second exception replaces the first and unwinds from there.
module StackPrograms
  module RaiseInEnsureDuringException
    def self.fail_first = raise(KeyError, "first")
    def self.cleanup = :cleanup

    def self.risky
      fail_first
    ensure
      cleanup
      Integer("also bad")
    end

    def self.second(error) = error.class
    def self.after = :after

    def self.run
      begin
        risky
      rescue ArgumentError => e
        second(e)
      end
      after
    end
  end
end

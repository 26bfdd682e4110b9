# throw with no matching catch raises UncaughtThrowError from
# Kernel#throw; the caller rescues it.
module StackPrograms
  module UncaughtThrowErrorRescued
    def self.leave = throw(:nobody_catches)
    def self.uncaught(error) = error.tag
    def self.after = :after

    def self.attempt
      catch(:other) { leave }
    rescue UncaughtThrowError => e
      uncaught(e)
    end

    def self.run
      attempt
      after
    end
  end
end

# Timeout.timeout whose block finishes first: Timeout returns from a
# proc (a non-local return) and kills its timer thread.
require "timeout"

module StackPrograms
  module TimeoutDoesNotFire
    def self.quick(x) = x
    def self.after = :after

    def self.run
      Timeout.timeout(5) { quick(1) }
      after
      Timeout.timeout(5) { [1, 2].each { |x| quick(x) } }
      after
    end
  end
end

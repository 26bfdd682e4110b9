# Nested rescues: the inner one handles and re-raises a wrapped error,
# a middle ensure runs, the outer one handles; work in every clause.
module StackPrograms
  module NestedRescuesReraise
    class Wrapped < StandardError; end

    def self.low = Float("nope")
    def self.log(e) = e.class
    def self.cleanup = :cleanup
    def self.report(e) = e.cause.class
    def self.after = :after

    def self.inner
      low
    rescue ArgumentError => e
      log(e)
      raise Wrapped, "wrapped"
    end

    def self.middle
      begin
        inner
      rescue TypeError
        :not_this
      end
    ensure
      cleanup
    end

    def self.outer
      middle
    rescue Wrapped => e
      report(e)
      begin
        raise
      rescue Wrapped
        log(e)
      end
      after
    end

    def self.run
      outer
      after
    end
  end
end

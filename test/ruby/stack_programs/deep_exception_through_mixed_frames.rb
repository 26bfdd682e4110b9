# An exception raised 12 levels deep through alternating Ruby methods and
# C iterators (each, map, tap, then), rescued at the top.
module StackPrograms
  module DeepExceptionThroughMixedFrames
    def self.level(n)
      raise ArgumentError, "bottom" if n.zero?

      case n % 4
      when 0 then [n].each { level(n - 1) }
      when 1 then [n].map { level(n - 1) }
      when 2 then n.tap { level(n - 1) }
      else n.then { level(n - 1) }
      end
    end

    def self.caught = :caught
    def self.after = :after

    def self.top
      level(12)
    rescue ArgumentError
      caught
    end

    def self.run
      top
      after
      top
    end
  end
end

# `loop { break }` followed by another call in the same method: break
# unwinds Kernel#loop.
module StackPrograms
  module LoopBreakThenCall
    def self.tick(n) = n + 1
    def self.after = :after

    def self.count_to(limit)
      n = 0
      loop do
        n = tick(n)
        break if n == limit
      end
      after
      value = loop { break tick(n) }
      after
      value
    end

    def self.run
      count_to(3)
      after
    end
  end
end

# break from inside begin/ensure in a loop block: the ensure runs while
# Kernel#loop unwinds; next with ensure in Integer#times.
module StackPrograms
  module EnsureWithBreakInLoop
    def self.step = :step
    def self.cleanup = :cleanup
    def self.after = :after

    def self.run
      loop do
        begin
          step
          break
        ensure
          cleanup
        end
      end
      after
      2.times do
        begin
          next step
        ensure
          cleanup
        end
      end
      after
    end
  end
end

# String#gsub's block raises; so does a String#% format conversion.
module StackPrograms
  module GsubBlockRaises
    def self.replace(m)
      raise ArgumentError, "no dashes" if m == "-"

      m
    end

    def self.rejected = :rejected
    def self.after = :after

    def self.run
      begin
        "a-b".gsub(/[-b]/) { |m| replace(m) }
      rescue ArgumentError
        rejected
      end
      after
      begin
        format("%d", "x")
      rescue ArgumentError
        rejected
      end
      after
    end
  end
end

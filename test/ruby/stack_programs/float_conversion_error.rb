# Kernel#Float raises ArgumentError and TypeError; the caller rescues.
module StackPrograms
  module FloatConversionError
    def self.fallback(value) = value.to_s.length.to_f
    def self.after = :after

    def self.to_number(value)
      Float(value)
    rescue ArgumentError, TypeError
      fallback(value)
    end

    def self.run
      to_number("1.5x")
      after
      to_number(nil)
      to_number("2.5")
      after
    end
  end
end

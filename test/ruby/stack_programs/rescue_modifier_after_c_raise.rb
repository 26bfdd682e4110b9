# `Integer("zz") rescue nap`: Kernel#Integer is unwound by its own
# ArgumentError. The modifier's nap, and what parse calls after it,
# belong to parse, not to the dead Kernel#Integer frame.
module StackPrograms
  module RescueModifierAfterCRaise
    def self.nap = :nap
    def self.after = :after

    def self.parse(text)
      value = Integer(text) rescue nap
      after
      value
    end

    def self.run
      parse("zz")
      parse("12")
      parse("0x")
      after
    end
  end
end

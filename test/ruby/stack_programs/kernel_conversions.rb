# Kernel#Integer, Float, Rational, Complex, Array and String, failing
# and succeeding.
module StackPrograms
  module KernelConversions
    class Unprintable < BasicObject
      def to_s = ::Kernel.raise(::TypeError, "no")
    end

    def self.failed(kind) = kind
    def self.after = :after

    def self.attempt(kind)
      yield
    rescue ArgumentError, TypeError
      failed(kind)
    end

    def self.run
      attempt(:integer) { Integer("12z") }
      after
      attempt(:integer_nil) { Integer(nil) }
      attempt(:float) { Float("") }
      attempt(:rational) { Rational("1/x") }
      attempt(:complex) { Complex("i2x") }
      attempt(:string) { String(Unprintable.new) }
      after
      Integer("zz", exception: false)
      Array(nil)
      Integer("42", 8)
      after
    end
  end
end

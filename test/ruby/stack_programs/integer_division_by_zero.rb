# Integer#/ (and divmod, %) by zero: the VM's fast path gives up and the
# C method raises ZeroDivisionError, rescued by the caller.
module StackPrograms
  module IntegerDivisionByZero
    def self.infinite(n) = n
    def self.after = :after

    def self.ratio(a, b)
      a / b
    rescue ZeroDivisionError
      infinite(a)
    end

    def self.remainder(a, b)
      a.divmod(b)
    rescue ZeroDivisionError
      infinite(b)
    ensure
      after
    end

    def self.run
      ratio(7, 0)
      after
      ratio(8, 2)
      remainder(9, 0)
      x = (10 % 0 rescue infinite(10))
      after
      x
    end
  end
end

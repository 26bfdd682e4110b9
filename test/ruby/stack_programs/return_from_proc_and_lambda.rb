# return in a lambda leaves the lambda; return in a proc leaves the
# method that made it, through Proc#call and the C iterator calling it.
module StackPrograms
  module ReturnFromProcAndLambda
    def self.inner(x) = x
    def self.after = :after

    def self.with_lambda
      check = ->(x) { return inner(x) if x > 1; 0 }
      check.call(2)
      check.(0)
      after
    end

    def self.with_proc
      check = proc { |x| return inner(x) if x > 1 }
      [1, 2, 3].each { |x| check.call(x) }
      :never
    end

    def self.run
      with_lambda
      with_proc
      after
      with_proc
      after
    end
  end
end

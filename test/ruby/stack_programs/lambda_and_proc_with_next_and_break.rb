# break from a proc called through yield raises LocalJumpError when its
# home is gone; next and break in lambdas only leave the lambda.
module StackPrograms
  module LambdaAndProcWithNextAndBreak
    def self.value(x) = x
    def self.orphan_break = proc { break value(1) }
    def self.jumped = :jumped
    def self.after = :after

    def self.run
      l = ->(x) { next value(x) if x > 0; value(0) }
      l.call(1)
      after
      b = lambda { break value(2) }
      b.call
      after
      begin
        orphan_break.call
      rescue LocalJumpError
        jumped
      end
      after
    end
  end
end

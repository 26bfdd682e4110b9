# A lazy chain over an endless range, cut short by first: the iteration
# is broken out of from deep inside C frames.
module StackPrograms
  module LazyEnumeratorFirst
    def self.square(x) = x * x
    def self.keep?(x) = x.odd?
    def self.after = :after

    def self.run
      (1..Float::INFINITY).lazy.map { |x| square(x) }.select { |x| keep?(x) }.first(3)
      after
      (1..).lazy.map { |x| square(x) }.first
      after
    end
  end
end

# break out of each_with_index.map and each_slice: an Enumerator and
# several C frames between the block and the method.
module StackPrograms
  module BreakThroughEnumeratorChain
    def self.visit(x) = x
    def self.after = :after

    def self.run
      [1, 2, 3].each_with_index.map { |x, i| break visit(x) if i == 1; x }
      after
      (1..6).each_slice(2) { |pair| break visit(pair) if pair.first > 2 }
      after
      [4, 5].each.with_index(1) { |x, _| break visit(x) }
      after
    end
  end
end

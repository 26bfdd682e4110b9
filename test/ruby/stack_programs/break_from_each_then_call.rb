# break out of Array#each, then more calls from the same method.
module StackPrograms
  module BreakFromEachThenCall
    def self.visit(x) = x
    def self.after = :after

    def self.walk(items)
      items.each do |x|
        break if x == 2
        visit(x)
      end
      after
      found = items.each { |x| break x * 10 if x > 2 }
      after
      found
    end

    def self.run
      walk([1, 2, 3])
      after
    end
  end
end

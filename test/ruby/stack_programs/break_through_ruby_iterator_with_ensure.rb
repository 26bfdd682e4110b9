# break out of a block given to a Ruby iterator that yields from inside
# Array#each and has an ensure: the iterator, each and the block unwind.
module StackPrograms
  module BreakThroughRubyIteratorWithEnsure
    class Bag
      def initialize(items)
        @items = items
      end

      def each_item
        @items.each { |i| yield i }
      ensure
        cleanup
      end

      def cleanup = :cleanup
      def pick(i) = i
      def after = :after

      def first_big
        found = each_item { |i| break pick(i) if i > 1 }
        after
        found
      end
    end

    def self.run
      bag = Bag.new([1, 2, 3])
      bag.first_big
      bag.after
    end
  end
end

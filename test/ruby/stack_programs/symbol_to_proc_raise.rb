# map(&:sym) calls a method that raises (and one missing on nil).
module StackPrograms
  module SymbolToProcRaise
    class Item
      def initialize(ok)
        @ok = ok
      end

      def check
        raise ArgumentError, "bad item" unless @ok

        @ok
      end
    end

    def self.skipped = :skipped
    def self.after = :after

    def self.run
      begin
        [Item.new(true), Item.new(false)].map(&:check)
      rescue ArgumentError
        skipped
      end
      after
      begin
        [1, nil].map(&:succ)
      rescue NoMethodError
        skipped
      end
      after
    end
  end
end

# return from a block nested in a Ruby iterator, Hash#each and
# Integer#times: every frame up to the method unwinds.
module StackPrograms
  module ReturnThroughRubyAndCIterators
    def self.each_twice
      2.times { |i| yield i }
    end

    def self.inspect_value(v) = v
    def self.after = :after

    def self.find(table)
      each_twice do |i|
        table.each do |k, v|
          inspect_value(v)
          return k if v == i
        end
      end
      nil
    end

    def self.run
      find({ a: 5, b: 1 })
      after
      find({ c: 9 })
      after
    end
  end
end

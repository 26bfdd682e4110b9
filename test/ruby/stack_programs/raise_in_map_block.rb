# A raise inside the block of Array#map unwinds map (C) and the block.
module StackPrograms
  module RaiseInMapBlock
    def self.transform(x) = x * 2
    def self.recover(error) = error.message.size
    def self.after = :after

    def self.convert(items)
      items.map { |x| x == 2 ? raise(ArgumentError, "two") : transform(x) }
    rescue ArgumentError => e
      recover(e)
      after
    end

    def self.run
      convert([1, 2, 3])
      after
      convert([4])
    end
  end
end

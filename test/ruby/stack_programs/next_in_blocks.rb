# next leaves only the block: the C iterator keeps running.
module StackPrograms
  module NextInBlocks
    def self.keep(x) = x
    def self.after = :after

    def self.run
      [1, 2, 3, 4].map do |x|
        next 0 if x.even?
        keep(x)
      end
      after
      3.times do |i|
        next if i == 1
        keep(i)
      end
      after
    end
  end
end

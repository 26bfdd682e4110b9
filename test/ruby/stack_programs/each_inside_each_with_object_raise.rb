# A raise in Array#each inside Hash#each_with_object's block: two C
# iterators unwound at once.
module StackPrograms
  module EachInsideEachWithObjectRaise
    def self.convert(v) = v * 2
    def self.broken(error) = error.message
    def self.after = :after

    def self.index(groups)
      groups.each_with_object({}) do |(key, values), acc|
        values.each do |v|
          raise ArgumentError, "bad #{v}" if v == 2
          acc[key] = convert(v)
        end
      end
    rescue ArgumentError => e
      broken(e)
      after
    end

    def self.run
      index({ a: [1], b: [2, 3], c: [4] })
      after
      index({ d: [5] })
    end
  end
end

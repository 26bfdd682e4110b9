# sort_by and max_by whose block raises for one element.
module StackPrograms
  module SortByRaisingBlock
    def self.key(x)
      raise TypeError, "no key for nil" if x.nil?

      x
    end

    def self.unsortable = :unsortable
    def self.after = :after

    def self.order(items)
      items.sort_by { |x| key(x) }
    rescue TypeError
      unsortable
    end

    def self.run
      order([3, nil, 1])
      after
      order([2, 1])
      begin
        [1, nil].max_by { |x| key(x) }
      rescue TypeError
        unsortable
      end
      after
    end
  end
end

# Array#fetch raises IndexError two Ruby frames below the rescue.
module StackPrograms
  module ArrayFetchIndexError
    def self.out_of_range(i) = -i
    def self.after = :after
    def self.item(list, i) = list.fetch(i)
    def self.middle(list, i) = item(list, i)

    def self.safe(list, i)
      middle(list, i)
    rescue IndexError
      out_of_range(i)
    end

    def self.run
      list = [10, 20]
      safe(list, 5)
      after
      safe(list, 1)
      list.fetch(9) { |i| out_of_range(i) }
      safe(list, -3)
      after
    end
  end
end

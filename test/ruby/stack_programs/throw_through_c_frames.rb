# throw from a Ruby method called inside several nested C iterators
# (each, each_with_index, map) up to catch.
module StackPrograms
  module ThrowThroughCFrames
    def self.check(value, target)
      throw :found, value if value == target
      value
    end

    def self.caught(result) = result
    def self.after = :after

    def self.search(matrix, target)
      result = catch(:found) do
        matrix.each do |row|
          row.each_with_index do |v, _i|
            [v].map { |w| check(w, target) }
          end
        end
        nil
      end
      caught(result)
      after
    end

    def self.run
      matrix = [[1, 2], [3, 4]]
      search(matrix, 3)
      after
      search(matrix, 9)
    end
  end
end

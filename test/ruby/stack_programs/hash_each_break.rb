# break out of Hash#each, each_pair and each_with_object.
module StackPrograms
  module HashEachBreak
    def self.seen(k) = k
    def self.after = :after

    def self.run
      h = { a: 1, b: 2, c: 3 }
      h.each do |k, v|
        break if v > 1
        seen(k)
      end
      after
      h.each_pair { |k, v| break seen(k) if v == 3 }
      after
      h.each_with_object([]) { |(k, _), acc| acc << seen(k); break acc if acc.size == 2 }
      after
    end
  end
end

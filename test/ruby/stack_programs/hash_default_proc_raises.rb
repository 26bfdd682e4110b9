# A Hash's default proc raises from inside Hash#[] (C).
module StackPrograms
  module HashDefaultProcRaises
    def self.refuse(key) = raise(KeyError, "no #{key}")
    def self.missing = :missing
    def self.after = :after

    def self.get(hash, key)
      hash[key]
    rescue KeyError
      missing
    end

    def self.run
      strict = Hash.new { |_h, k| refuse(k) }
      get(strict, :a)
      after
      strict[:b] = 1
      get(strict, :b)
      after
    end
  end
end

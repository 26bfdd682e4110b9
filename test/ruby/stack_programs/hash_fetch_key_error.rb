# Hash#fetch raises KeyError (a C frame unwound), rescued by its caller;
# also fetch with a default block, which calls back into Ruby.
module StackPrograms
  module HashFetchKeyError
    def self.missing(key) = "no #{key}"
    def self.default_for(key) = key.to_s
    def self.after = :after

    def self.lookup(hash, key)
      hash.fetch(key)
    rescue KeyError
      missing(key)
    end

    def self.run
      table = { a: 1 }
      lookup(table, :b)
      after
      lookup(table, :a)
      table.fetch(:c) { |k| default_for(k) }
      lookup(table, :d)
      after
    end
  end
end

# C methods that modify a frozen object raise FrozenError from C:
# instance_variable_set, Hash#[]=, String#<<.
module StackPrograms
  module FrozenObjectCSetters
    def self.frozen(error) = error.class
    def self.after = :after

    def self.run
      begin
        Object.new.freeze.instance_variable_set(:@name, "z")
      rescue FrozenError => e
        frozen(e)
      end
      after
      begin
        {}.freeze[:k] = 1
      rescue FrozenError => e
        frozen(e)
      end
      after
      begin
        "text".freeze << "more"
      rescue FrozenError => e
        frozen(e)
      end
      after
    end
  end
end

# Struct accessors and their errors: an unknown member, a frozen setter,
# too many arguments to new.
module StackPrograms
  module StructAccessors
    Point = Struct.new(:x, :y) do
      def norm = x.abs + y.abs
    end

    def self.bad(error) = error.class
    def self.after = :after

    def self.run
      pt = Point.new(1, -2)
      pt.x
      pt.y = 3
      pt.norm
      begin
        pt[:z]
      rescue NameError => e
        bad(e)
      end
      after
      begin
        pt.dup.freeze.x = 5
      rescue FrozenError => e
        bad(e)
      end
      after
      begin
        Point.new(1, 2, 3)
      rescue ArgumentError => e
        bad(e)
      end
      after
    end
  end
end

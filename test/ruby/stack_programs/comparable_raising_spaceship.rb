# Comparable's C methods (<, clamp) and Array#sort calling a <=> that
# raises.
module StackPrograms
  module ComparableRaisingSpaceship
    class Version
      include Comparable
      attr_reader :n

      def initialize(n)
        @n = n
      end

      def <=>(other)
        raise ArgumentError, "not comparable" if other.n.nil?

        n <=> other.n
      end
    end

    def self.incomparable = :incomparable
    def self.after = :after

    def self.run
      a = Version.new(1)
      bad = Version.new(nil)
      begin
        a < bad
      rescue ArgumentError
        incomparable
      end
      after
      begin
        [a, bad, Version.new(2)].sort
      rescue ArgumentError
        incomparable
      end
      after
      ordered = a < Version.new(3)
      after
      ordered
    end
  end
end

# A super chain through a subclass, an included module and a base class;
# the base raises, a middle link rescues and re-raises, the top rescues.
module StackPrograms
  module SuperChainRaise
    class Base
      def process(x)
        raise ArgumentError, "base rejects #{x}" if x.negative?

        x
      end
    end

    module Logging
      def process(x)
        super
      rescue ArgumentError
        note
        raise
      end

      def note = :noted
    end

    class Leaf < Base
      include Logging

      def process(x)
        super(x) + 1
      rescue ArgumentError
        rejected
      end

      def rejected = :rejected
      def after = :after
    end

    def self.run
      leaf = Leaf.new
      leaf.process(-1)
      leaf.after
      leaf.process(1)
      leaf.after
    end
  end
end

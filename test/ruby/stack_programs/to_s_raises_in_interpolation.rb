# String interpolation and Array#join call a to_s that raises.
module StackPrograms
  module ToSRaisesInInterpolation
    class Shy
      def to_s
        detail
        raise NotImplementedError, "shy"
      end

      def detail = :detail
    end

    def self.refused = :refused
    def self.after = :after

    def self.render(obj)
      "value: #{obj}"
    rescue NotImplementedError
      refused
    end

    def self.run
      render(Shy.new)
      after
      begin
        [1, Shy.new].join(",")
      rescue NotImplementedError
        refused
      end
      after
    end
  end
end

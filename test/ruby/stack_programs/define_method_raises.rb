# Methods made by define_method (block frames that are methods) raise
# and rescue.
module StackPrograms
  module DefineMethodRaises
    class Handler
      define_method(:risky) do |x|
        check(x)
        x
      end

      define_method(:safe) do |x|
        risky(x)
      rescue ArgumentError
        fallback
      end

      def check(x)
        raise ArgumentError, "odd" if x.odd?
      end

      def fallback = :fallback
      def after = :after
    end

    def self.run
      h = Handler.new
      h.safe(1)
      h.after
      h.safe(2)
      begin
        h.risky(3)
      rescue ArgumentError
        h.after
      end
    end
  end
end

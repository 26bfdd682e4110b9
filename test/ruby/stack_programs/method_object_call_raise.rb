# Method#call, Method#to_proc through map, and UnboundMethod#bind_call
# into raising methods.
module StackPrograms
  module MethodObjectCallRaise
    class Parser
      def parse(s) = Integer(s)
      def bad(_) = :bad
      def after = :after

      def via_method
        method(:parse).call("x")
      rescue ArgumentError
        bad(nil)
      end

      def via_to_proc
        %w[1 y].map(&method(:parse))
      rescue ArgumentError
        bad(nil)
      end

      def via_bind_call
        Parser.instance_method(:parse).bind_call(self, "z")
      rescue ArgumentError
        bad(nil)
      end
    end

    def self.run
      p = Parser.new
      p.via_method
      p.after
      p.via_to_proc
      p.after
      p.via_bind_call
      p.after
    end
  end
end

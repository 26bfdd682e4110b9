# send, __send__ and public_send into raising methods, and public_send to
# a private method (NoMethodError from C).
module StackPrograms
  module SendAndPublicSendRaise
    class Target
      def boom = raise(ArgumentError, "boom")
      def after = :after
      def recover = :recovered

      private def secret = :secret

      def call_all
        begin
          send(:boom)
        rescue ArgumentError
          recover
        end
        begin
          public_send(:secret)
        rescue NoMethodError
          recover
        end
        __send__(:secret)
        begin
          public_send(:boom)
        rescue ArgumentError
          recover
        end
        after
      end
    end

    def self.run
      t = Target.new
      t.call_all
      t.after
    end
  end
end

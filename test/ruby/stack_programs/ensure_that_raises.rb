# An ensure clause that raises on the normal path: the method ends by an
# exception raised in its own ensure.
module StackPrograms
  module EnsureThatRaises
    class Closer
      def close
        work
        :closed
      ensure
        cleanup
        raise IOError, "close failed"
      end

      def work = :work
      def cleanup = :cleanup
      def after = :after
    end

    def self.handled = :handled

    def self.run
      closer = Closer.new
      begin
        closer.close
      rescue IOError
        handled
      end
      closer.after
    end
  end
end

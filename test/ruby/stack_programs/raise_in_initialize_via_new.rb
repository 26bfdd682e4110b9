# An exception from initialize, called through Class#new (C).
module StackPrograms
  module RaiseInInitializeViaNew
    class Widget
      def initialize(size)
        validate(size)
        @size = size
      end

      def validate(size)
        raise ArgumentError, "negative" if size.negative?
      end
    end

    def self.invalid = :invalid
    def self.after = :after

    def self.build(size)
      Widget.new(size)
    rescue ArgumentError
      invalid
    end

    def self.run
      build(-1)
      after
      build(2)
      after
    end
  end
end

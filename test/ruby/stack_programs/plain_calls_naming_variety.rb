# No non-local exits at all: a control for the tracer's naming. Aliases,
# inherited class methods, module functions, extend, prepend, methods of
# a singleton class of an object and of an anonymous class, and
# Kernel's own methods must be named as tracegraph names them.
module StackPrograms
  module PlainCallsNamingVariety
    module Helpers
      module_function

      def helper(x) = x
    end

    module Extra
      def extra = :extra
    end

    module Loud
      def speak = super.upcase
    end

    class Animal
      def self.create = new
      def speak = "hi"
      alias_method :talk, :speak
    end

    class Dog < Animal
      prepend Loud
    end

    def self.run
      dog = Dog.create
      dog.speak
      dog.talk
      Helpers.helper(1)
      thing = Object.new
      def thing.custom = :custom
      thing.custom
      thing.extend(Extra)
      thing.extra
      Class.new { def run_it = :ran }.new.run_it
      format("%d", 1)
      [3, 1].sort.map(&:to_s)
    end
  end
end

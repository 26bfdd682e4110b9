# method_missing that handles some names and passes the rest to super
# (BasicObject#method_missing, which raises NoMethodError).
module StackPrograms
  module MethodMissingRaises
    class Ghost
      def method_missing(name, *args)
        return found(name) if name.to_s.start_with?("get_")

        super
      end

      def respond_to_missing?(name, include_private = false)
        name.to_s.start_with?("get_") || super
      end

      def found(name) = name
      def lost(error) = error.name
      def after = :after

      def probe
        get_value
        missing_thing(1)
      rescue NoMethodError => e
        lost(e)
        after
      end
    end

    def self.run
      g = Ghost.new
      g.probe
      g.after
    end
  end
end

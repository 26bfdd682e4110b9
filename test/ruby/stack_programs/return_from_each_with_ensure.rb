# `routes.each { |r| return r if r.odd? }` in a method with an ensure:
# the return unwinds Array#each (a C frame) and runs the ensure, whose
# cleanup call and the caller's next calls must not land under each.
module StackPrograms
  module ReturnFromEachWithEnsure
    class Router
      def initialize(routes)
        @routes = routes
      end

      def first_odd
        @routes.each { |r| return r if r.odd? }
        nil
      ensure
        cleanup
      end

      def cleanup = :clean
      def after = :after
    end

    def self.run
      router = Router.new([2, 4, 5, 7])
      found = router.first_odd
      router.after
      Router.new([2]).first_odd
      router.after
      found
    end
  end
end

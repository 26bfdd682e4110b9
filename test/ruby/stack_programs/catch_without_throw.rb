# catch whose block returns normally, with a named and an anonymous tag.
module StackPrograms
  module CatchWithoutThrow
    def self.work(x) = x
    def self.after = :after

    def self.run
      catch(:never) { work(1) }
      after
      catch { |tag| work(tag.class) }
      after
      catch(:never) { [1, 2].each { |x| work(x) } }
    end
  end
end

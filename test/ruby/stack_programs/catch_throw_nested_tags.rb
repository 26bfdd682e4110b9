# Nested catches: a throw to the outer tag skips the inner catch; a throw
# to the inner one lands between.
module StackPrograms
  module CatchThrowNestedTags
    def self.leave(tag) = throw(tag, tag)
    def self.between = :between
    def self.after = :after

    def self.run
      catch(:outer) do
        catch(:inner) { leave(:outer) }
        between
      end
      after
      catch(:outer) do
        catch(:inner) { [1].each { leave(:inner) } }
        between
      end
      after
    end
  end
end

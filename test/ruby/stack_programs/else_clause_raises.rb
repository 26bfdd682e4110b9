# begin/rescue/else/ensure where the else clause raises: it is not
# rescued by its own rescue, the ensure runs, the caller rescues.
module StackPrograms
  module ElseClauseRaises
    def self.fine = :fine
    def self.not_here = :not_here
    def self.cleanup = :cleanup
    def self.caught = :caught
    def self.after = :after

    def self.flow
      begin
        fine
      rescue ArgumentError
        not_here
      else
        Float("else")
      ensure
        cleanup
      end
    end

    def self.run
      begin
        flow
      rescue ArgumentError
        caught
      end
      after
    end
  end
end

# A rescue clause (after Kernel#Integer raised) throws to a catch two
# frames up, through Array#each.
module StackPrograms
  module ThrowFromRescueClause
    def self.note = :note
    def self.after = :after

    def self.parse_or_give_up(text)
      Integer(text)
    rescue ArgumentError
      note
      throw :give_up, text
    end

    def self.run
      catch(:give_up) { %w[1 x 3].each { |t| parse_or_give_up(t) } }
      after
    end
  end
end

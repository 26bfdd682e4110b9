# Kernel#exit raises SystemExit; rescued like any exception, two Ruby
# frames up, with an ensure in between.
module StackPrograms
  module ExitRescuedAsSystemExit
    def self.shutdown(code) = exit(code)

    def self.command(code)
      shutdown(code)
    ensure
      flush
    end

    def self.flush = :flushed
    def self.status(error) = error.status
    def self.after = :after

    def self.run
      begin
        command(3)
      rescue SystemExit => e
        status(e)
      end
      after
      begin
        exit
      rescue SystemExit
        after
      end
    end
  end
end

# An attr_writer on a frozen object raises FrozenError. Attribute methods
# run without a VM frame of their own: Ruby reports their c_call, and
# their c_return only if they do not raise, so a profiler that waits for
# it keeps a dead frame. They call nothing themselves: the FrozenError's
# making (FrozenError#initialize, inspect) belongs to the caller, as in
# Ruby's backtrace, and so do the rescuer's calls.
module StackPrograms
  module FrozenAttrWriter
    class Config
      attr_writer :name
      attr_reader :name

      def after = :after
    end

    def self.frozen(error) = error.class
    def self.after = :after

    def self.rename(config, name)
      config.name = name
    rescue FrozenError => e
      frozen(e)
      config.after
    end

    def self.run
      open = Config.new
      rename(open, "x")
      closed = Config.new.freeze
      rename(closed, "y")
      after
      closed.name
      rename(closed, "z")
      after
    end
  end
end

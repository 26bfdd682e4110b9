# Hands the whole-process profile to a block when the process ends,
# however it ends. at_exit covers exit, the end of the program, an
# uncaught exception and a signal; exit! and exec skip at_exit handlers,
# so they are wrapped to call the block just before they proceed.
# Used by the tracegraph command and tracegraph/autorun.
module Tracegraph
  module ProcessEnd
    # Prepended to Kernel (privately), Kernel's and Process's singletons.
    module Hooks
      def exit!(status = false)
        ok = Tracegraph.process_ending(:exit!)
        # A profile that could not be written fails a run that succeeded,
        # as it does at exit (status true or 0 is success).
        super(ok == false && [true, 0].include?(status) ? 1 : status)
      end

      def exec(*args, **options)
        Tracegraph.process_ending(:exec)
        super
      end

      # Kernel#fork, Process.fork and IO.popen("-") all fork through
      # Process._fork (Ruby 3.1+); only Process's is ever called.
      def _fork
        pid = super
        Tracegraph.restart_after_fork if pid.zero?
        pid
      end
    end

    PrivateHooks = Module.new do
      include Hooks
      private :exit!, :exec, :_fork
    end

    def self.install
      return if @installed

      # Ours, not the program's: left out of the profile, so exit! is not
      # drawn as a method of tracegraph's holding the time it takes to stop.
      Tracegraph._hide_methods_of(Hooks)
      Kernel.prepend(PrivateHooks)
      Kernel.singleton_class.prepend(Hooks)
      Process.singleton_class.prepend(Hooks)
      @installed = true
    end
  end

  class << self
    # Calls the block once, with the profile stopped and :at_exit, :exit!
    # or :exec, when the process ends: from at_exit (registered now, so
    # after every at_exit handler registered later), or just before exit!
    # or exec. The block's value, false when an output could not be
    # written, lets exit! fail the run. A forked child inherits the block
    # and calls it for its own profile.
    def at_process_end(&block)
      @process_end = block
      at_exit { process_ending(:at_exit) }
      ProcessEnd.install
    end

    # Internal, for Hooks#_fork: in a forked child, the profile starts again
    # at the fork, with the same options (paused if it was). What the
    # parent did before is in the parent's own file, so adding up every
    # process's files (tracegraph merge) counts each call once.
    def restart_after_fork
      return unless running? && @start_options

      paused = paused?
      _stop
      _start(*parse_start_options(@start_options, hide_next_call: false), false)
      _pause if paused
    end

    # Internal, for the hooks above. Stops before anything else, so none
    # of this lands in the profile. Nothing to do if the profile was
    # written already (an exec that failed) or the program stopped it.
    def process_ending(how)
      return unless running?

      @process_end.call(stop, how)
    end
  end
end

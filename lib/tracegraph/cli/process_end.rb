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
        ok = ProcessEnd.ended(Tracegraph.stop_if_running, :exit!)
        # A profile that could not be written fails a run that succeeded,
        # as it does at exit (status true or 0 is success).
        super(ok == false && [true, 0].include?(status) ? 1 : status)
      end

      def exec(*args, **options)
        ProcessEnd.ended(Tracegraph.stop_if_running, :exec)
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

    # Calls the block once, with the profile stopped and :at_exit, :exit!
    # or :exec, when the process ends: from at_exit (registered now, so
    # after every at_exit handler registered later), or just before exit!
    # or exec. The block's value, false when an output could not be
    # written, lets exit! fail the run. A forked child inherits the block
    # and calls it for its own profile. A second call replaces the block.
    def self.call_at_end(&block)
      @block = block
      Tracegraph.profiling_whole_process!
      Tracegraph.stop_at_exit { |profile| ended(profile, :at_exit) }
      install
    end

    # Whether a block waits for the end of the process (tracegraph/autorun
    # set one when it started profiling).
    def self.waiting? = !@block.nil?

    # For the hooks, which stop the profile before anything else so none
    # of this lands in it: hands it to the block. Nothing to do without a
    # profile: it was written already (an exec that failed) or the
    # program stopped it.
    def self.ended(profile, how)
      return unless profile

      @block.call(profile, how)
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
    private_class_method :install
  end
end

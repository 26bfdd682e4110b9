# Running Graphviz's `dot` within a time limit, for both places that run
# it: the HTML report's graph view (formats/html_graph.rb) and `-o x.svg`
# (output/graphviz_output.rb, a layer above, which adds the size guard, the
# messages and what a signal means). dot runs in a process group of its
# own, so the terminal's Ctrl-C does not reach it; whoever runs it stops
# it: its whole group is killed when the wait ends without its status.
require "tracegraph/model/option_checks"

module Tracegraph
  module Formats
    module GraphvizRun
      # TRACEGRAPH_DOT_TIMEOUT (seconds) overrides it; 0 waits for ever.
      DEFAULT_TIMEOUT = 120

      module_function

      # The limit in seconds; raises Tracegraph::Error if the variable is
      # no number of seconds.
      def timeout = OptionChecks.seconds_from_env!("TRACEGRAPH_DOT_TIMEOUT", DEFAULT_TIMEOUT)

      # Runs command (dot and its arguments) with out and err as its
      # stdout and stderr (a path or an IO); its status, or nil if it ran
      # past limit seconds (0: no limit). Raises Errno::ENOENT if there is
      # no dot. Unless it finished, dot is stopped and partial (the file
      # it was writing, if any) removed, however the wait ends: the limit,
      # a signal's exception (Ctrl-C's Interrupt, SIGTERM's
      # SignalException, which reach the caller as they were), any other
      # (a program's trap("INT") { exit }), or this thread being killed as
      # the process ends (a server's thread). Signals' exceptions and
      # kills are held off but for the wait itself, so none lands between
      # the spawn and the wait, leaving dot unwatched.
      def run(command, limit, err:, out: File::NULL, partial: nil)
        Thread.handle_interrupt(Object => :never) do
          pid = Process.spawn(*command, in: File::NULL, out: out, err: err, pgroup: true)
          waiter = Process.detach(pid)
          begin
            done = Thread.handle_interrupt(Object => :immediate) { waiter.join(limit.zero? ? nil : limit) }
            done&.value
          ensure
            unless done
              stop(pid)
              waiter.join
              File.delete(partial) if partial && File.exist?(partial)
            end
          end
        end
      end

      # Kills dot's process group (its pid is the group's id).
      def stop(pid)
        Process.kill(:KILL, -pid)
      rescue Errno::ESRCH
        nil
      end
    end
  end
end

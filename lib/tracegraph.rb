# Tracegraph: a tracing profiler for Ruby that draws where the time went.
#
#   require "tracegraph"
#   profile = Tracegraph.profile { run_my_code }
#   profile.write_dot("call_graph.dot")   # dot -Tpdf call_graph.dot -o call_graph.pdf
#
# The C extension records every method call and return; this file is the
# public API around it: options, start/stop, and the block form.
#
# lib/tracegraph/ is in layers, lowest first; a file requires only its own
# layer and those listed before it (test/ruby/test_layers.rb checks):
#   model/       the profile and its pure transforms (view, merge, median,
#                hub split, chain fold, waiting, naming); no IO
#   formats/     one module per format, listed in formats/registry.rb
#   comparison/  diff and its gate
#   this file    the API: recording; it requires the three layers above,
#                so `require "tracegraph"` gives the whole library
#   output/      files named by their format, running `dot`, pipes
#   cli/         the command line, script runs, the end of the process
#   autorun.rb, rack.rb, rake_task.rb: the other public entry points
# The extension (tracegraph/tracegraph.so), version.rb and heap_room.rb
# are anyone's.
require "tracegraph/heap_room"
Tracegraph::HeapRoom.mark
require "tracegraph/version"
require "tracegraph/tracegraph"
require "tracegraph/frame_probe"
require "tracegraph/calibration"
require "tracegraph/model/naming"
require "tracegraph/model/option_checks"
require "tracegraph/model/profile"
require "tracegraph/recording_options"
require "tracegraph/formats/profile_methods"
require "tracegraph/comparison/diff_gate"
require "tracegraph/comparison/diff_html"

module Tracegraph
  THREADS = RecordingOptions[:threads].values
  # Tracegraph.start's keywords, in the order its errors list them: each
  # has its row in RecordingOptions::TABLE (test_recording_options.rb).
  START_OPTIONS = %i[clock c_calls blocks call_tree max_call_tree_nodes exact_clock threads gc allocations
                     raw_times].freeze
  # c_calls: true traces the C methods a program calls; :all also the
  # basic operators Ruby otherwise runs inline (see start).
  C_CALLS = RecordingOptions[:c_calls].values

  class << self
    # The profile from the last stop, including one cut short by an
    # exception in Tracegraph.profile's block.
    attr_reader :last_profile

    # Starts profiling the whole process.
    #   clock:   :wall (CLOCK_MONOTONIC, default; read through the TSC where
    #            the kernel keeps time with it), :cpu (CPU time, each
    #            thread's frames on that thread's own CPU clock, so the
    #            threads' times add up to the process's), :thread_cpu (the
    #            same clock, under its older name)
    #   c_calls: also trace methods implemented in C (default true): the
    #            C methods the program calls (String#gsub, Array#sort,
    #            JSON.parse). Not the basic operators on core classes that
    #            Ruby runs inline without a call (1 + 2, a[i], x == y):
    #            their time is their caller's, as in the unprofiled program.
    #            :all traces those too, but Ruby then runs them as calls,
    #            slower, while it records (docs/accuracy.md); false
    #            traces Ruby methods only.
    #   raw_times: keep tracing's own cost in the times (default false:
    #            the calibrated cost of each event is taken out, see
    #            Tracegraph::Calibration and docs/accuracy.md)
    #   blocks:  give each block a node of its own, "block in Foo#bar",
    #            below the method that runs it (default true); false
    #            charges a block's work to whatever runs it (Array#each)
    #   call_tree: also keep one node per distinct call path, for folded
    #              stacks and flame graphs (default false)
    #   max_call_tree_nodes: the call tree's cap (default 1,000,000); past
    #              it, deeper paths are folded into their nearest kept ancestor
    #   exact_clock: read the kernel's clock on every event (default false).
    #              :cpu and :thread_cpu otherwise read the CPU clock only
    #              after gaps of 20 us or more, and every millisecond, and
    #              advance it with the monotonic clock in between; :wall
    #              otherwise reads the TSC where the kernel's clocksource is
    #              "tsc". See docs/overhead.md.
    #   threads: :all (default) records every thread; :current only the
    #              calling thread and its fibers (Ruby filters the other
    #              threads out before calling our hook)
    #   gc:      record garbage collection as "(garbage collection)" nodes
    #              under the methods running when it ran (default true);
    #              false leaves its time in those methods' self time
    #   allocations: also count the objects allocated in each method and
    #              each call, self and total (default false; Ruby's
    #              allocator is slower while they are counted)
    def start(**options)
      return refuse_nested("Tracegraph.start", caller_locations(1, 1).first) if nested?

      start_recording(options, hide_next_call: false, hide_next_block: false)
      @start_options = options
      nil
    end

    # For the entry points that profile the whole process (the tracegraph
    # command, tracegraph/autorun; tracegraph/cli/process_end): the
    # program's own Tracegraph.start or Tracegraph.profile, while that
    # recording runs, is refused with advice instead of raising, so the
    # program runs as it does under ruby (see refuse_nested).
    def profiling_whole_process! = (@whole_process = true)

    # Runs a compiled script (RubyVM::InstructionSequence), or code given
    # as a String (ruby -e's, named "-e"), as Ruby's main program, profiling
    # it: code is evaluated at the top level, so its blocks are "block in
    # <main>" as under ruby -e (a compiled String's top level would be
    # "<compiled>"). The eval call itself is left out, so the
    # script's own calls are the roots. Profiling goes on after the script
    # returns or raises, through the at_exit handlers: stop it at the end
    # (the tracegraph command does, with ProcessEnd.call_at_end).
    def profile_main(iseq, **options)
      code = iseq.is_a?(String) ? iseq : nil
      start_recording(options, hide_next_call: true, hide_next_block: false)
      @start_options = options
      code ? eval(code, TOPLEVEL_BINDING, "-e", 1) : iseq.eval # rubocop:disable Security/Eval
    end

    # Stops recording until resume: calls made meanwhile are not recorded
    # and the time is not counted in any frame. Methods open now stay on
    # their stacks; those that return during the pause end at the pause.
    def pause
      _pause
      nil
    end

    # Records again after pause.
    def resume
      _resume
      nil
    end

    # Stops profiling and returns the Tracegraph::Profile. The program
    # then runs as it did before start: Ruby's instructions are made plain
    # again, and YJIT compiles them again (docs/accuracy.md#yjit).
    def stop
      if @refused_starts&.positive? # the program's own start, refused: the whole process's goes on
        @refused_starts -= 1
        return refused_profile
      end
      stop_recording(untrace: true)
    end

    # For the entry points that load tracegraph before the program and
    # profile it whole (tracegraph/autorun, the tracegraph command):
    # installs Tracegraph::Railtie if the program turns out to be a Rails
    # app, so that `config.tracegraph` works in its config. Bundler's
    # `require "tracegraph"` comes too late there (the file is loaded
    # already), so a TracePoint(:class) loads the Railtie when the app's
    # Application class opens, before its body runs, and disables itself;
    # in any other program it is disabled when the profile stops, so it is
    # on only while the profiler's own, far busier hook is. (Ruby runs no
    # event hook inside a TracePoint's block, so none of it is in a
    # profile.) A plain `require "tracegraph"` never watches: in a Rails
    # app Bundler requires it after Rails (config/application.rb requires
    # rails before Bundler.require), and the Railtie loads at once.
    def watch_for_rails_app
      return require("tracegraph/rails") if defined?(::Rails::Railtie)

      @rails_watch ||= TracePoint.new(:class) do |tp|
        next unless defined?(::Rails::Application) && tp.self.is_a?(Class) && tp.self < ::Rails::Application

        tp.disable
        require "tracegraph/rails"
      end
      @rails_watch.enable unless @rails_watch.enabled?
      nil
    end

    # Whether watch_for_rails_app is watching.
    def watching_for_rails_app? = @rails_watch&.enabled? || false

    # For tracegraph's own hooks at the end of a process
    # (tracegraph/cli/process_end), which stop profiling before they do
    # anything else: stops it and returns the profile, or nil if it is not
    # running. Called from here, the stop leaves no frame in the profile.
    def stop_if_running
      stop_recording(untrace: false) if running? # the process ends: no need to untrace
    end

    # Registers an at_exit handler that stops profiling and calls the
    # block with the profile (nil if it was not running). Registered from
    # here, the handler's block, like this module's methods, is not a
    # frame of the program's.
    def stop_at_exit(&block)
      at_exit { block.call(stop_if_running) }
    end

    # In a forked child (tracegraph/cli/process_end's hook of
    # Process._fork): starts the profile again at the fork, with the same
    # options (paused if it was). What the parent did before is in the
    # parent's own file, so adding up every process's files (tracegraph
    # merge) counts each call once. Nothing to do if not profiling.
    def restart_after_fork
      return unless running? && @start_options

      paused = paused?
      _stop
      start_recording(@start_options, hide_next_call: false, hide_next_block: false) # costs: the parent's
      _pause if paused
      nil
    end

    # Profiles the block and returns the profile. If the block raises, the
    # exception propagates and the profile so far is in last_profile.
    def profile(**options)
      raise ArgumentError, "Tracegraph.profile needs a block" unless block_given?
      if nested?
        refuse_nested("Tracegraph.profile", caller_locations(1, 1).first)
        @refused_starts -= 1 # no stop follows: the block is the whole of it
        yield
        return refused_profile
      end

      # As start, but the block given here is not a node of its own: what
      # it calls are the roots, as without blocks.
      start_recording(options, hide_next_call: false, hide_next_block: true)
      @start_options = options
      begin
        yield
      ensure
        stop if running?
      end
      @last_profile
    end

    # Whether YJIT is on in this process now.
    def yjit_on? = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? true : false

    # What one traced event costs the program with these start options,
    # in nanoseconds, inside the frame and outside it, by kind:
    # {ruby: {inside:, outside:}, block: {...}, c: {...}}. Measured once per
    # process and set of options (Tracegraph::Calibration), and taken out
    # of every profile's times unless raw_times: true.
    def event_costs(**options)
      calibrated_costs(parse_start_options(options, hide_next_call: false)).costs
    end

    CALL_TREE_HINT = "record it with call_tree: true, as in Tracegraph.profile(call_tree: true) { ... }"

    private

    # stop, and with untrace: false, what stop_if_running does at the end
    # of a process (which need not run fast afterwards).
    def stop_recording(untrace:)
      raw = begin
        _stop
      ensure
        @rails_watch&.disable # after the stop: not a call in the profile
      end
      # After the watch, whose :class events instructions carry too, and
      # before the profile is built, so that YJIT compiles that at speed.
      untrace_instructions if untrace
      # The hook is off: none of this is recorded. At the highest priority
      # the thread hands Ruby's lock to others 8 times less often while it
      # builds the profile, as _stop does (start_stop.c, set_priority).
      thread = Thread.current
      priority = thread.priority
      thread.priority = 3
      warn_of_c_calls(raw.dig(:tracing, :c_calls))
      @last_profile = Profile.from_native(raw, program: $PROGRAM_NAME, calibration: @recording_calibration,
                                          yjit: @recording_yjit, recorded_by: FrameProbe.verdict)
      # The keyword that brings the call tree's views (the HTML report's
      # flame graph, its paths, its thread and waiting choices), said
      # where the profile came from the API: the report cannot tell else.
      @last_profile.call_tree_hint = CALL_TREE_HINT unless @last_profile.call_tree || @whole_process
      @last_profile
    ensure
      thread.priority = priority if thread
    end

    # Makes Ruby's instructions plain again once the profile's hooks are
    # gone (binding/iseq_untrace.c), then has YJIT free the code it compiled
    # while they were traced, which now never runs, so that it compiles the
    # program again and repeated profiles do not fill its memory. Where it
    # cannot (another TracePoint, a debugger or coverage wants the events;
    # a Ruby it does not know), says so once per process.
    def untrace_instructions
      result = _untrace
      if result.is_a?(String)
        return if @untrace_warned

        @untrace_warned = true
        warn "tracegraph: Ruby's instructions stay traced after this profile: #{result}. The program runs " \
             "them a little slower, and YJIT cannot compile them, until the process restarts (docs/accuracy.md#yjit)"
      elsif result[:yjit_invalidated] && RubyVM::YJIT.respond_to?(:code_gc)
        RubyVM::YJIT.code_gc
      end
    end

    # Whether a start now would nest in the whole process's recording.
    def nested? = @whole_process && running?

    # Says, once, why the program's own start does not start, and counts
    # it, so that its stop gives an empty profile rather than stop the
    # whole process's recording. Returns nil, as start does.
    def refuse_nested(call, where)
      @refused_starts = (@refused_starts || 0) + 1
      return nil if @refused_said

      @refused_said = true
      at = where ? " (#{Tracegraph.printable(where.path)}:#{where.lineno})" : ""
      warn "tracegraph: #{call}#{at} was not started: tracegraph is profiling the whole program already, and its " \
           "profile holds these calls too; the program goes on, and this profile comes back empty. To profile " \
           "only this part, run the program with ruby, not tracegraph, or give tracegraph --focus METHOD"
      nil
    end

    # The empty profile a refused start gives (refuse_nested).
    def refused_profile
      Profile.new(clock: (@start_options && @start_options[:clock]) || :wall, threads: [], methods: [], edges: [],
                  program: $PROGRAM_NAME,
                  title: "empty: tracegraph was profiling the whole program (its own outputs hold this part)")
    end

    # What the recording's C-call tracing came to (the extension says):
    # said on stderr where it is not what c_calls: true promises.
    def warn_of_c_calls(traced)
      return unless @start_options && @start_options.fetch(:c_calls, true) == true

      if traced == false
        warn "tracegraph: C methods were not traced: this Ruby's record of the events hooks want was not " \
             "found (docs/accuracy.md); c_calls: :all traces them, making Ruby's operators calls for good"
      elsif traced == :rewritten
        warn "tracegraph: another event hook was added or removed while recording, and Ruby made its " \
             "operators (1 + 2, a[i]) calls: they are in this profile as calls (docs/accuracy.md)"
      end
    end

    # _start with the options checked, and the calibrated event costs
    # (measured first, before the recording starts, the first time these
    # options are used in this process).
    def start_recording(options, hide_next_call:, hide_next_block:)
      args = parse_start_options(options, hide_next_call: hide_next_call)
      raise Error, "already started: call Tracegraph.stop first" if running?

      calibration = options[:raw_times] == true ? nil : calibrated_costs(args)
      # Everything read before _start: after it, even a Struct's reader is
      # a call in the profile (Ruby 3.3 and later report them).
      @recording_calibration = calibration
      @recording_yjit = Tracegraph.yjit_on?
      _start(args.merge(hide_next_block: hide_next_block, event_costs: calibration&.named))
    end

    def calibrated_costs(args)
      # hide_next_call changes nothing in what an event costs.
      key = args.merge(hide_next_call: false)
      (@calibrated_costs ||= {})[key] ||= Calibration.measure do |costs|
        # calibrating: only this thread's events reach its recording, and
        # running? stays false until the profile itself starts.
        _start(key.merge(hide_next_block: false, event_costs: costs, calibrating: true))
      end.freeze
    end

    # The options of _start, by name (binding/start_stop.c reads each):
    # clock, c_calls, hide_next_call (without C calls the load/eval to hide
    # is not traced anyway), call_tree_nodes (the cap; 0 = no tree),
    # exact_clock, current_thread_only, gc, blocks (as frames),
    # allocations; calibrating, false: the profile's own recording, not
    # the calibration's. (hide_next_block, whether to leave out the next block
    # the calling thread runs, and event_costs are added by the caller.)
    def parse_start_options(options, hide_next_call:)
      o = RecordingOptions.checked(options, allowed: START_OPTIONS)
      if options.key?(:max_call_tree_nodes) && !o[:call_tree]
        raise ArgumentError, "max_call_tree_nodes caps the call tree, which is not recorded: add call_tree: true"
      end
      c_calls = o[:c_calls]
      {clock: o[:clock], c_calls: c_calls, hide_next_call: hide_next_call && c_calls != false,
       call_tree_nodes: o[:call_tree] ? o[:max_call_tree_nodes] : 0, exact_clock: o[:exact_clock],
       current_thread_only: o[:threads] == :current, gc: o[:gc], blocks: o[:blocks], allocations: o[:allocations],
       calibrating: false}
    end
  end
end

# In a Rails app (Bundler requires "tracegraph" after Rails), the Railtie:
# `gem "tracegraph"` in the Gemfile is the whole setup. The one place a
# layer loads one above it, and only when Rails is there to use it. (When
# tracegraph comes first, see Tracegraph.watch_for_rails_app.)
require "tracegraph/rails" if defined?(Rails::Railtie)

# The room what was loaded here takes in the heap, given back
# (tracegraph/heap_room.rb).
Tracegraph::HeapRoom.give_back

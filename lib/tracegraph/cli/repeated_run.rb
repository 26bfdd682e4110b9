# `tracegraph --runs N script.rb`: the script run N times, each in a
# process of its own exactly as `tracegraph script.rb` runs it once, and
# the outputs written from the median of the N profiles
# (Profile.median), which keeps each run's numbers for tracegraph diff to
# measure the noise by.
#
# The command's guarantees hold: outputs are checked before the first run,
# every output is attempted, and the command ends as the script did. The
# runs stop at the first that does not succeed: one killed by a signal,
# or one whose exit status is not among the statuses the script ends with
# by design (--ok-status; 0 alone by default: a linter that finds
# offenses exits 1 on every run). The outputs are then written from the
# runs so far, and the command exits with the last run's status, or dies
# by its signal.
require "rbconfig"
require "tmpdir"
require "tracegraph"
require "tracegraph/output/output"

module Tracegraph
  class RepeatedRun
    EXE = File.expand_path("../../../exe/tracegraph", __dir__)
    # Set for each run's process: what only the process the user started says.
    CHILD_ENV = "TRACEGRAPH_RUNS_CHILD"
    LIB = File.expand_path("../..", __dir__)

    # target: ["-e", code] or [script]; argv: the script's arguments.
    # ok_statuses: the exit statuses after which the runs go on.
    def initialize(runs, target, argv, outputs:, start_options:, dot_options:, flat:, err:, ok_statuses: [0])
      @runs = runs
      @target = target
      @argv = argv
      @outputs = outputs
      @start_options = start_options
      @dot_options = dot_options
      @flat = flat
      @err = err
      @ok_statuses = ok_statuses
    end

    # Returns the exit status (or does not return, dying by the script's signal).
    def call
      Dir.mktmpdir("tracegraph-runs") do |dir|
        profiles, status = run_all(dir)
        if profiles.empty?
          @err.puts "tracegraph: no run left a profile; nothing written"
          return finish(status, false)
        end

        profile = Profile.median(profiles)
        # Each run wrote its view already (child_options).
        graph_options = @dot_options.except(*VIEW_OPTIONS)
        ok, messages = begin
          Output.write_each(@outputs, "tracegraph") { |path| Output.write(profile, path, graph_options) }
        rescue RenderInterrupted => e
          BrokenPipe.print_quietly(@err) { @err.puts e.report("tracegraph") }
          e.end_process
        end
        messages.each { |message| @err.puts message }
        note = Output.grouping_note(profile, @outputs, graph_options)
        @err.puts "tracegraph: #{note}" if note
        profile.print_flat(@err) if @flat
        summarize(profile)
        finish(status, ok)
      end
    end

    private

    def run_all(dir)
      profiles = []
      status = nil
      @runs.times do |i|
        json = File.join(dir, "run#{i + 1}.json")
        # Progress, where someone watches; a log gets the summary at the end.
        @err.puts "tracegraph: run #{i + 1} of #{@runs}" if @err.tty?
        system({CHILD_ENV => "1"}, RbConfig.ruby, "-I", LIB, EXE, *child_options, "-o", json, *@target, *@argv,
               exception: false)
        status = $?
        profiles << Profile.load_json(json) if File.file?(json)
        next if status.exited? && @ok_statuses.include?(status.exitstatus)

        @err.puts "tracegraph: run #{i + 1} of #{@runs} did not succeed (#{describe(status)}); stopping#{hint(status)}"
        break
      end
      [profiles, status]
    end

    # Whether each run records a call tree: only where the views it writes
    # need one (--thread, --idle hide); --runs keeps medians, not trees.
    def self.runs_record_call_tree?(dot_options) = GraphOptions.needs_call_tree?(dot_options)

    # The options that shape what is recorded, as their flags (each row of
    # RecordingOptions::TABLE says whether its runs get it), and the views
    # each run writes; the graph options shape only the outputs, which
    # this process writes. The call tree's cap goes to a run only where it
    # records a tree (a run's command refuses a cap without one).
    def child_options
      tree = RepeatedRun.runs_record_call_tree?(@dot_options)
      start = tree ? @start_options : @start_options.except(:max_call_tree_nodes)
      options = RecordingOptions.runs_argv(start)
      Array(@dot_options[:threads]).each { |thread| options += ["--thread", thread.to_s] }
      options += ["--idle", @dot_options[:idle].to_s] if @dot_options[:idle] && @dot_options[:idle] != :auto
      options
    end

    # How to go on after a status the script ends with by design.
    def hint(status)
      return "" if status.signaled?

      " (if the script ends so by design, --ok-status #{(@ok_statuses + [status.exitstatus]).sort.join(',')} lets the runs go on)"
    end

    def describe(status)
      status.signaled? ? "killed by #{Signal.signame(status.termsig)}" : "exit status #{status.exitstatus}"
    end

    # "10 runs, median total cpu time 3.11 s (runs from 3.07 s to 3.17 s:
    # a spread of 3.2%; the median's standard error 0.4%)". The spread is
    # how far apart the runs were; the standard error (bootstrap) is how
    # far the median itself may be off, which is what the gate's margins
    # are made of. A bare "± 0.0%" beside a 3% spread read as a mistake.
    def summarize(profile)
      totals = profile.runs.total_times
      median = profile.total_time
      range = "runs from #{Tracegraph.human_time(totals.min)} to #{Tracegraph.human_time(totals.max)}"
      if median.positive?
        range += format(": a spread of %.1f%%", 100.0 * (totals.max - totals.min) / median)
        error = RunStats.median_error(totals)
        range += format("; the median's standard error %.1f%%", 100.0 * error / median) if error
      end
      @err.puts "tracegraph: #{profile.runs.count} runs, median total #{profile.clock} time " \
                "#{Tracegraph.human_time(median)} (#{range})"
    end

    def finish(status, ok)
      if status.signaled?
        begin
          Signal.trap(status.termsig, "DEFAULT")
        rescue ArgumentError # KILL and STOP cannot be trapped, nor need to be
          nil
        end
        Process.kill(status.termsig, Process.pid)
        sleep 1 # the signal is on its way
      end
      return status.exitstatus unless status.success?

      ok ? 0 : 1
    end
  end
end

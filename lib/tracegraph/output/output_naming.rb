# Which file each process of a profiled run writes, so that none
# overwrites another's.
#
# The run's first process writes the path asked for (call_graph.dot).
# Every other process writes it with its pid before the extension
# (call_graph.12345.dot): a child it forks, a program it execs (same pid,
# new program), a Ruby it starts that profiles itself too
# (RUBYOPT=-rtracegraph/autorun). A name already written during this run
# is never reused: the next one gets a count after the pid
# (call_graph.12345.2.dot, .3, ...), as when a process writes its profile
# before exec and the program it runs writes another. A file left by an
# earlier run is replaced.
#
# Under autorun the first process exports TRACEGRAPH_RUN=PID:START (its
# pid, and when the run began in nanoseconds since the epoch), so the
# processes it starts know they are not the first, and when "this run"
# began.
require "tracegraph/output/output"

module Tracegraph
  class OutputNaming
    ENV_KEY = "TRACEGRAPH_RUN"
    # A file's mtime comes from the kernel's coarse clock, up to a tick
    # behind the clock read here: a file written just after the run began
    # must not pass for an older one.
    CLOCK_SLACK_NS = 20_000_000

    # The naming for a process under autorun: the first of its run if the
    # environment names no run yet (it then exports one).
    def self.from_env(env = ENV)
      pid, start = env[ENV_KEY].to_s.match(/\A(\d+):(\d+)\z/)&.captures&.map(&:to_i)
      return new(first_pid: pid, run_start_ns: start) if pid

      naming = new(first_pid: Process.pid, run_start_ns: now_ns)
      env[ENV_KEY] = "#{Process.pid}:#{naming.run_start_ns}"
      naming
    end

    def self.now_ns = Process.clock_gettime(Process::CLOCK_REALTIME, :nanosecond)

    attr_reader :run_start_ns

    def initialize(first_pid: Process.pid, run_start_ns: self.class.now_ns)
      @first_pid = first_pid
      @run_start_ns = run_start_ns
    end

    # The path this process writes instead of `path` (a name, or an
    # Output::Target, whose name is tagged the same way). Standard output
    # and pipes are the first process's; another one's profile goes to a
    # file named after it: -.12345.folded, fifo.12345.json.
    def path_for(path)
      return target_for(path) if path.is_a?(Output::Target)
      return path if first_process? && !written_this_run?(path)

      tags.map { |tag| Output.tagged_path(path, tag) }.find { |p| !written_this_run?(p) }
    end

    def first_process? = Process.pid == @first_pid

    private

    def target_for(target)
      return target if first_process? && (!target.file? || !written_this_run?(target.path))

      if target.file?
        tag = free_tag(target.path)
        return target.renamed { |name| Output.tagged_path(name, tag) }
      end

      # Standard output and pipes are the first process's: this one writes
      # a file beside the FIFO, or tracegraph.PID.folded for a device.
      device = target.stdout? || target.name.start_with?("/dev/", "/proc/")
      name = device ? "tracegraph#{target.suffix}#{'.gz' if target.gzip?}" : target.name
      tag = free_tag(File.expand_path(name, target.base))
      Output.target(Output.tagged_path(name, tag), format: target.format_name, dir: target.base).absolute
    end

    def free_tag(path) = tags.find { |tag| !written_this_run?(Output.tagged_path(path, tag)) }

    def tags = (1..).lazy.map { |n| n == 1 ? Process.pid : "#{Process.pid}.#{n}" }

    def written_this_run?(path)
      mtime = File.mtime(path)
      mtime.to_i * 1_000_000_000 + mtime.nsec >= @run_start_ns - CLOCK_SLACK_NS
    rescue SystemCallError
      false
    end
  end
end

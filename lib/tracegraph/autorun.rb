# Profiles the whole process and writes the call graph when it ends:
#
#   TRACEGRAPH_OUTPUT=graphs/call_graph.pdf ruby -rtracegraph/autorun app.rb
#
# Settings come from TRACEGRAPH_* variables (see tracegraph/cli/env_config.rb).
# The profile covers the program's own at_exit handlers, and is written
# just before exit! or exec too (see tracegraph/cli/process_end.rb).
#
# Every process writes its own file, and none overwrites another's (see
# tracegraph/output/output_naming.rb). The first process of a run writes
# TRACEGRAPH_OUTPUT and exports TRACEGRAPH_RUN; every other one writes
# the name with its pid, graphs/call_graph.12345.pdf: a forked child, a
# program exec'd (the one before exec wrote its own), a Ruby started with
# this library in RUBYOPT (`RUBYOPT=-rtracegraph/autorun rake test`: rake's
# file and each test process's). A pid's name already written in this run
# gets a count: graphs/call_graph.12345.2.pdf.
#
# A profiler must not turn a green build red: the output's directory is
# created (tmp/ in a fresh checkout), and a bad TRACEGRAPH_* setting, an
# output that cannot be written or a profile that fails to write is a
# warning on stderr, never the program's exit status. Each message names
# its process (pid, program and its first arguments), so the file with
# the tests is found among rake's and the test processes'.
require "fileutils"
require "pathname"
require "tracegraph"
require "tracegraph/cli/env_config"
require "tracegraph/output/output"
require "tracegraph/output/output_naming"
require "tracegraph/cli/process_end"

module Tracegraph
  module Autorun
    module_function

    # Starts profiling the process, or says why not and lets it run. In
    # either case, a Rails app gets the Railtie (a bad setting must not
    # leave `config.tracegraph` unknown to the app's config).
    def start
      Tracegraph.watch_for_rails_app
      command = command_line
      config = EnvConfig.new
      # Messages name it relative to where the program started, as typed.
      output = Output.target(config.output)
      make_directory(output)
      Output.check_path(output)
      naming = OutputNaming.from_env
      # Registered first, so it runs after the program's own at_exit
      # handlers and sees their work too; and before the start, so its
      # setting up is not in the profile.
      ProcessEnd.call_at_end { |profile| write(profile, output, config, naming, command) }
      begin
        Tracegraph.start(**config.start_options)
      rescue ArgumentError => e
        raise Error, "bad TRACEGRAPH_* setting: #{e.message}"
      end
    rescue Tracegraph::Error => e
      tell("tracegraph/autorun: #{e.message}; running without profiling (#{process(command)})")
    rescue StandardError => e
      tell("tracegraph/autorun: #{e.class}: #{e.message}; running without profiling (#{process(command)})")
    end

    # The program and its first arguments as it started (a program may
    # empty ARGV as it runs): "ruby rake_test_loader.rb test/a.rb ... (+12 more)".
    def command_line(program = $PROGRAM_NAME, argv = ARGV)
      name = File.basename(program)
      name = "ruby #{name}" if program == "-e" || name.end_with?(".rb")
      args = argv.first(3).map { |arg| arg.length > 40 ? "#{arg[0, 39]}..." : arg }
      more = argv.size > 3 ? " (+#{argv.size - 3} more)" : ""
      "#{[name, *args].join(' ')}#{more}"
    end

    # "pid 12345: rake test": read when it is needed, for a forked child's own pid.
    def process(command) = "pid #{Process.pid}: #{command}"

    # TRACEGRAPH_OUTPUT=tmp/tests.svg in a checkout without tmp/. Only for
    # a known format: a typo in the name creates no directory.
    def make_directory(target)
      return unless target.file? && Output.format_of(target.path.delete_suffix(Output::GZIP_SUFFIX))

      FileUtils.mkdir_p(File.dirname(target.path))
    rescue SystemCallError => e
      # mkdir's EEXIST for a file in the way says "File exists": name it.
      file = Pathname(File.dirname(target.path)).ascend.find { |dir| File.exist?(dir) && !File.directory?(dir) }
      reason = file ? "#{file} is not a directory" : e.message.sub(/ @ .*/, "")
      raise Error, target.in_user_terms("cannot write #{target.path}: cannot create its directory (#{reason})")
    end

    # Writes first, then says so; the program's own status stands whatever
    # happens, but for a signal that stops dot (Ctrl-C), which ends the
    # process by that signal.
    def write(profile, output, config, naming, command)
      profile, dot_options, note = Output.view_of_run(profile, config.dot_options)
      _, messages = Output.write_each([output], "tracegraph") do |path|
        Output.write(profile, naming.path_for(path), dot_options)
      end
      messages.unshift("tracegraph: #{note}") if note
      messages.each { |message| tell("#{message} (#{process(command)})") }
      true
    rescue RenderInterrupted => e
      tell("#{e.report('tracegraph')} (#{process(command)})")
      e.end_process
    rescue StandardError => e
      tell("tracegraph: could not write the profile: #{e.class}: #{e.message} (#{process(command)})")
      true
    end

    # A closed stderr costs nothing.
    def tell(message)
      warn Tracegraph.printable(message)
    rescue IOError, SystemCallError
      nil
    end
  end
end

Tracegraph::Autorun.start

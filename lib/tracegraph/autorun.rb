# Profiles the whole process and writes the call graph when it exits:
#
#   TRACEGRAPH_OUTPUT=graphs/call_graph.pdf ruby -rtracegraph/autorun app.rb
#
# Settings come from TRACEGRAPH_* variables (see tracegraph/env_config.rb).
# A forked child writes its own file, with its pid in the name, so it never
# overwrites its parent's.
require "tracegraph"
require "tracegraph/env_config"
require "tracegraph/output"

module Tracegraph
  module Autorun
    module_function

    def start
      config = EnvConfig.new
      Output.check_path(config.output)
      parent_pid = Process.pid
      Tracegraph.start(**config.start_options)
      # Registered first, so it runs after the program's own at_exit
      # handlers and sees their work too. It stops before calling any
      # method of ours, so none of them lands in the profile.
      at_exit do
        profile = Tracegraph.running? && Tracegraph.stop
        write(profile, config, parent_pid) if profile
      end
    end

    def write(profile, config, parent_pid)
      path = Process.pid == parent_pid ? config.output : Output.path_for_child(config.output)
      written = Output.write(profile, path, config.dot_options)
      warn "tracegraph: wrote #{written.join(', ')}"
    rescue Tracegraph::Error => e
      warn "tracegraph: #{e.message}"
    end
  end
end

begin
  Tracegraph::Autorun.start
rescue Tracegraph::Error, ArgumentError => e
  # Status 2, as the tracegraph command gives for bad options.
  warn Tracegraph.printable("tracegraph/autorun: #{e.message}")
  exit 2
end

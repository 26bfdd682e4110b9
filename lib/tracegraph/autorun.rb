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
require "tracegraph"
require "tracegraph/cli/env_config"
require "tracegraph/output/output"
require "tracegraph/output/output_naming"
require "tracegraph/cli/process_end"

module Tracegraph
  module Autorun
    module_function

    def start
      config = EnvConfig.new
      Output.check_path(config.output)
      naming = OutputNaming.from_env
      # Registered first, so it runs after the program's own at_exit
      # handlers and sees their work too; and before the start, so its
      # setting up is not in the profile.
      ProcessEnd.call_at_end { |profile| write(profile, config, naming) }
      Tracegraph.start(**config.start_options)
    end

    # Writes first, then says so; a closed stderr costs nothing.
    def write(profile, config, naming)
      profile, dot_options, note = Output.view_of_run(profile, config.dot_options)
      message = begin
        "tracegraph: wrote #{Output.write(profile, naming.path_for(config.output), dot_options).join(', ')}"
      rescue Tracegraph::Error => e
        "tracegraph: #{e.message}"
      end
      message = "tracegraph: #{note}\n#{message}" if note
      begin
        warn Tracegraph.printable(message)
      rescue IOError, SystemCallError
        nil
      end
      true # the program's own status stands
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

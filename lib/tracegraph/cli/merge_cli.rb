# `tracegraph merge a.json b.json ... -o all.json`: adds up profiles of
# many processes or CI shards into one (Profile.merge: methods and edges
# matched by name, counts and times summed exactly), written in any format
# with any graph options, as tracegraph render writes one. Exit status as
# render's: 0, 1 when an output could not be written, 2 for bad usage, an
# unreadable profile, or profiles of different clocks.
require "tracegraph/cli/render_cli"

module Tracegraph
  class MergeCLI < RenderCLI
    private

    def command = "merge"

    def banner
      <<~TEXT
        Usage: tracegraph merge [options] a.json b.json ... -o all.json

        Adds up profiles saved with -o profile.json (one per process, or per CI shard)
        into one: methods and calls are matched by name, and counts and times add up
        exactly. All must use the same clock. The sum is written in any format, as
        tracegraph render writes one:
        #{Output.known_formats}
        (call trees are not summed, so not .folded, .pb.gz, .speedscope.json or .firefox.json). -o can be given more than once.

      TEXT
    end

    def check_files(files)
      raise CLI::UsageError, "needs the profiles to add up, a.json b.json ..." if files.empty?
    end

    def profile_from(files) = Profile.merge(files.map { |file| Profile.load_json(file) })

    # A sum is worth keeping: no default name to overwrite by surprise.
    def default_outputs = []

    def output_help = "Write the sum here (needed unless --flat)"

    def parse(argv)
      options = super
      return options if options == :done
      raise CLI::UsageError, "say where to write the sum: -o all.json (or --flat)" if options[:outputs].empty? && !options[:flat]
      stacks = options[:outputs].map { |path| Output.target(path, format: options[:format]) }
                                .select { |target| Output.needs_call_tree?([target]) }
      raise CLI::UsageError, "a sum has no call tree, so it cannot be written as #{stacks.join(', ')}" if stacks.any?

      options
    end
  end
end

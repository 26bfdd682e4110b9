# Folded stacks, the input of flame graph tools: one line per call path,
#   Object#main;Integer#times;Math.sqrt 1403516
# with the path's self time in integer nanoseconds as its weight, so the
# weights add up to the profile's total time. flamegraph.pl, speedscope and
# `gprof2dot -f collapse` read it. Needs a profile recorded with
# call_tree: true, because edges alone cannot rebuild whole stacks.
module Tracegraph
  class Profile
    def to_folded
      unless call_tree
        raise Error, "this profile has no call tree: record it with Tracegraph.start(call_tree: true) " \
                     "(or tracegraph --call-tree) to write folded stacks"
      end

      lines = call_tree.nodes.filter_map do |node|
        next if node.self_time.zero?

        "#{node.stack.map { |m| Profile.folded_frame(m.name) }.join(';')} #{node.self_time}\n"
      end
      lines.sort.join
    end

    def write_folded(path)
      Tracegraph.write_output(path, to_folded)
    end

    # ';' separates frames and a line ends the record: keep both out of names.
    def self.folded_frame(name)
      name.tr(";", ":").gsub(/[\r\n]/, " ")
    end
  end
end

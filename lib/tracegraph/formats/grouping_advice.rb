# The command's word when a method-level graph cannot show where the time
# goes: a program whose time is spread over thousands of methods (rubocop:
# 5,830 methods, 80 boxes holding 62% of the self time) reads better by
# class, file or gem. The shares are the graphs' own (the legend's "boxes
# hold X%"), so what the advice promises is what --group-by draws.
require "tracegraph/formats/dot"

module Tracegraph
  module Formats
    module GroupingAdvice
      # Below this share of self time held by the boxes, the command advises:
      # issue 29's target for a graph that reads. (At 60%, rubocop's 62%,
      # rdoc's 77% and a Rack app's 78% went unremarked, when by gem each
      # holds over 99%.)
      ADVISE_BELOW = 80.0
      LEGEND_SHARE = /boxes hold ([\d.]+)% of/

      module_function

      # The share (percent) of self time (or allocations, sizing by them)
      # the boxes of the graph these options draw hold.
      def held_share(profile, **dot_options)
        dot = Dot.generate(profile, **dot_options)
        dot[LEGEND_SHARE, 1]&.to_f || 100.0
      end

      # For a profile drawn with dot_options (as the command draws it): a
      # line saying the graph holds little and which --group-by holds more,
      # or nil when it holds ADVISE_BELOW% or more, the options choose a
      # grouping already, or no other grouping holds more.
      def note(profile, dot_options)
        return nil if dot_options.key?(:group_by) || profile.methods.empty?

        shown = held_share(profile, **dot_options)
        return nil if shown >= ADVISE_BELOW

        others = (Profile::GROUPINGS - [:method]).to_h { |g| [g, held_share(profile, **dot_options, group_by: g)] }
        better = others.select { |_, share| share > shown }
        return nil if better.empty?

        held = profile.allocations? && dot_options[:size_by].to_s == "allocations" ? "allocations" : "self time"
        "the graph's boxes hold #{format_share(shown)} of #{held}, spread over " \
          "#{Tracegraph.group_digits(profile.methods.size)} methods; --group-by " +
          better.each_with_index.sort_by { |(_, share), i| [-share, i] }
                .map.with_index { |((g, share), _), i| "#{g}#{' would hold' if i.zero?} #{format_share(share)}" }
                .join(", ")
      end

      def format_share(share) = "#{share.round(1).to_s.delete_suffix('.0')}%"
    end
  end
end

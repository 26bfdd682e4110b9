# The command's word when a method-level graph cannot show where the time
# goes: a program whose time is spread over thousands of methods (rubocop:
# 5,830 methods, 80 boxes holding 62% of the self time) reads better by
# class, file or gem. The shares are the graphs' own (the legend's "boxes
# hold X%"), so what the advice promises is what --group-by draws.
#
# A grouping reads only if no box of it holds half the time or more: a
# graph whose boxes hold 99.8% says little when one or two boxes hold
# most of it (issue 36: asciidoctor by gem, 43.7% and 42.9%). Sinatra's
# fixture by gem puts 57.9% in one box, Ruby's rubygems (its requires).
# So the advice recommends, of the groupings whose biggest box holds
# under READS_BELOW% of the self time, the one whose boxes hold the most;
# where none does, it says that no grouping reads well, and why.
require "tracegraph/formats/dot"

module Tracegraph
  module Formats
    module GroupingAdvice
      # Below this share of self time held by the boxes, the command advises:
      # issue 29's target for a graph that reads. (At 60%, rubocop's 62%,
      # rdoc's 77% and a Rack app's 78% went unremarked, when by gem each
      # holds over 99%.)
      ADVISE_BELOW = 80.0
      # A grouping whose biggest box holds this share of the self time or
      # more is not recommended: one box is the answer, and the graph says
      # no more than it (issue 36).
      READS_BELOW = 50.0
      LEGEND_SHARE = /boxes hold ([\d.]+)% of/

      # One grouping tried: its grouped profile, the share its graph's
      # boxes hold, and its biggest box (by self time, or self allocations
      # when sized by them) with that box's share of the whole.
      Grouping = Struct.new(:grouping, :profile, :held, :biggest, :biggest_share, keyword_init: true) do
        def reads? = biggest_share < READS_BELOW
      end

      # What the advice found: the share the method-level boxes hold, of
      # what ("self time" or "allocations"), over how many methods; the
      # grouping advised (a Grouping, or nil when none reads), the others
      # that read, and those that hold more but do not read.
      Advice = Struct.new(:shown, :held_what, :methods, :advised, :others, :unreadable, keyword_init: true) do
        def text = GroupingAdvice.text(self)
      end

      module_function

      # The share (percent) of self time (or allocations, sizing by them)
      # the boxes of the graph these options draw hold.
      def held_share(profile, **dot_options)
        dot = Dot.generate(profile, **dot_options)
        dot[LEGEND_SHARE, 1]&.to_f || 100.0
      end

      # For a profile drawn with dot_options (as the command draws it): an
      # Advice, or nil when the graph's boxes hold ADVISE_BELOW% or more,
      # the options choose a grouping already, or no grouping holds more.
      def advice(profile, dot_options)
        return nil if dot_options.key?(:group_by) || profile.methods.empty?

        shown = held_share(profile, **dot_options)
        return nil if shown >= ADVISE_BELOW

        allocations = profile.allocations? && dot_options[:size_by].to_s == "allocations"
        better = (Profile::GROUPINGS - [:method]).map { |g| try(profile, g, dot_options, allocations) }
                                                 .select { |g| g.held > shown }
        return nil if better.empty?

        # By share held, the first of GROUPINGS' order among equals.
        reads = better.select(&:reads?).each_with_index.sort_by { |g, i| [-g.held, i] }.map(&:first)
        Advice.new(shown: shown, held_what: allocations ? "allocations" : "self time", methods: profile.methods.size,
                   advised: reads.first, others: reads.drop(1), unreadable: better.reject(&:reads?))
      end

      # The advice as the command prints it, or nil (see advice).
      def note(profile, dot_options) = advice(profile, dot_options)&.text

      # profile grouped by grouping: its graph's share held and its biggest box.
      def try(profile, grouping, dot_options, allocations)
        viewed, options = profile.viewed(dot_options)
        grouped = viewed.group_by(grouping)
        # A focus matches methods' names, so it is drawn from the methods.
        held = options[:focus] ? held_share(viewed, **options, group_by: grouping) : held_share(grouped, **options)
        size = allocations ? :self_allocations : :self_time
        whole = grouped.methods.sum { |m| m.public_send(size) || 0 }
        biggest = grouped.methods.max_by { |m| m.public_send(size) || 0 }
        Grouping.new(grouping: grouping, profile: grouped, held: held, biggest: biggest.name,
                     biggest_share: whole.positive? ? 100.0 * (biggest.public_send(size) || 0) / whole : 0.0)
      end

      # "the graph's boxes hold 62.1% of self time, spread over 5,830
      # methods; --group-by gem would hold 98.9%, its biggest box rubocop at
      # 40.7%; also file 88.2%, class 87.9%", or that none reads and why.
      def text(advice)
        head = "the graph's boxes hold #{format_share(advice.shown)} of #{advice.held_what}, spread over " \
               "#{Tracegraph.group_digits(advice.methods)} methods"
        one_box = advice.unreadable.map { |g| "by #{g.grouping} #{g.biggest} at #{format_share(g.biggest_share)}" }.join(", ")
        unless (g = advice.advised)
          return "#{head}, and no --group-by reads better: one box would hold half of it or more (#{one_box})"
        end

        others = advice.others.map { |o| "#{o.grouping} #{format_share(o.held)}" }
        "#{head}; --group-by #{g.grouping} would hold #{format_share(g.held)}, its biggest box " \
          "#{g.biggest} at #{format_share(g.biggest_share)}" +
          (others.empty? ? "" : "; also #{others.join(', ')}") +
          (one_box.empty? ? "" : "; not #{advice.unreadable.map(&:grouping).join(' or ')}, where one box holds half or more (#{one_box})")
      end

      def format_share(share) = "#{share.round(1).to_s.delete_suffix('.0')}%"
    end
  end
end

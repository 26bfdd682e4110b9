module Tracegraph
  # Measures what one traced event costs the program, so that the profile
  # can take it out of its times (see session_time_less in the extension,
  # and docs/accuracy.md).
  #
  # Every call and return the profiler sees costs the program the VM's
  # call into the hook and the hook itself: tens of nanoseconds, which
  # lands in the time of whatever runs around the event. A method called
  # 300,000 times pays it 600,000 times, so without this its time, and its
  # callers', grows by the tracing it attracts rather than by its work.
  #
  # How: four loops run the same number of iterations, unprofiled and then
  # under a real recording with the very options of the profile to come:
  # an empty loop, and loops that also call an empty Ruby method, a method
  # that yields to an empty block, and a C method. Tracing's cost per
  # iteration is (profiled - unprofiled) / iterations; the empty loop's is
  # subtracted from the others (with c_calls: :all its operators are calls
  # too), which leaves the cost of one call and its return, per kind. The
  # fastest of nine short rounds is kept (noise only ever adds time; a
  # short round is less often preempted on a busy machine).
  #
  # Where that cost lands matters as much: the hook reads the clock late
  # in a call and early in a return, so most of it falls outside the
  # frame, in its caller's time. The part inside is what the recording
  # itself says an empty method, block or C method took: its recorded
  # time per call, in the round least disturbed. Each event is given half
  # of each part.
  module Calibration
    ITERATIONS = 5_000
    ROUNDS = 9

    # The methods run while calibrating. Recorded like any other code, in a
    # recording that is thrown away. Each loop that calls something has one
    # copy per round (loop_ruby_0 ... loop_ruby_8), so that the recording
    # keeps each round's calls apart (an edge, or a block, per round) and
    # the inside time can be read from a round that nothing interrupted.
    class Subject
      def empty; end

      def yields
        yield
      end

      def loop_empty(n)
        i = 0
        i += 1 while i < n
      end

      # A C method that does almost nothing, and that no Ruby runs inline.
      C_METHOD = %i[itself hash object_id].find do |name|
        Object.instance_method(name).source_location.nil?
      end || :itself

      ROUNDS.times do |round|
        class_eval <<~RUBY, __FILE__, __LINE__ + 1
          def loop_ruby_#{round}(n)
            i = 0
            while i < n
              empty
              i += 1
            end
          end

          def loop_block_#{round}(n)
            i = 0
            while i < n
              yields {}
              i += 1
            end
          end

          def loop_c_#{round}(n)
            i = 0
            while i < n
              #{C_METHOD}
              i += 1
            end
          end
        RUBY
      end
    end

    LOOPS = %i[loop_empty loop_ruby loop_block loop_c].freeze

    module_function

    KINDS = %i[ruby block c].freeze

    # What measure found: costs, {ruby: {inside:, outside:}, block: ...,
    # c: ...} in nanoseconds per event; hooks, the hook's own mean time per
    # event in the calibration's loops, {ruby: {call:, return:}, ...}: the
    # base from which a recording measures what its program's events cost
    # the hook beyond it (sampled, see session.h).
    #
    # spreads: how sure each kind's cost is, ns per event: how far the
    # median round's per-iteration time lies above the fastest's, for the
    # loops its cost is the difference of, unprofiled and profiled, shared
    # over an iteration's two events. Rounds that agree (a quiet machine)
    # give a nanosecond or two; rounds that other jobs slowed by turns, more.
    Result = Struct.new(:costs, :hooks, :spreads, keyword_init: true) do
      # As _start takes them (event_costs, read by name in start_stop.c):
      # {ruby: {inside:, outside:, hook_call:, hook_return:}, block: ..., c: ...}.
      def named
        KINDS.to_h do |kind|
          cost = costs.fetch(kind)
          hook = hooks.fetch(kind)
          [kind, {inside: cost[:inside], outside: cost[:outside], hook_call: hook[:call], hook_return: hook[:return]}]
        end
      end
    end

    # A Result. `start` starts a recording with the profile's options and
    # no costs taken out (it is given :sample, which also samples the
    # hook's own time); it is stopped and thrown away here.
    def measure(&start)
      subject = Subject.new
      ROUNDS.times { |round| LOOPS.each { |name| subject.public_send(loop_method(name, round), 100) } } # warm
      plain_rounds = round_times(subject)
      start.call(:sample)
      begin
        traced_rounds = round_times(subject)
      ensure
        raw = Tracegraph._stop
      end
      plain = plain_rounds.transform_values(&:min)
      traced = traced_rounds.transform_values(&:min)
      per = LOOPS.to_h { |name| [name, (traced[name] - plain[name]).to_f / ITERATIONS] }
      pairs = DIFFERENCE_OF.transform_values { |(with, without)| per[with] - per[without] }
      inside = inside_times(raw)
      own = own_frame_times(subject, plain)
      costs = KINDS.to_h do |kind|
        pair = [pairs[kind], 0].max
        within = ((inside[kind] || 0) - own.fetch(kind, 0)).clamp(0, pair)
        [kind, {inside: (within / 2).round, outside: ((pair - within) / 2).round}]
      end
      means = raw.dig(:tracing, :hook_means)
      hooks = KINDS.to_h { |kind| [kind, means.fetch(kind).transform_values { |mean| mean || 0 }] }
      Result.new(costs: costs.freeze, hooks: hooks.freeze, spreads: spreads(plain_rounds, traced_rounds).freeze)
    end

    # Each kind's loop, and how many frames below the loop's own the
    # frame lies whose time is wanted: the empty method's, the C method's,
    # the block's (under the method that yields it).
    OWN_FRAME_OF = {ruby: [:loop_ruby, 1], block: [:loop_block, 2], c: [:loop_c, 1]}.freeze
    # How long each kind's loop would run unprofiled under the sampler:
    # about 400 samples, and 20 ms with the signals, on the machine
    # frame_share.c was measured on.
    OWN_FRAME_NS = 10_000_000

    # What a sampling profiler counts as the callee's own time per call
    # without tracing, ns by kind: {ruby:, block:, c:}, or {} where the
    # VM reads are not checked (Tracegraph._frame_share reads the frame
    # the VM is in). The recording's time of an empty frame holds this
    # beside tracing's cost, and it is the frame's, not tracing's: taken
    # out with the rest, a one-line method read half its time. The share
    # of samples that fell in that frame, measured once per process (no
    # option changes it), times this calibration's unprofiled loop (plain,
    # ns per loop of ITERATIONS, the fastest round): at the speed the
    # machine ran the loops the empty frame's time is read from.
    def own_frame_times(subject, plain)
      return {} unless Tracegraph._vm_probe_verdict == :checked

      @own_frame_shares ||= OWN_FRAME_OF.to_h do |kind, (loop, below)|
        per_iteration = plain.fetch(loop).to_f / ITERATIONS
        shared = Tracegraph._frame_share(subject, loop_method(loop, 0), (OWN_FRAME_NS / per_iteration).ceil)
        [kind, shared ? own_frame_share(shared, below) : 0.0]
      end.freeze
      @own_frame_shares.to_h do |kind, share|
        [kind, (share * plain.fetch(OWN_FRAME_OF.fetch(kind).first) / ITERATIONS).round(1)]
      end
    end

    # The share of the sampled CPU time in the frame `below` frames under
    # the loop's, or deeper, of all in the loop's frame or deeper; depths
    # are [[bytes below the sampler's frame, samples, CPU ns], ...]
    # (_frame_share: each sample weighs the CPU time since the one
    # before, so that time spent waiting for another thread counts for
    # nothing). 0 if no sample was that deep: a frame never caught is too
    # short to weigh.
    def own_frame_share(depths, below)
      return 0.0 if depths.empty?

      offsets = depths.map(&:first).sort
      deepest_outside = offsets[below - 1]
      return 0.0 unless offsets.size > below && deepest_outside

      within = depths.sum { |offset, _, cpu| offset > deepest_outside ? cpu : 0 }
      total = depths.sum { |_, _, cpu| cpu }
      total.positive? ? within.to_f / total : 0.0
    end

    # The loops each kind's cost is the difference of (see measure).
    DIFFERENCE_OF = {ruby: %i[loop_ruby loop_empty], block: %i[loop_block loop_ruby], c: %i[loop_c loop_empty]}.freeze

    # Result#spreads from each loop's round times (ns), unprofiled and
    # profiled: per kind, in ns per event, to a tenth.
    def spreads(plain_rounds, traced_rounds)
      above_fastest = lambda do |times|
        sorted = times.sort
        (sorted[sorted.size / 2] - sorted.first).to_f / ITERATIONS
      end
      DIFFERENCE_OF.transform_values do |loops|
        per_iteration = loops.sum { |name| above_fastest.(plain_rounds[name]) + above_fastest.(traced_rounds[name]) }
        (per_iteration / 2).round(1)
      end
    end

    # The method a loop runs in one round: loop_empty calls nothing, so it
    # has one copy.
    def loop_method(name, round) = name == :loop_empty ? name : :"#{name}_#{round}"

    # What the recording says each kind's empty frame took per call, from
    # _stop's rows (methods: [name, file, line, c?, calls, total, ...];
    # edges: [caller, callee, calls, total, self]): each round's mean, the
    # least of them kept, as the loops' fastest round is. A preempted round's
    # mean carries the preemption shared over its calls (5 ms over 5,000
    # calls is 1 µs a call); noise only ever adds, so the least is the
    # cleanest. A kind not recorded (blocks: false, c_calls: false) is missing.
    def inside_times(raw)
      methods = raw[:methods]
      index = methods.each_with_index.to_h { |(name, *), i| [name, i] }
      per_call = ->(calls, total) { total.to_f / calls if calls&.positive? }
      edge = lambda do |from, to|
        from_i = index[from]
        to_i = index[to]
        row = raw[:edges].find { |caller, callee, *| caller == from_i && callee == to_i } if from_i && to_i
        row && per_call.(row[2], row[3])
      end
      subject = Subject.name
      KINDS.filter_map do |kind|
        means = Array.new(ROUNDS) do |round|
          case kind
          when :ruby then edge.("#{subject}#loop_ruby_#{round}", "#{subject}#empty")
          when :block
            row = methods[index["block in #{subject}#loop_block_#{round}"] || methods.size]
            row && per_call.(row[4], row[5])
          when :c then edge.("#{subject}#loop_c_#{round}", "Kernel##{Subject::C_METHOD}")
          end
        end.compact
        [kind, means.min] unless means.empty?
      end.to_h
    end

    # Each loop's time in each round, in nanoseconds: {loop_empty: [t0,
    # ..., t8], ...}. The rounds take turns across the loops, so a stretch
    # of noise spoils one round of each rather than every round of one.
    def round_times(subject)
      times = LOOPS.to_h { |name| [name, []] }
      ROUNDS.times do |round|
        LOOPS.each do |name|
          method = loop_method(name, round)
          t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
          subject.public_send(method, ITERATIONS)
          times[name] << Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond) - t0
        end
      end
      times
    end
  end
end

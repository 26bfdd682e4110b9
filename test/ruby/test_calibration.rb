require_relative "test_helper"

# The calibration's reading of its own recording (Calibration.inside_times):
# each kind's empty frame, per round, the least disturbed round kept.
class TestCalibration < TracegraphTest
  C = Tracegraph::Calibration
  S = C::Subject.name

  # _stop's rows for the calibration's loops, with round 3 of each kind
  # preempted: its per-call time carries 5 ms over its calls.
  def raw(per_call)
    methods = [["#{S}#empty", "c.rb", 1, false, 0, 0, 0],
               ["Kernel##{C::Subject::C_METHOD}", nil, nil, true, 0, 0, 0]]
    edges = []
    C::ROUNDS.times do |round|
      extra = round == 3 ? 5_000_000 : 0
      calls = C::ITERATIONS
      ruby = methods.size
      methods << ["#{S}#loop_ruby_#{round}", "c.rb", 2, false, 1, 0, 0]
      edges << [ruby, 0, calls, per_call[:ruby] * calls + extra, 0]
      methods << ["block in #{S}#loop_block_#{round}", "c.rb", 3, false, calls, per_call[:block] * calls + extra, 0]
      c = methods.size
      methods << ["#{S}#loop_c_#{round}", "c.rb", 4, false, 1, 0, 0]
      edges << [c, 1, calls, per_call[:c] * calls + extra - round, 0] # round 8 the least
    end
    {methods: methods, edges: edges}
  end

  def test_the_least_disturbed_round_is_read_per_kind
    inside = C.inside_times(raw(ruby: 40, block: 38, c: 30))
    assert_in_delta 40.0, inside[:ruby], 1e-9
    assert_in_delta 38.0, inside[:block], 1e-9
    assert_in_delta 30.0 - (8.0 / C::ITERATIONS), inside[:c], 1e-9
  end

  def test_a_kind_not_recorded_is_missing
    data = raw(ruby: 40, block: 38, c: 30)
    data[:methods].map! { |row| row[0].start_with?("block in ") ? row[0, 4] + [0, 0, 0] : row } # blocks: false
    data[:edges].reject! { |_, callee, *| callee == 1 } # c_calls: false
    assert_equal %i[ruby], C.inside_times(data).keys
  end

  def test_each_round_runs_its_own_copy_of_each_loop
    assert_equal :loop_empty, C.loop_method(:loop_empty, 4)
    assert_equal :loop_ruby_4, C.loop_method(:loop_ruby, 4)
    subject = C::Subject.new
    C::ROUNDS.times { |round| C::LOOPS.each { |name| assert subject.respond_to?(C.loop_method(name, round)) } }
  end

  # Each kind's own frame time is its share of samples (measured once per
  # process) times this calibration's fastest unprofiled round of its loop,
  # per iteration: at the speed the loops ran.
  def test_an_empty_frames_own_time_is_its_share_of_this_calibrations_loop
    Tracegraph::FrameProbe.verdict!
    skip "the VM reads are not checked here" unless Tracegraph._vm_probe_verdict == :checked
    kept = C.instance_variable_get(:@own_frame_shares)
    C.instance_variable_set(:@own_frame_shares, {ruby: 0.2, block: 0.1, c: 0.05}.freeze)
    plain = {loop_ruby: 40 * C::ITERATIONS, loop_block: 90 * C::ITERATIONS, loop_c: 30 * C::ITERATIONS}
    assert_equal({ruby: 8.0, block: 9.0, c: 1.5}, C.own_frame_times(nil, plain))
    slower = plain.transform_values { |ns| ns * 2 }
    assert_equal({ruby: 16.0, block: 18.0, c: 3.0}, C.own_frame_times(nil, slower))
  ensure
    C.instance_variable_set(:@own_frame_shares, kept)
  end

  # Measured, in a calibration of its own: an empty Ruby method's frame
  # is a part of its loop's time, as a sampler sees it.
  def test_the_calibration_samples_an_empty_frames_share_of_its_loop
    Tracegraph::FrameProbe.verdict!
    skip "the VM reads are not checked here" unless Tracegraph._vm_probe_verdict == :checked
    kept = C.instance_variable_get(:@own_frame_shares)
    C.instance_variable_set(:@own_frame_shares, nil)
    args = Tracegraph.send(:parse_start_options, {}, hide_next_call: false).merge(hide_next_block: false, calibrating: true)
    C.measure { |costs| Tracegraph._start(args.merge(event_costs: costs)) }
    shares = C.instance_variable_get(:@own_frame_shares)
    assert_operator shares[:ruby], :>, 0.02, "an empty method's frame was sampled: #{shares}"
    assert_operator shares[:ruby], :<, 0.6, shares.inspect
  ensure
    C.instance_variable_set(:@own_frame_shares, kept) if kept
  end

  def tick; end

  # About a microsecond of work between two calls, in the caller itself:
  # where the cost outside each call's frame is taken out.
  def spun_between_calls(calls)
    j = 0
    while j < calls
      i = 0
      i += 1 while i < 50
      tick
      j += 1
    end
  end

  # A calibration taken while the machine was slower than it is for the
  # program (the other core busy at that moment) says the hook costs 400 ns
  # an event, and an event 400 ns inside its frame and 400 outside. The
  # hook times itself while recording (one event in 32): its real mean, a
  # few tens of ns, scales both parts down by as much (the machine was that
  # much slower for all of them), not only up. Before, each event kept the
  # calibration's 800 ns, taken out of the work around the calls.
  def test_a_calibration_slower_than_the_program_is_brought_down_by_the_hooks_own_time
    args = Tracegraph.send(:parse_start_options, {c_calls: false}, hide_next_call: false).merge(hide_next_block: false)
    part = {inside: 400, outside: 400, hook_call: 400, hook_return: 400}
    spun_between_calls(100)
    Tracegraph._start(args.merge(event_costs: {ruby: part, block: part, c: part}))
    spun_between_calls(20_000)
    raw = Tracegraph._stop
    events = 2 * raw[:methods].sum { |row| row[4] }
    means = raw.dig(:tracing, :hook_means, :ruby)
    refute_nil means[:call], "the hook sampled its own time"
    per_event = raw.dig(:tracing, :removed).fdiv(events)
    assert_operator per_event, :<, 2 * [means[:call], means[:return]].max + 100,
                    "#{per_event.round} ns taken out per event; the hook's own: #{means}"
  ensure
    Tracegraph._stop if Tracegraph.running?
  end

  # The same work in the body of each, where a block event's cost inside
  # its frame is taken out.
  define_method(:spin_defined) do
    i = 0
    i += 1 while i < 200
  end

  def spin_plain
    i = 0
    i += 1 while i < 200
  end

  def call_times(name, calls)
    j = 0
    while j < calls
      send(name)
      j += 1
    end
  end

  # A define_method method's body fires b_call and b_return, which are no
  # frame of their own (the method's frame is), but cost the program what
  # a block's events do. Given a block event a cost of 500 ns inside its
  # frame, each call of such a method must lose 1,000 ns more than a def
  # method's with the same body: its b_call's and its b_return's. Before,
  # the b_call's cost stayed in, and it lost 500.
  def test_a_define_method_bodys_block_events_cost_what_a_blocks_do
    args = Tracegraph.send(:parse_start_options, {c_calls: false}, hide_next_call: false).merge(hide_next_block: false)
    none = {inside: 0, outside: 0, hook_call: 0, hook_return: 0}
    costs = {ruby: none, block: none.merge(inside: 500), c: none}
    calls = 2_000
    removed = %i[spin_defined spin_plain].to_h do |name|
      call_times(name, 10)
      Tracegraph._start(args.merge(event_costs: costs))
      call_times(name, calls)
      raw = Tracegraph._stop
      row = raw[:methods].find { |m| m[0] == "#{self.class}##{name}" }
      assert_equal calls, row[4], "#{name} recorded as one frame a call"
      refute(raw[:methods].any? { |m| m[0].start_with?("block ") }, "a define_method body is no block")
      # With a hook base of 0, the hook's whole sampled time is taken out
      # of each event too, outside the frame; that part is the machine's
      # noise, not the rule under test, so it is taken back per call.
      sampled = raw.dig(:tracing, :hook_means).values.sum { |m| m.values.compact.sum }
      [name, raw.dig(:tracing, :removed) - calls * sampled]
    end
    per_call = (removed[:spin_defined] - removed[:spin_plain]).fdiv(calls)
    assert_in_delta 1_000, per_call, 200, "ns more taken out per define_method call, less the hook's sampled time: #{removed}"
  ensure
    Tracegraph._stop if Tracegraph.running?
  end

  # Round times in ns, ITERATIONS each; the median of 9 is the 5th.
  def rounds(fastest, median_above)
    [fastest] * 4 + [fastest + median_above] * 5
  end

  def test_each_kinds_spread_is_its_loops_median_above_their_fastest
    n = C::ITERATIONS
    plain = {loop_empty: rounds(100, 0), loop_ruby: rounds(200, 2 * n), loop_block: rounds(300, 0), loop_c: rounds(150, 0)}
    traced = {loop_empty: rounds(100, 4 * n), loop_ruby: rounds(400, 0), loop_block: rounds(600, 6 * n),
              loop_c: rounds(300, 0)}
    # ruby: loop_ruby (2 ns an iteration unprofiled) and loop_empty (4
    # profiled), shared over a call and its return: 3 ns an event.
    assert_equal({ruby: 3.0, block: 4.0, c: 2.0}, C.spreads(plain, traced))
  end

  # The spread per event, plus half of how far the hook's own time in the
  # recording lay from the calibration's, at a call and at a return; over
  # every event of the kind; the collector's pseudo-methods have none.
  def test_a_recordings_uncertainty_is_its_events_times_their_spread
    calibration = C::Result.new(costs: {ruby: {inside: 10, outside: 10}, block: {inside: 9, outside: 9}, c: {inside: 5, outside: 5}},
                                hooks: {ruby: {call: 20, return: 20}, block: {call: 18, return: 18}, c: {call: 15, return: 15}},
                                spreads: {ruby: 1.5, block: 2.0, c: 0.5})
    tracing = {removed: 123, hook_means: {ruby: {call: 24, return: 20}, block: {call: nil, return: nil},
                                          c: {call: 13, return: 11}}}
    rows = [["A#run", "a.rb", 1, false, 1000, 0, 0], ["block in A#run", "a.rb", 2, false, 100, 0, 0],
            ["Integer#times", nil, nil, true, 10, 0, 0], ["(garbage collection)", nil, nil, false, 7, 0, 0]]
    cost = Tracegraph::Profile::TracingCost.recorded(tracing, rows, calibration)
    # ruby 1.5 + |24-20|/2 + 0 = 3.5; block 2.0 (not sampled); c 0.5 + 1 + 2 = 3.5
    assert_equal({ruby: 3.5, block: 2.0, c: 3.5}, cost.event_spread)
    assert_equal 2 * (1000 * 3.5 + 100 * 2.0 + 10 * 3.5), cost.uncertainty
    assert_equal 123, cost.removed
  end

  # Another thread's calls while `start` calibrates. Puma's other threads
  # run then, when a request starts a profile: before, their calls went
  # into the calibration's recording, its time into the loops it times,
  # and Tracegraph.running? said true to them before the profile began.
  class Worker
    def tick = nil
  end

  # What the other thread saw: running?, then whether it could pause and
  # stop the recording; and how many of its calls were recorded.
  def recorded_while_another_thread_runs(calibrating:)
    args = Tracegraph.send(:parse_start_options, {}, hide_next_call: false)
    worker = Worker.new
    seen = []
    profile = nil
    go = Queue.new
    thread = Thread.new do
      go.pop
      3.times { worker.tick }
      seen << Tracegraph.running?
      seen << [-> { Tracegraph.pause }, -> { profile = Tracegraph.stop }].map do |action|
        action.()
        :done
      rescue Tracegraph::Error => e
        e.message[/\Anot started/]
      end
    end
    Tracegraph._start(args.merge(hide_next_block: false, event_costs: :sample, calibrating: calibrating))
    seen.unshift(Tracegraph.running?)
    go << true
    thread.join # the other thread runs while this one waits
    name = "#{Worker.name}#tick"
    ticks = profile ? profile[name]&.calls : Tracegraph._stop[:methods].find { |row| row[0] == name }&.at(4)
    [ticks, seen]
  ensure
    begin
      Tracegraph._stop # running? is false while calibrating
    rescue Tracegraph::Error
      nil # stopped already
    end
  end

  def test_the_calibrations_recording_is_its_own_threads_and_not_running_to_ruby
    ticks, seen = recorded_while_another_thread_runs(calibrating: true)
    assert_nil ticks, "the other thread's calls are not in the calibration's recording"
    assert_equal [false, false, ["not started", "not started"]], seen,
                 "running? in the calibrating thread, then in the other, which can neither pause nor stop it"
    # The same recording as a profile's, for contrast: the test can fail.
    # (The other thread pauses it, and stops it: the profile comes back.)
    ticks, seen = recorded_while_another_thread_runs(calibrating: false)
    assert_equal [true, true, %i[done done]], seen
    assert_equal 3, ticks
  end
end

require_relative "../test_helper"

class TestProfileMerge < TracegraphTest
  def shared(n) = n + 1
  def only_first = shared(0)
  def only_second = shared(0)

  def two_profiles
    first = Tracegraph.profile { 3.times { |i| shared(i) }; only_first }
    # Its two blocks on lines of their own: on one line each would be named
    # by its column (naming.c), and the names would not meet first's.
    second = Tracegraph.profile do
      2.times { |i| shared(i) }
      2.times { only_second }
    end
    [first, second]
  end

  def test_counts_and_times_add_up_exactly
    first, second = two_profiles
    merged = Tracegraph::Profile.merge([first, second])
    shared = method_named(merged, "TestProfileMerge#shared")
    assert_equal 3 + 1 + 2 + 2, shared.calls
    %i[total_time self_time].each do |field|
      assert_equal first["TestProfileMerge#shared"].send(field) + second["TestProfileMerge#shared"].send(field),
                   shared.send(field)
    end
    assert_equal 1, method_named(merged, "TestProfileMerge#only_first").calls
    assert_equal 2, method_named(merged, "TestProfileMerge#only_second").calls
    # The blocks that call shared, one per profile, share a name and merge
    # like methods; so does second's other block, the one calling only_second.
    block = "block (2 levels) in TestProfileMerge#two_profiles"
    times_edge = edge_named(merged, block, "TestProfileMerge#shared")
    assert_equal 5, times_edge.calls
    assert_equal first.edge(block, "TestProfileMerge#shared").total_time +
                 second.edge(block, "TestProfileMerge#shared").total_time, times_edge.total_time
    assert_equal 7, edge_named(merged, "Integer#times", block).calls
    assert_equal 2, edge_named(merged, block, "TestProfileMerge#only_second").calls
    assert_equal 1, edge_named(merged, "TestProfileMerge#only_first", "TestProfileMerge#shared").calls
    assert_equal 2, edge_named(merged, "TestProfileMerge#only_second", "TestProfileMerge#shared").calls
    assert_equal first.total_calls + second.total_calls, merged.total_calls
    assert_equal first.total_time + second.total_time, merged.total_time
    assert_equal [["main", first.total_time + second.total_time]], merged.threads.map { |t| [t.name, t.total_time] }
    assert_equal [1], merged.threads.map(&:id)
    # Every method and edge exactly once.
    assert_equal merged.methods.map(&:name).uniq.size, merged.methods.size
    assert_equal merged.edges.map { |e| [e.caller.name, e.callee.name] }.uniq.size, merged.edges.size
    assert_consistent merged
    assert merged.complete?
    assert_nil merged.call_tree
  end

  def test_merged_profiles_render_and_round_trip_through_json
    merged = Tracegraph::Profile.merge(two_profiles)
    assert_includes merged.to_dot, "TestProfileMerge#shared"
    again = Tracegraph::Profile.parse_json(merged.to_json)
    assert_equal 8, again["TestProfileMerge#shared"].calls
    loaded = Tracegraph::Profile.merge([again, again])
    assert_equal 16, loaded["TestProfileMerge#shared"].calls
    assert_equal File.expand_path(__FILE__), File.expand_path(loaded["TestProfileMerge#shared"].file)
  end

  def test_threads_are_summed_by_name
    named = lambda do |name|
      Tracegraph.profile { Thread.new { Thread.current.name = name; shared(1) }.join }
    end
    profiles = [named.call("worker"), named.call("worker"), named.call("other")]
    merged = Tracegraph::Profile.merge(profiles)
    # (minitest's own threads may show up too, unnamed: summed all the same)
    expected = profiles.flat_map(&:threads).group_by(&:name).transform_values { |ts| ts.sum(&:total_time) }
    assert_equal expected, merged.threads.to_h { |t| [t.name, t.total_time] }
    assert_equal 2, profiles.sum { |p| p.threads.count { |t| t.name == "worker" } }
    assert_equal 1, merged.threads.count { |t| t.name == "worker" }
    assert_equal (1..merged.threads.size).to_a, merged.threads.map(&:id)
    assert_equal 3, merged["TestProfileMerge#shared"].calls
    assert_consistent merged
  end

  def test_merging_one_profile_gives_the_same_numbers
    first, = two_profiles
    merged = Tracegraph::Profile.merge([first])
    assert_equal first.methods.map { |m| [m.name, m.calls, m.total_time, m.self_time] },
                 merged.methods.map { |m| [m.name, m.calls, m.total_time, m.self_time] }
    assert_equal first.edges.map { |e| [e.caller.name, e.callee.name, e.calls, e.total_time] },
                 merged.edges.map { |e| [e.caller.name, e.callee.name, e.calls, e.total_time] }
  end

  def test_an_incomplete_profile_makes_the_merge_incomplete
    first, second = two_profiles
    incomplete = Tracegraph::Profile.new(clock: second.clock, threads: second.threads, methods: second.methods,
                                         edges: second.edges, complete: false, tracing_cost: second.tracing_cost)
    refute Tracegraph::Profile.merge([first, incomplete]).complete?
  end

  def test_bad_input_says_what_is_wrong
    error = assert_raises(ArgumentError) { Tracegraph::Profile.merge([]) }
    assert_equal "Profile.merge needs at least one profile", error.message
    error = assert_raises(ArgumentError) { Tracegraph::Profile.merge([Tracegraph.profile { 1 }, "x"]) }
    assert_equal "Profile.merge takes Tracegraph::Profile objects, not String", error.message
    wall = Tracegraph.profile { shared(1) }
    cpu = Tracegraph.profile(clock: :cpu) { shared(1) }
    error = assert_raises(ArgumentError) { Tracegraph::Profile.merge([wall, cpu]) }
    assert_equal "cannot merge profiles of different clocks (wall, cpu)", error.message
  end
end

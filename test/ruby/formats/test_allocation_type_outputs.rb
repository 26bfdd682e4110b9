require_relative "../test_helper"
require "stringio"

# Allocations by type through everything that reads or combines a
# profile: JSON, the flat table, the graph's tooltips, merge, median, and
# the graph's copies with hubs split and chains folded. The profiles here
# are written by hand, so every number is known.
class TestAllocationTypeOutputs < Minitest::Test
  # main -> work (2 calls) -> String#*; each method's own objects by type
  # as given (nil: the method has no "allocations_by_type").
  def document(work: {"Array" => 2, "String" => 8}, types: true)
    method = lambda do |name, calls, total, self_time, allocs, by_type|
      {"name" => name, "file" => nil, "line" => nil, "c_method" => false, "calls" => calls,
       "total_time" => total, "self_time" => self_time, "allocations" => allocs[0], "self_allocations" => allocs[1]}
        .merge(types && by_type ? {"allocations_by_type" => by_type} : {})
    end
    work_self = work.values.sum
    {"version" => 2, "clock" => "wall", "unit" => "ns", "total_time" => 100, "allocations" => true,
     "threads" => [{"id" => 1, "name" => "main", "total_time" => 100}],
     "methods" => [method.call("Object#main", 1, 100, 40, [work_self + 35, 5], {"Hash" => 5}),
                   method.call("Object#work", 2, 60, 30, [work_self + 30, work_self], work),
                   method.call("String#*", 4, 30, 30, [30, 30], {"String" => 30})],
     "edges" => [{"caller" => 0, "callee" => 1, "calls" => 2, "total_time" => 60, "self_time" => 30,
                  "allocations" => work_self + 30, "self_allocations" => work_self},
                 {"caller" => 1, "callee" => 2, "calls" => 4, "total_time" => 30, "self_time" => 30,
                  "allocations" => 30, "self_allocations" => 30}]}
  end

  def parse(data) = Tracegraph::Profile.parse_json(JSON.generate(data))

  def test_json_writes_each_method_s_types_and_reads_them_back
    profile = parse(document)
    assert_equal({"String" => 8, "Array" => 2}, profile["Object#work"].allocations_by_type)
    assert_equal [["String", 38], ["Hash", 5], ["Array", 2]], profile.allocations_by_type.to_a
    assert_equal profile.total_allocations, profile.allocations_by_type.values.sum
    data = profile.to_h
    assert_equal({"String" => 8, "Array" => 2}, data["methods"][1]["allocations_by_type"])
    assert data["edges"].none? { |e| e.key?("allocations_by_type") }, "edges keep no types"
    assert_equal data, parse(data).to_h
    assert_equal 2, data["version"]
  end

  def test_a_recorded_profile_round_trips
    work = -> { (1..50).each { ["a", "b"] } }
    work.call
    recorded = Tracegraph.profile(allocations: true, &work)
    loaded = Tracegraph::Profile.parse_json(recorded.to_json)
    assert_equal recorded.methods.map(&:allocations_by_type), loaded.methods.map(&:allocations_by_type)
    assert_equal recorded.allocations_by_type, loaded.allocations_by_type
    assert_equal({"String" => 100, "Array" => 50}, loaded.allocations_by_type)
  end

  def test_files_without_types_load_with_none
    profile = parse(document(types: false))
    assert_predicate profile, :allocations?
    assert_equal 45, profile.total_allocations
    assert_nil profile["Object#work"].allocations_by_type
    assert_nil profile.allocations_by_type
    assert profile.to_h["methods"].none? { |m| m.key?("allocations_by_type") }

    # One method without them: the methods that have them keep them, the
    # profile's whole is unknown.
    data = document
    data["methods"][0].delete("allocations_by_type")
    profile = parse(data)
    assert_equal({"String" => 30}, profile["String#*"].allocations_by_type)
    assert_nil profile.allocations_by_type
  end

  def test_types_a_newer_tracegraph_might_count_are_kept_and_zeros_dropped
    profile = parse(document(work: {"Array" => 2, "String" => 8, "Fiber" => 1, "Hash" => 0}))
    assert_equal({"String" => 8, "Array" => 2, "Fiber" => 1}, profile["Object#work"].allocations_by_type)
  end

  def test_malformed_types_are_named
    {
      ->(d) { d["methods"][1]["allocations_by_type"] = [1] } =>
        /methods\[1\]\.allocations_by_type must be an object, not an array/,
      ->(d) { d["methods"][1]["allocations_by_type"]["String"] = -1 } =>
        /methods\[1\]\.allocations_by_type\.String must be a non-negative integer, not -1/,
      ->(d) { d["methods"][2]["allocations_by_type"]["String"] = "30" } =>
        /methods\[2\]\.allocations_by_type\.String must be a non-negative integer/,
      lambda do |d|
        d.delete("allocations")
        (d["methods"] + d["edges"]).each { |s| s.delete("allocations") && s.delete("self_allocations") }
      end => /methods\[0\]\.allocations_by_type needs "allocations": true/
    }.each do |spoil, message|
      data = document
      spoil.call(data)
      error = assert_raises(Tracegraph::FormatError) { parse(data) }
      assert_match message, error.message
    end
  end

  def test_the_flat_table_ends_with_the_types
    io = StringIO.new
    parse(document).print_flat(io)
    section = io.string.lines.drop_while { |l| !l.start_with?("Allocations by type:") }
    assert_equal ["Allocations by type:\n", "          38   84.4%  String\n", "           5   11.1%  Hash\n",
                  "           2    4.4%  Array\n"], section

    io = StringIO.new
    parse(document(types: false)).print_flat(io)
    refute_match(/by type/, io.string)
  end

  def test_the_graph_s_tooltips_name_the_biggest_types
    dot = parse(document).to_dot(node_fraction: 0, edge_fraction: 0, fold_chains: false)
    work = dot.lines.find { |l| l.include?('label="Object#work') }
    assert_includes work, "\\nby type: String 8 \u00b7 Array 2\""
    refute_includes work[/label="[^"]*"/], "by type"

    many = {"String" => 5000, "Array" => 400, "Hash" => 30, "Proc" => 20, "Object" => 7, "Struct" => 3}
    dot = parse(document(work: many)).to_dot(node_fraction: 0, edge_fraction: 0, fold_chains: false)
    assert_includes dot, "by type: String 5,000 \u00b7 Array 400 \u00b7 Hash 30 \u00b7 Proc 20 " \
                         "\u00b7 10 in 2 more types\""
    refute_includes parse(document(types: false)).to_dot, "by type"
  end

  def test_merge_adds_types_up_when_every_profile_has_them
    sum = Tracegraph::Profile.merge([parse(document), parse(document(work: {"Array" => 1, "Proc" => 4}))])
    assert_equal({"String" => 8, "Proc" => 4, "Array" => 3}, sum["Object#work"].allocations_by_type)
    assert_equal({"String" => 60}, sum["String#*"].allocations_by_type)
    assert_equal sum.total_allocations, sum.allocations_by_type.values.sum
    sum["Object#work"].then { |m| assert_equal m.self_allocations, m.allocations_by_type.values.sum }

    mixed = Tracegraph::Profile.merge([parse(document), parse(document(types: false))])
    assert_predicate mixed, :allocations?
    assert_nil mixed["Object#work"].allocations_by_type
    assert_nil mixed.allocations_by_type
  end

  def test_median_takes_each_type_s_median_and_writes_it
    runs = [{"String" => 8, "Array" => 2}, {"String" => 20}, {"String" => 10, "Array" => 4, "Proc" => 1}]
    median = Tracegraph::Profile.median(runs.map { |work| parse(document(work: work)) })
    assert_equal({"String" => 10, "Array" => 2}, median["Object#work"].allocations_by_type)
    # Each type's own median: here they add up to 12, the self
    # allocations' median is 15.
    assert_equal 15, median["Object#work"].self_allocations
    assert_equal median["Object#work"].allocations_by_type, parse(median.to_h)["Object#work"].allocations_by_type
    refute_nil median.runs

    one_without = runs.map { |work| parse(document(work: work)) } + [parse(document(types: false))]
    assert_nil Tracegraph::Profile.median(one_without)["Object#work"].allocations_by_type
  end

  # a and b each call Array#each with a block of their own: a hub.
  def hub_document(each_types:, each_self:)
    names = ["Object#main", "Object#a", "Object#b", "Array#each", "block in Object#a", "block in Object#b"]
    methods = names.each_with_index.map do |name, i|
      self_allocs = i == 3 ? each_self.sum : 1
      {"name" => name, "file" => nil, "line" => nil, "c_method" => i == 3, "calls" => i == 3 ? 2 : 1,
       "total_time" => 10, "self_time" => i == 3 ? 4 : 2, "allocations" => 10, "self_allocations" => self_allocs,
       "allocations_by_type" => i == 3 ? each_types : {"Object" => 1}}
    end
    edge = lambda do |caller, callee, self_time, self_allocs|
      {"caller" => caller, "callee" => callee, "calls" => 1, "total_time" => 10, "self_time" => self_time,
       "allocations" => 10, "self_allocations" => self_allocs}
    end
    {"version" => 2, "clock" => "wall", "unit" => "ns", "total_time" => 20, "allocations" => true,
     "threads" => [{"id" => 1, "name" => "main", "total_time" => 20}], "methods" => methods,
     "edges" => [edge.call(0, 1, 2, 1), edge.call(0, 2, 2, 1), edge.call(1, 3, 2, each_self[0]),
                 edge.call(2, 3, 2, each_self[1]), edge.call(3, 4, 2, 1), edge.call(3, 5, 2, 1)]}
  end

  def split_parts(data)
    split, context, = parse(data).split_hubs
    split.methods.select { |m| m.name == "Array#each" }.to_h { |m| [context.fetch(m), m.allocations_by_type] }
  end

  def test_a_split_hub_s_parts_keep_types_where_they_follow
    # It allocates nothing itself: neither part does.
    assert_equal({"from Object#a" => {}, "from Object#b" => {}},
                 split_parts(hub_document(each_types: {}, each_self: [0, 0])))
    # All of one type: each part's are that type.
    assert_equal({"from Object#a" => {"Array" => 3}, "from Object#b" => {"Array" => 1}},
                 split_parts(hub_document(each_types: {"Array" => 4}, each_self: [3, 1])))
    # Two types: which part made which is not recorded, so neither says.
    parts = split_parts(hub_document(each_types: {"Array" => 2, "String" => 2}, each_self: [3, 1]))
    assert_equal({"from Object#a" => nil, "from Object#b" => nil}, parts)
  end

  def test_the_graph_s_copies_keep_the_boxes_types
    data = hub_document(each_types: {"Array" => 2, "String" => 2}, each_self: [3, 1])
    profile = parse(data)
    split, = profile.split_hubs
    assert_nil split.allocations_by_type, "a part without types leaves the whole unknown"
    assert_equal({"Object" => 1}, split["Object#a"].allocations_by_type)
    dot = profile.to_dot(node_fraction: 0, edge_fraction: 0)
    assert_includes dot, "by type: Object 1"
    each_boxes = dot.lines.select { |l| l.include?('label="Array#each') }
    assert_equal 2, each_boxes.size
    each_boxes.each { |line| refute_includes line, "by type" }
  end

  def test_a_folded_chain_s_ends_keep_their_types
    names = ["Object#main", "Object#a", "Object#b", "Object#work"]
    methods = names.each_with_index.map do |name, i|
      ends = i.zero? || i == 3
      {"name" => name, "file" => nil, "line" => nil, "c_method" => false, "calls" => 1, "total_time" => 100 - i,
       "self_time" => ends ? 50 : 0, "allocations" => 4, "self_allocations" => ends ? 2 : 0,
       "allocations_by_type" => ends ? {"String" => 2} : {}}
    end
    edges = [[0, 1], [1, 2], [2, 3]].map do |caller, callee|
      {"caller" => caller, "callee" => callee, "calls" => 1, "total_time" => 50, "self_time" => callee == 3 ? 50 : 0,
       "allocations" => 2, "self_allocations" => callee == 3 ? 2 : 0}
    end
    profile = parse({"version" => 2, "clock" => "wall", "unit" => "ns", "total_time" => 100, "allocations" => true,
                     "threads" => [{"id" => 1, "name" => "main", "total_time" => 100}],
                     "methods" => methods, "edges" => edges})
    folded, = profile.fold_chains
    assert_equal ["Object#main", "Object#work"], folded.methods.map(&:name)
    assert_equal({"String" => 2}, folded["Object#work"].allocations_by_type)
    assert_equal({"String" => 4}, folded.allocations_by_type)
  end
end

require_relative "../test_helper"
require "json"
require "tmpdir"

# SQL queries as boxes under the methods that ran them (sql_queries.rb),
# and the shadow stack they are placed by (Tracegraph._stack_methods).
class TestSqlQueries < TracegraphTest
  # Stands for an application: a controller that loads a list, and a
  # partial that counts each row's children (an N+1). Each "query" notes
  # the profiler's stack, as the Railtie's subscriber does.
  class App
    attr_reader :stacks

    def initialize = @stacks = []
    def index(rows) = list.first(rows).each { |id| row(id) }
    def list = run_query("SELECT * FROM posts") && (1..100).to_a
    def row(id) = run_query("SELECT COUNT(*) FROM comments WHERE post_id = #{id}")
    def run_query(sql) = @stacks << [Tracegraph._stack_methods, sql]
  end

  def record(rows)
    app = App.new
    Tracegraph.start(c_calls: false)
    app.index(rows)
    [Tracegraph.stop, app.stacks]
  end

  def test_the_stack_names_the_frames_that_ran_the_code
    profile, stacks = record(3)
    names = stacks.map { |stack, _| stack.map { |i| profile.recorded_methods[i].name } }
    app = "TestSqlQueries::App"
    each = ruby_array_each? ? ["Array#each"] : []
    assert_equal [["#{app}#index", "#{app}#list", "#{app}#run_query"]] +
                 Array.new(3) { ["#{app}#index", *each, "block in #{app}#index", "#{app}#row", "#{app}#run_query"] }, names
    assert_equal [], Tracegraph._stack_methods, "not recording: no stack"
  end

  def queries(profile, stacks, times)
    stacks.zip(times).map do |(stack, sql), time|
      Tracegraph::Query.new(caller: profile.recorded_methods[stack[-2]], sql: sql, time: time)
    end
  end

  def test_each_normalized_query_is_a_box_under_its_callers_with_exact_counts_and_times
    profile, stacks = record(7)
    with = profile.with_queries(queries(profile, stacks, [5_000] + Array.new(7) { |i| 1_000 + i }))
    count = with["(sql) SELECT COUNT(*) FROM comments WHERE post_id = ?"]
    posts = with["(sql) SELECT * FROM posts"]
    assert_equal [7, 7_021, 0], [count.calls, count.total_time, count.self_time]
    assert_equal [1, 5_000, 0], [posts.calls, posts.total_time, posts.self_time]
    edge = with.edge("TestSqlQueries::App#row", count.name)
    assert_equal [7, 7_021, 0], [edge.calls, edge.total_time, edge.self_time]
    assert_equal 1, with.edge("TestSqlQueries::App#list", posts.name).calls
    assert_equal profile.methods.size + 2, with.methods.size
    assert_equal profile.total_time, with.total_time
    assert_consistent(with)
    assert_same profile, profile.with_queries([])
  end

  # The JSON keeps the boxes; the DOT draws them with their counts,
  # and Graphviz reads it (where it is installed).
  def test_the_boxes_go_through_the_json_and_the_dot
    profile, stacks = record(4)
    with = profile.with_queries(queries(profile, stacks, Array.new(5, 500)))
    Dir.mktmpdir do |dir|
      path = File.join(dir, "p.json")
      with.write_json(path)
      loaded = Tracegraph::Profile.load_json(path)
      assert_equal 4, loaded.edge("TestSqlQueries::App#row", "(sql) SELECT COUNT(*) FROM comments WHERE post_id = ?").calls
    end
    dot = with.to_dot(node_fraction: 0, edge_fraction: 0)
    assert_includes dot, "(sql) SELECT COUNT(*) FROM comments WHERE post_id = ?"
    assert_match(/post_id = \?\\nself 0 ns \(0\.00%\)\\ntotal 2\.00 µs \([\d.]+%\)\\n4 calls"/, dot)
    skip "Graphviz's dot is not installed" unless ENV["PATH"].split(":").any? { |d| File.executable?("#{d}/dot") }
    svg = IO.popen(%w[dot -Tsvg], "r+") do |io|
      io.write(dot)
      io.close_write
      io.read
    end
    assert_includes svg, "SELECT COUNT(*) FROM comments WHERE post_id = ?"
  end

  def test_a_caller_from_another_profile_is_refused
    profile, stacks = record(1)
    other, = record(1)
    error = assert_raises(ArgumentError) do
      profile.with_queries([Tracegraph::Query.new(caller: other.methods.first, sql: stacks[0][1], time: 1)])
    end
    assert_match(/one of the profile's methods/, error.message)
  end

  NORMALIZED = {
    %(SELECT COUNT(*) FROM "comments" WHERE "comments"."post_id" = 42) =>
      %(SELECT COUNT(*) FROM "comments" WHERE "comments"."post_id" = ?),
    %(SELECT "posts".* FROM "posts" WHERE "posts"."title" = 'it''s' LIMIT 1) =>
      %(SELECT "posts".* FROM "posts" WHERE "posts"."title" = ? LIMIT ?),
    %(SELECT * FROM t WHERE id IN (1, 2, 3,4) AND x IN ('a','b')) => %(SELECT * FROM t WHERE id IN (?) AND x IN (?)),
    %(SELECT * FROM t WHERE a = $1 AND b = $2 AND c = :name) => %(SELECT * FROM t WHERE a = ? AND b = ? AND c = ?),
    %(INSERT INTO "t" ("a", "b") VALUES (1, 'x'), (2, 'y'), (3, 'z')) => %(INSERT INTO "t" ("a", "b") VALUES (?, ?)),
    %(SELECT  price * 1.5e3,\n  "col2", t2.c3 FROM t2 WHERE x = -7) =>
      %(SELECT price * ?, "col2", t2.c3 FROM t2 WHERE x = -?),
    %(SELECT "weird ""42"" name", `id9` FROM [tbl 1]) => %(SELECT "weird ""42"" name", `id9` FROM [tbl 1]),
    %(SELECT 'a\\'b' FROM t) => %(SELECT ? FROM t)
  }.freeze

  def test_literals_are_made_question_marks_and_names_kept
    NORMALIZED.each { |sql, expected| assert_equal expected, Tracegraph::SqlText.normalize(sql), sql }
  end

  def test_a_long_query_is_cut_and_bad_bytes_are_replaced
    text = Tracegraph::SqlText.normalize("SELECT #{(['a'] * 400).join(', ')} FROM t")
    assert_equal 500, text.length
    assert text.end_with?("…")
    assert_equal "SELECT \uFFFD FROM t", Tracegraph::SqlText.normalize("SELECT \xFF FROM t".b)
  end
end

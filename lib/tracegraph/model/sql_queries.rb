# SQL in the graph: each database query as a box under the method that ran
# it, named by its normalized text, so that an N+1 reads as ×300 of one
# query under the partial that made it:
#
#   app/views/posts/_post.html.erb
#     └─ ×300 → (sql) SELECT COUNT(*) FROM "comments" WHERE "comments"."post_id" = ?
#
# A query box is a pseudo-method, as the garbage collector's are: its name,
# "(sql) ...", has neither form a real method has ("Owner#name",
# "Owner.name"). Its calls are how many times that normalized query ran,
# its total time the queries' durations summed (as the database adapter
# measured them: wall-clock time, whatever the profile's clock), and its
# self time 0: that time is already inside the adapter's frames under
# the same caller, so self times still add up to the profile's total.
# One edge goes from each method that ran it, with that method's share.
# The call tree (the flame graph) is kept as recorded, without the queries.
#
# Who records the queries is not the model's business (the Railtie's
# lib/tracegraph/rails_sql.rb does, from sql.active_record); this file
# only normalizes their text and adds them to a profile.
module Tracegraph
  # One query as recorded: caller, the MethodStats of the profile that ran
  # it; sql, its text as run (normalized by with_queries); time, how long
  # it took (nanoseconds).
  Query = Struct.new(:caller, :sql, :time, keyword_init: true)

  # The normalized text of SQL: the literals made "?" (strings, numbers,
  # numbered binds such as $1), a list of them in IN (...) or a
  # multi-row VALUES made one, white space made one space. Quoted names
  # ("posts"."id", `id`) are kept as they are.
  module SqlText
    PREFIX = "(sql) "
    # Longer texts are cut here, with "…": a name, not a dump.
    MAX_CHARS = 500

    TOKEN = /
      (?<name>"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\])         # quoted names: kept
      |(?<string>[NnXxEeBb]?'(?:[^'\\]|''|\\.)*')         # strings, hex and escape strings
      |(?<bind>\$\d+|:\w+)                                 # numbered or named binds
      |(?<number>(?<![\w.$])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.]))
      |(?<space>\s+)
    /x
    LIST = /\bIN \((?: ?\?,)+ ?\? ?\)/i # IN (?, ?, ?)
    ROWS = /(\((?:\?, )*\?\))(?:, \1)+/ # VALUES (?, ?), (?, ?): one row

    def self.normalize(sql)
      text = Profile.clean_name(sql.to_s).gsub(TOKEN) do
        match = Regexp.last_match
        if match[:name] then match[:name]
        elsif match[:space] then " "
        else "?"
        end
      end
      text = text.strip.gsub(LIST, "IN (?)").gsub(ROWS, '\1')
      text.length > MAX_CHARS ? "#{text[0, MAX_CHARS - 1]}…" : text
    end

    # The box's name for a normalized text.
    def self.box_name(text) = "#{PREFIX}#{text}"

    # Whether a method's name is a query box's.
    def self.box?(name) = name.start_with?(PREFIX)
  end

  class Profile
    # This profile with each query a box under the method that ran it
    # (see the top of this file). queries: Query structs whose caller is
    # one of this profile's methods. Their text is normalized here. self
    # when there are none.
    def with_queries(queries)
      return self if queries.empty?

      boxes = {}   # normalized text => [calls, total]
      shares = {}  # [caller, normalized text] => [calls, total]
      queries.each do |query|
        raise ArgumentError, "a query's caller must be one of the profile's methods" unless index_of(query.caller)

        text = SqlText.normalize(query.sql)
        time = Integer(query.time)
        [(boxes[text] ||= [0, 0]), (shares[[query.caller, text]] ||= [0, 0])].each do |sums|
          sums[0] += 1
          sums[1] += time
        end
      end
      allocations = allocations? ? 0 : nil
      made = boxes.to_h do |text, (calls, total)|
        [text, MethodStats.new(name: SqlText.box_name(text), file: nil, line: nil, calls: calls, total_time: total,
                               self_time: 0, c_method: false, allocations: allocations,
                               self_allocations: allocations, allocations_by_type: allocations && {})]
      end
      arrows = shares.map do |(caller, text), (calls, total)|
        EdgeStats.new(caller: caller, callee: made[text], calls: calls, total_time: total, self_time: 0,
                      allocations: allocations, self_allocations: allocations)
      end
      derived(methods: methods + made.values, edges: edges + arrows, call_tree: call_tree)
    rescue KeyError
      raise ArgumentError, "a query's caller must be one of the profile's methods"
    end
  end
end

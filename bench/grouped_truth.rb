# Grouped views on real programs (issue 36): each program is recorded
# with the call tree, as `tracegraph --group-by` records it (on the CPU
# clock, so that a busy machine's preemptions do not pick the biggest
# box), then grouped
# by class, file and gem. For each view it checks what the issue asks of
# every grouped graph and prints it as bench/GROUPED.md's table:
#   - the biggest arrow, in percent of the run (at most 100%), and how
#     many arrows hold more than their callee's total (none);
#   - the "(C) methods" box's share of the self time (at most 10%): a C
#     method's time belongs to the group of the code that called it;
#   - the biggest box's share, which the grouping advice weighs;
#   - how long group_by took.
# Programs: jekyll building a site (bench/gate_jekyll_workload.rb),
# asciidoctor converting a generated document, an rspec suite of 300
# examples (bench/grouped/rspec_suite_spec.rb) and a Rails request (GET
# /posts of test/fixtures/rails_app, bench/grouped/rails_request.rb).
# A program that is not installed is skipped, and the table says so.
#   ruby -Ilib bench/grouped_truth.rb        (rake bench:grouped)
require "fileutils"
require "open3"
require "rbconfig"
require "tmpdir"
$LOAD_PATH.unshift(File.expand_path("../lib", __dir__))
require "tracegraph"

ROOT = File.expand_path("..", __dir__)
EXE = File.join(ROOT, "exe/tracegraph")
LIB = File.join(ROOT, "lib")
OUT = ENV.fetch("GROUPED_OUT", File.join(__dir__, "GROUPED.md"))
GROUPINGS = %i[class file gem].freeze
C_BOX = "(C) methods"

def tracegraph(args, chdir: ROOT)
  _, err, status = Open3.capture3(RbConfig.ruby, "-I", LIB, EXE, *args, chdir: chdir)
  status.success? ? nil : err
end

def installed?(code) = system(RbConfig.ruby, "-e", code, out: File::NULL, err: File::NULL)

def asciidoctor_document(dir)
  path = File.join(dir, "book.adoc")
  sections = (1..60).map do |i|
    "== Chapter #{i}\n\nSome *bold* and _italic_ text with a link:https://example.com[link #{i}] and `code`.\n\n" \
      "* item one\n* item two with footnote:[note #{i}]\n\n[source,ruby]\n----\ndef x#{i} = #{i} + 1\n----\n\n" \
      "|===\n|a |b |c\n|#{i} |#{i * 2} |#{i * 3}\n|===\n\nNOTE: an admonition in chapter #{i}.\n"
  end
  File.write(path, "= A Book\n:toc:\n\n#{sections.join("\n")}")
  path
end

# name => lambda(dir, json) -> nil or why it was skipped or failed
PROGRAMS = {
  "jekyll build" => lambda { |_, json|
    next "jekyll is not installed (apt-get install jekyll)" unless installed?('require "jekyll"')

    tracegraph(["--call-tree", "--clock", "cpu", "-o", json, File.join(__dir__, "gate_jekyll_workload.rb")])
  },
  "asciidoctor" => lambda { |dir, json|
    next "asciidoctor is not installed (apt-get install asciidoctor)" unless installed?('require "asciidoctor"')

    tracegraph(["--call-tree", "--clock", "cpu", "-o", json, "-S", "asciidoctor", "-o", File.join(dir, "book.html"), asciidoctor_document(dir)])
  },
  "rspec suite" => lambda { |_, json|
    next "rspec is not installed (apt-get install ruby-rspec)" unless installed?('require "rspec/core"')

    tracegraph(["--call-tree", "--clock", "cpu", "-o", json, "-S", "rspec", File.join(__dir__, "grouped/rspec_suite_spec.rb")])
  },
  "Rails request" => lambda { |_, json|
    next "Rails is not installed (apt-get install ruby-rails ruby-sqlite3)" unless installed?('require "rails"; require "sqlite3"')

    _, err, status = Open3.capture3({"RAILS_ENV" => "development"}, RbConfig.ruby, "-I", LIB,
                                    File.join(__dir__, "grouped/rails_request.rb"), json,
                                    chdir: File.join(ROOT, "test/fixtures/rails_app"))
    status.success? ? nil : err
  }
}.freeze

def share(part, whole) = whole.positive? ? 100.0 * part / whole : 0.0

def check(profile, grouping)
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  grouped = profile.group_by(grouping)
  seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  total = profile.total_time
  self_sum = grouped.methods.sum(&:self_time)
  worst = grouped.edges.max_by(&:total_time)
  c_box = grouped[C_BOX]
  biggest = grouped.methods.max_by(&:self_time)
  {groups: grouped.methods.size, arrows: grouped.edges.size,
   worst_arrow: worst ? share(worst.total_time, total) : 0.0,
   over_callee: grouped.edges.count { |e| e.total_time > e.callee.total_time },
   c_share: c_box ? share(c_box.self_time, self_sum) : 0.0,
   biggest: biggest && "#{biggest.name} #{format('%.1f%%', share(biggest.self_time, self_sum))}",
   exact: !grouped.arrows_estimated?, seconds: seconds}
end

started = Time.now
rows = []
skipped = []
Dir.mktmpdir("tracegraph-grouped") do |dir|
  PROGRAMS.each do |name, record|
    json = File.join(dir, "#{name.tr(' ', '_')}.json")
    problem = record.(dir, json)
    next skipped << "#{name}: #{problem.lines.last(3).join.strip}" if problem

    profile = Tracegraph::Profile.load_json(json)
    warn "bench/grouped: #{name}: #{Tracegraph.group_digits(profile.call_tree.size)} tree nodes"
    GROUPINGS.each { |g| rows << [name, profile, g, check(profile, g)] }
  end
end

pct = ->(v) { format("%.1f%%", v) }
table = +"| program | by | groups | arrows | biggest arrow (of the run) | arrows over their callee's total | `(C) methods` box (of self time) | biggest box | exact | group_by took |\n" \
         "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |\n"
rows.each do |name, profile, g, r|
  table << "| #{name} (#{Tracegraph.human_time(profile.total_time)}) | #{g} | #{r[:groups]} | #{r[:arrows]} | " \
           "#{pct.(r[:worst_arrow])} | #{r[:over_callee]} | #{pct.(r[:c_share])} | #{r[:biggest]} | " \
           "#{r[:exact] ? 'yes' : 'estimated'} | #{format('%.2f s', r[:seconds])} |\n"
end
ok = rows.all? { |*, r| r[:worst_arrow] <= 100.0 && r[:over_callee].zero? && r[:c_share] <= 10.0 }
report = <<~MD
  # Grouped views on real programs (issue 36)

  - Date: #{started.utc.strftime('%Y-%m-%d %H:%M UTC')} (took #{(Time.now - started).round} s)
  - Machine: #{`nproc`.strip} CPUs, load average at the end #{File.read('/proc/loadavg').split.first(3).join(' ')}
  - Ruby: #{RUBY_DESCRIPTION}
  - Command: `ruby -Ilib bench/grouped_truth.rb` (`rake bench:grouped`)

  Each program recorded with `--call-tree --clock cpu` (the Rails request with `call_tree: true, clock: :cpu`), then
  grouped as `--group-by` groups it. Targets: no arrow over 100% of the run or over its
  callee's total, and no `(C) methods` box over 10% of the self time.

  #{table}
  #{ok ? 'Every view meets the targets.' : '**Some view misses a target** (see the table).'}
  #{skipped.empty? ? '' : "Skipped:\n\n" + skipped.map { |s| "- #{s}" }.join("\n")}
MD
File.write(OUT, report)
puts report
exit(ok && rows.any? ? 0 : 1)

# What the HTML report's grouping advice costs its writing (issue 36): for
# each saved profile, Formats::Html.generate (the whole report, the
# advice and its grouped graph included) and Formats::Html.advice alone
# (the three groupings tried and the advised one laid out), the median of
# 3, in CPU time of this process (Graphviz's `dot` runs in its own, and
# is not counted); with WALL=1 in wall time instead.
#   ruby -Ilib bench/html_advice.rb [PROFILE.json.gz...]   (default: test/fixtures/real/*)
require "tracegraph"

html = Tracegraph::Formats::Html
clock = ENV["WALL"] ? Process::CLOCK_MONOTONIC : Process::CLOCK_PROCESS_CPUTIME_ID
timed = lambda do |&work|
  started = Process.clock_gettime(clock)
  work.call
  Process.clock_gettime(clock) - started
end
paths = ARGV.empty? ? Dir[File.expand_path("../test/fixtures/real/*.json.gz", __dir__)].sort : ARGV
paths.each do |path|
  profile = Tracegraph::Profile.load_json(path)
  html.generate(profile, graph: false) # the first run's one-time costs
  runs = Array.new(3) { [timed.call { html.generate(profile) }, timed.call { html.advice(profile) }] }
  write, advice = runs.transpose.map { |xs| xs.sort[1] }
  found = html.advice(profile)
  puts format("%-24s write %.2f s, of it the advice %.2f s (%s)", File.basename(path), write, advice,
              found ? found["group_by"] || "none reads" : "no advice")
end

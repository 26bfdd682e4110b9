# How long Profile#group_by takes on a big call tree: rubocop checking
# tracegraph's lib/ (about 1.45 million paths), recorded here with a call
# tree, grouped by gem, class and file; then the same profile saved as
# JSON and read back, whose tree is packed for C at its first grouping
# (as `tracegraph diff --group-by` does). Needs the Debian package
# rubocop. Prints a Markdown table.
#
#   ruby -Ilib bench/group_by.rb      (or rake bench:group_by)
require "tmpdir"
require "tracegraph"
begin
  require "rubocop"
rescue LoadError
  abort "bench/group_by.rb: rubocop is not installed (apt-get install rubocop)"
end

ROOT = File.expand_path("..", __dir__)

def seconds
  start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
end

sources = Dir[File.join(ROOT, "lib/tracegraph/**/*.rb")].sort
profile = Tracegraph.profile(call_tree: true, max_call_tree_nodes: 4_000_000) do
  $stdout = File.open(File::NULL, "w")
  RuboCop::CLI.new.run(["--cache", "false", "--format", "quiet", *sources])
ensure
  $stdout = STDOUT
end
abort "bench/group_by.rb: the call tree was cut" if profile.call_tree.folded_calls.positive?

rows = []
%i[gem class file].each do |grouping|
  rows << ["recorded", grouping, seconds { profile.group_by(grouping) }]
end
Dir.mktmpdir do |dir|
  path = File.join(dir, "rubocop.json")
  profile.write_json(path)
  saved = nil
  load = seconds { saved = Tracegraph::Profile.load_json(path) }
  rows << ["saved (read: #{format('%.1f', load)} s)", :gem, seconds { saved.group_by(:gem) }]
  rows << ["saved, again", :gem, seconds { saved.group_by(:gem) }]
end

puts "rubocop on #{sources.size} files: #{Tracegraph.group_digits(profile.call_tree.size)} paths, " \
     "#{Tracegraph.group_digits(profile.methods.size)} methods (#{RUBY_DESCRIPTION[/\A\S+ \S+/]})"
puts
puts "| profile | grouping | group_by |"
puts "| --- | --- | ---: |"
rows.each { |what, grouping, time| puts "| #{what} | #{grouping} | #{format('%.3f', time)} s |" }

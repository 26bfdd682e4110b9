# The default call graph of the five real programs (test/fixtures/real,
# docs/real-programs.md) at method level and by gem: how much of the self
# time the boxes hold, how big `dot -Tsvg` draws it (points, which are
# pixels at 72 dpi), how long dot takes, and the longest label line.
# Prints the Markdown table the doc page shows.
#   ruby -Ilib bench/real_graphs.rb            (or: rake bench:graphs)
#   GROUPINGS=method,class,file,gem ruby -Ilib bench/real_graphs.rb
#   DIFF=1 ruby -Ilib bench/real_graphs.rb   (the diff graph of each fixture
#   against itself, which draws every box and arrow a real diff does)
#   SVG=docs/real-programs ruby -Ilib bench/real_graphs.rb   (instead of the
#   table, writes each program's drawing at method level and at its
#   recommended grouping, e.g. rubocop-method.svg and rubocop-gem.svg, which
#   docs/real-programs.md shows)
require "open3"
require "tracegraph"

FIXTURES = File.expand_path("../test/fixtures/real", __dir__)
PROGRAMS = %w[rubocop rdoc kramdown rake sinatra].freeze
GROUPINGS = (ENV["GROUPINGS"] || "method,gem").split(",").map(&:to_sym)
DIFF = ENV["DIFF"] == "1"
# The grouping docs/real-programs.md recommends: by gem for a run that is
# mostly libraries, by class for kramdown, whose time is its own code.
RECOMMENDED = Hash.new(:gem).merge("kramdown" => :class).freeze

if (dir = ENV["SVG"])
  PROGRAMS.each do |name|
    profile = Tracegraph::Profile.load_json(File.join(FIXTURES, "#{name}.json.gz"))
    [:method, RECOMMENDED[name]].each do |grouping|
      path = File.join(dir, "#{name}-#{grouping}.svg")
      _, err, status = Open3.capture3("dot", "-Tsvg", "-o", path, stdin_data: profile.to_dot(group_by: grouping))
      abort "dot failed on #{path}: #{err}" unless status.success?
      puts path
    end
  end
  exit
end

# Every line of every label, as drawn.
def label_lines(dot)
  dot.scan(/label="((?:[^"\\]|\\.)*)"/).flatten.flat_map { |label| label.split(/\\[nlr]/) }
     .map { |line| line.gsub(/\\(.)/, '\1').strip }
end

def measure(profile, grouping)
  dot = if DIFF
          grouped = profile.group_by(grouping)
          grouped.diff(grouped).to_dot
        else
          profile.to_dot(group_by: grouping)
        end
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  svg, err, status = Open3.capture3("dot", "-Tsvg", stdin_data: dot)
  seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  abort "dot failed: #{err}" unless status.success?
  width, height = svg.match(/<svg width="(\d+)pt" height="(\d+)pt"/).captures.map(&:to_i)
  {boxes: dot.scan(/^  N\d+ \[label=/).size, held: dot[/boxes hold ([\d.]+)%/, 1], width: width, height: height,
   seconds: seconds, longest: label_lines(dot).map(&:length).max,
   arrows: dot.scan(/^  N\d+ -> N\d+ \[/).size, dotted: dot.scan(/style=dotted/).size}
end

if DIFF
  puts "| program | grouping | arrows (dotted) | drawing (pt) | dot | longest label line |"
  puts "| --- | --- | --- | --- | --- | --- |"
else
  puts "| program | grouping | boxes | boxes hold | drawing (pt) | dot | longest label line |"
  puts "| --- | --- | --- | --- | --- | --- | --- |"
end
PROGRAMS.each do |name|
  profile = Tracegraph::Profile.load_json(File.join(FIXTURES, "#{name}.json.gz"))
  GROUPINGS.each_with_index do |grouping, i|
    m = measure(profile, grouping)
    if DIFF
      puts "| #{i.zero? ? name : ''} | #{grouping} | #{m[:arrows]} (#{m[:dotted]}) | #{m[:width]} × #{m[:height]} | " \
           "#{format('%.2f', m[:seconds])} s | #{m[:longest]} |"
      next
    end
    puts "| #{i.zero? ? name : ''} | #{grouping} | #{m[:boxes]} | #{m[:held]}% | #{m[:width]} × #{m[:height]} | " \
         "#{format('%.2f', m[:seconds])} s | #{m[:longest]} |"
  end
end

# A real program for bench/gate.rb (GATE_WORKLOAD=jekyll): jekyll
# (Debian's package) building a site of 30 posts, with a plugin that
# counts letters after each rendered post with String#count, a C method.
# GATE_SLOWDOWN=1.2 makes that C method 20% slower with exactly the same
# calls: each count reads a 20% longer text. By gem, String#count's time
# is the plugin's group's ("app", the code that called it), which is how
# the gate by gem can catch a C method that got slower.
require "jekyll"
require "tmpdir"

SLOWDOWN = Float(ENV.fetch("GATE_SLOWDOWN", "1"))
POSTS = 30

# Counted 40 times per rendered post: a text made once, longer by
# SLOWDOWN, so the slower run allocates no more than the other (a longer
# string made per count made the collector's marking 80% longer, too).
module LetterCount
  BASE = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. " * 2000
  COUNTED = (BASE + BASE[0, ((SLOWDOWN - 1) * BASE.bytesize).round].to_s).freeze

  def self.count(_text) = 40.times.sum { COUNTED.count("a-m") }
end

Jekyll::Hooks.register(:posts, :post_render) { |post| LetterCount.count(post.output) }

# In memory where there is /dev/shm: on this project's VM, a build's
# directories in /tmp took longer to make measurement after measurement
# (Dir.mkdir from 8 to 40 ms a build within minutes), which is the disk's
# noise, not the program's.
shm = "/dev/shm" if File.directory?("/dev/shm") && File.writable?("/dev/shm")
Dir.mktmpdir("tracegraph-gate-jekyll", shm) do |source|
  Dir.mkdir(File.join(source, "_posts"))
  File.write(File.join(source, "index.md"),
             "---\nlayout: null\n---\n# Index\n\n{% for post in site.posts %}* {{ post.title }}\n{% endfor %}\n")
  POSTS.times do |i|
    body = (1..20).map { |p| "Paragraph #{p} of post #{i}, with *emphasis* and `code`.\n\n```ruby\ndef x#{p} = #{p} + 1\n```\n" }
    File.write(File.join(source, "_posts", format("2026-01-%02d-post-%d.md", (i % 28) + 1, i)),
               "---\ntitle: Post #{i}\nlayout: null\n---\n#{body.join("\n")}")
  end
  config = Jekyll.configuration("source" => source, "destination" => File.join(source, "_site"), "quiet" => true,
                                "incremental" => false)
  Jekyll::Site.new(config).process
end

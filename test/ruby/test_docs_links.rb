require "minitest/autorun"
require "tmpdir"

# Every relative link in README.md and docs/**/*.md resolves: the file it
# names exists, and a #anchor names a heading of that file as GitHub
# anchors it. Links inside code (fenced blocks, `spans`) are not links.
module DocLinks
  # The checkout: the nearest folder above this file that holds the gemspec.
  ROOT = File.expand_path("..", __dir__).then do |dir|
    dir = File.dirname(dir) until File.exist?(File.join(dir, "tracegraph.gemspec")) || dir == "/"
    dir
  end

  module_function

  def documents(root = ROOT)
    [File.join(root, "README.md"), *Dir[File.join(root, "docs/**/*.md")]].select { |f| File.file?(f) }.sort
  end

  # Lines outside fenced code blocks, with inline code spans blanked.
  def prose_lines(text)
    fence = nil
    text.lines.map do |line|
      if (m = line.match(/\A\s{0,3}(`{3,}|~{3,})/))
        if fence.nil? then fence = m[1]
        elsif m[1].start_with?(fence[0] * fence.length) then fence = nil
        end
        next ""
      end
      fence ? "" : line.gsub(/(`+).*?\1/, "")
    end
  end

  LINK = /!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/
  REFERENCE = /\A\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|\z)/
  HTML_TARGET = /<(?:a|img)\b[^>]*?\b(?:href|src)="([^"]+)"/

  def links(text)
    prose_lines(text).flat_map { |line| [LINK, REFERENCE, HTML_TARGET].flat_map { |re| line.scan(re).flatten } }
  end

  # GitHub's heading anchors: the heading's text, lowercased, without
  # punctuation (markup included), spaces as hyphens; a repeated one gets
  # -1, -2, ...
  def anchors(text)
    seen = Hash.new(0)
    found = []
    fence = nil
    text.each_line do |line|
      if (m = line.match(/\A\s{0,3}(`{3,}|~{3,})/))
        fence = fence.nil? ? m[1] : (m[1].start_with?(fence[0] * fence.length) ? nil : fence)
        next
      end
      next if fence
      found.concat(line.scan(/<a\s+(?:name|id)="([^"]+)"/).flatten)
      heading = line[/\A\s{0,3}\#{1,6}\s+(.*?)\s*#*\s*\z/m, 1] or next
      slug = slug(heading)
      found << (seen[slug].zero? ? slug : "#{slug}-#{seen[slug]}")
      seen[slug] += 1
    end
    found
  end

  def slug(heading)
    heading.gsub(/!?\[([^\]]*)\]\([^)]*\)/, '\1').downcase.gsub(/[^\p{Word}\- ]/u, "").tr(" ", "-")
  end

  # "file: target (reason)" for every link that does not resolve.
  def broken(files = documents, root: ROOT)
    files.flat_map do |file|
      text = File.read(file, encoding: "UTF-8")
      links(text).filter_map do |target|
        next if target.match?(%r{\A([a-z][a-z0-9+.-]*:|//)}i)
        path, anchor = target.split("#", 2)
        path = path.gsub(/%([0-9a-f]{2})/i) { Regexp.last_match(1).hex.chr }
        resolved = if path.empty? then file
                   elsif path.start_with?("/") then File.join(root, path)
                   else File.expand_path(path, File.dirname(file))
                   end
        where = "#{file.delete_prefix("#{root}/")}: #{target}"
        next "#{where} (no such file)" unless File.exist?(resolved)
        next unless anchor && File.file?(resolved) && resolved.end_with?(".md")
        "#{where} (no such heading)" unless anchors(File.read(resolved, encoding: "UTF-8")).include?(anchor)
      end
    end
  end
end

# Every file of this checkout that a code comment names exists: a path
# from the checkout's top folders (lib/tracegraph/cli/cli.rb, test/c/),
# one from a folder of ours (core/tg_dot.h, formats/dot.rb), a feature
# (tracegraph/autorun), or a bare source name (tg_graph.c, page_kit.js).
# Names of other projects' files and of examples are in NOT_OURS.
module CommentPaths
  ROOT = DocLinks::ROOT
  TOP = %w[lib ext test bench bin rakelib docs exe examples .ci].freeze
  OURS = %w[core binding tracegraph formats model cli output comparison html fixtures consumers torture hostile].freeze
  # Ruby's and other projects' sources (a Rails app's bin/rails), and
  # names used as examples.
  NOT_OURS = %w[vm_trace.c vm.c iseq.c iseq.h vm_exec.c compile.c gc.c method.h vm_core.h ruby.h dln_find.c bin/rails script.rb resolution.rb
                rake_test_loader.rb other.rb m.rb big0.rb app.rb prog.rb test/a.rb bench/app.rb lib/foo.rb].freeze
  SOURCE = /\.(?:rb|c|h|js|rake|md)\z/
  TOKEN = %r{(?<![\w/.~-])((?:\.?[\w-]+/)*[\w.-]*\w/?)}

  module_function

  # The checkout's source files: Ruby, C, JavaScript, rake and scripts
  # (not this one, whose test writes gone names on purpose).
  def sources(root = ROOT)
    Dir.glob("{lib,ext,test,bench,bin,rakelib,exe,.ci}/**/*", File::FNM_DOTMATCH, base: root)
       .select { |f| File.file?(File.join(root, f)) && (f.match?(/\.(?:rb|c|h|js|rake)\z/) || f.start_with?("bin/", "exe/", ".ci/")) }
       .reject { |f| f.match?(%r{vendor/|node_modules/}) || f == "test/ruby/test_docs_links.rb" } + (File.exist?(File.join(root, "Rakefile")) ? ["Rakefile"] : [])
  end

  # [line number, text] of each comment: # in Ruby and scripts, /* */ and // in C and JavaScript.
  def comments(file, text)
    if file.match?(/\.(?:c|h|js)\z/)
      text.to_enum(:scan, %r{/\*.*?\*/|(?<![:"'\\])//[^\n]*}m).map { [text[0, $~.begin(0)].count("\n") + 1, $~[0]] }
    else
      text.each_line.with_index(1).filter_map { |line, n| [n, line[/(?:\A|\s)#\s(.*)/, 1]] if line.match?(/(?:\A|\s)#\s/) }
    end
  end

  # "file:line: name" for each file of ours a comment names that does not exist.
  def missing(root = ROOT)
    all = Dir.glob("**/*", File::FNM_DOTMATCH, base: root).reject { |f| f.start_with?("tmp/", ".git/") }
    basenames = all.to_h { |f| [File.basename(f), true] }
    sources(root).flat_map do |file|
      comments(file, File.read(File.join(root, file), encoding: "UTF-8")).flat_map do |line, comment|
        comment.scan(TOKEN).flatten.filter_map do |name|
          next unless ours?(name)
          next if exists?(root, all, basenames, name)

          "#{file}:#{line}: #{name}"
        end
      end
    end
  end

  # (What bin/setup and the builds make, node_modules/ and tmp/, is not
  # in a checkout that has not run them.)
  def ours?(name)
    first = name.split("/").first
    return false if NOT_OURS.include?(name) || name.match?(%r{(?:\A|/)(?:node_modules|tmp)(?:/|\z)})
    return true if name.include?("/") && (TOP.include?(first) || OURS.include?(first))

    !name.include?("/") && name.match?(SOURCE) && name.match?(/\A[a-z]/)
  end

  def exists?(root, all, basenames, name)
    path = name.chomp("/")
    return true if File.exist?(File.join(root, path))
    return basenames.key?(path) unless path.include?("/")
    return true if all.any? { |f| f.end_with?("/#{path}") || f.end_with?("/#{path}.rb") }

    path.start_with?("tracegraph/") && File.exist?(File.join(root, "lib", "#{path}.rb"))
  end
end

class TestDocsLinks < Minitest::Test
  def test_every_relative_link_in_the_readme_and_docs_resolves
    files = DocLinks.documents
    assert_includes files, File.join(DocLinks::ROOT, "README.md")
    assert_operator files.size, :>, 10, "the guides in docs/ are read too"
    broken = DocLinks.broken(files)
    assert_empty broken, "links that do not resolve:\n#{broken.join("\n")}"
  end

  def test_anchors_are_githubs
    text = "# The `tracegraph` command\n## Options\n```\n# not a heading\n```\n## Options\n" \
           "### Allocations (`allocations: true`) and *their* cost\n## A [linked](x.md) one\n"
    assert_equal ["the-tracegraph-command", "options", "options-1", "allocations-allocations-true-and-their-cost",
                  "a-linked-one"], DocLinks.anchors(text)
  end

  def test_a_broken_link_or_anchor_is_found_and_code_is_not_a_link
    Dir.mktmpdir do |root|
      Dir.mkdir(File.join(root, "docs"))
      File.write(File.join(root, "docs/guide.md"), "# Guide\n\n## Gating a build\n")
      File.write(File.join(root, "README.md"), <<~MD)
        [ok](docs/guide.md) [ok](docs/guide.md#gating-a-build) [web](https://example.com/x.md)
        [gone](docs/missing.md) and [no heading](docs/guide.md#gating) and [self](#nowhere)
        `[in code](docs/nothing.md)`

        ```
        [in a block](docs/nothing.md)
        ```
      MD
      assert_equal ["README.md: docs/missing.md (no such file)",
                    "README.md: docs/guide.md#gating (no such heading)",
                    "README.md: #nowhere (no such heading)"],
                   DocLinks.broken(DocLinks.documents(root), root: root)
    end
  end

  def test_every_file_of_ours_a_code_comment_names_exists
    missing = CommentPaths.missing
    assert_empty missing, "comments that name files which do not exist:\n#{missing.join("\n")}"
  end

  def test_a_comment_naming_a_file_that_is_gone_is_found
    Dir.mktmpdir do |root|
      FileUtils.mkdir_p(File.join(root, "lib/tracegraph/model"))
      FileUtils.mkdir_p(File.join(root, "ext/tracegraph/core"))
      File.write(File.join(root, "ext/tracegraph/core/tg_dot.c"), "/* see tg_dot.h and core/tg_gone.h */\n")
      File.write(File.join(root, "ext/tracegraph/core/tg_dot.h"), "// tg_dot.c, vm_trace.c (Ruby's)\n")
      File.write(File.join(root, "lib/tracegraph/model/view.rb"), <<~RUBY)
        # Built by model/view.rb and profile_view.rb, loaded as tracegraph/process_end;
        # see lib/tracegraph/model/ and test/ruby/rails/, and "a.json" (an example).
        x = "# not/a/comment.rb"
      RUBY
      assert_equal ["ext/tracegraph/core/tg_dot.c:1: core/tg_gone.h",
                    "lib/tracegraph/model/view.rb:1: profile_view.rb",
                    "lib/tracegraph/model/view.rb:1: tracegraph/process_end",
                    "lib/tracegraph/model/view.rb:2: test/ruby/rails/"], CommentPaths.missing(root).sort
    end
  end
end

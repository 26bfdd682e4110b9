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
end

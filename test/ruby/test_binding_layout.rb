# The Ruby binding (ext/tracegraph/binding) keeps one job per file, and its
# files depend on each other one way only: ext/tracegraph/binding/tracegraph.c
# says the rules, and this test holds the code to them by reading the
# sources (no build needed).
require "minitest/autorun"
require "tsort"

class TestBindingLayout < Minitest::Test
  EXT = File.expand_path("../../ext/tracegraph", __dir__)
  BINDING = File.join(EXT, "binding")

  # "session.c" and "session.h" are one unit, "session".
  def units
    Dir[File.join(BINDING, "*.{c,h}")].group_by { |path| File.basename(path).sub(/\.[ch]\z/, "") }
  end

  # unit => the other binding units its files #include.
  def includes
    names = units.keys
    units.to_h do |unit, paths|
      used = paths.flat_map { |path| File.read(path).scan(/^#include "(\w+)\.h"/).flatten }
      [unit, (used & names) - [unit]]
    end
  end

  def test_no_two_binding_files_depend_on_each_other
    graph = includes
    cycles = TSort.strongly_connected_components(->(&b) { graph.each_key(&b) }, ->(n, &b) { graph.fetch(n).each(&b) })
                  .select { |component| component.size > 1 }
    assert_empty cycles, "binding files that depend on each other: #{cycles.inspect}"
  end

  # A file's "Uses:" header, kept by hand, names every header it
  # includes (two had fallen behind their #includes).
  def test_every_uses_header_names_what_its_file_includes
    missing = Dir[File.join(EXT, "{binding,core}", "*.{c,h}")].flat_map do |path|
      text = File.read(path)
      uses = text[/^ \* Uses:(.*?)(?:\*\/|^ \*\s*$)/m, 1] or next []
      text.scan(/^#include "([\w.]+)"/).flatten.reject { |header| uses.include?(header) }
          .map { |header| "#{File.basename(path)}: #{header}" }
    end
    assert_empty missing, "add these to the file's Uses: header"
  end

  def test_the_entry_file_only_calls_each_files_init
    source = File.read(File.join(BINDING, "tracegraph.c"))
    assert_equal ["Init_tracegraph"], defined_functions(source)
    calls = source[/Init_tracegraph\(void\)\s*\{(.*)\}/m, 1].scan(/^\s+(\w+)\(/).flatten
    assert_equal calls.size, calls.grep(/\A\w+_init\z/).size, "tracegraph.c calls only inits: #{calls.inspect}"
  end

  # A function one binding file shares, or an inline reader in a header,
  # is named after its file: session_event_time in session.h.
  def test_shared_functions_are_named_after_their_file
    units.each do |unit, paths|
      next if unit == "tracegraph"

      paths.each do |path|
        source = File.read(path)
        names = path.end_with?(".h") ? inline_functions(source) : defined_functions(source)
        strays = names.reject { |name| name.start_with?("#{unit}_") }
        assert_empty strays, "#{File.basename(path)}: shared functions not named #{unit}_*"
      end
    end
  end

  def test_sources_stay_short_and_basenames_unique
    sources = Dir[File.join(EXT, "{core,binding}", "*.{c,h}")]
    long = sources.select { |path| File.foreach(path).count > 1000 }
    assert_empty long, "source files over 1,000 lines"
    basenames = sources.map { |path| File.basename(path) }
    assert_equal basenames.uniq, basenames, "mkmf needs unique basenames across core/ and binding/"
  end

  private

  # Functions defined at file scope and not static.
  def defined_functions(source)
    source.scan(/^(?!static\b|typedef\b|struct\b|#)[A-Za-z_][\w \*]*?\b(\w+)\([^;{]*\)\s*\{/).flatten
  end

  # Inline functions defined in a header.
  def inline_functions(source)
    source.scan(/^static (?:inline|TG_ALWAYS_INLINE)\b[\w \*]*?\b(\w+)\(/).flatten
  end
end

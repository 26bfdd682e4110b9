require_relative "../ruby/test_helper"
require "stringio"

# A method name (or file name) with ESC sequences, CR/LF or Unicode
# reordering characters must not act on a terminal or forge lines in a CI
# log: the flat table and the diff table show them escaped.
class TestTextOutputsEscapeNames < TracegraphTest
  HOSTILE = ["\e[2J\e[Hcleared", "line\nFORGED: all tests passed", "cr\rover", "rtl\u202Eexe.rb", "nul\0byte",
             "bell\a", "del\x7F"].freeze

  def hostile_profile
    klass = Class.new do
      HOSTILE.each { |name| define_method(name.to_sym) { name } }
      class_eval("def from_odd_file = 1", "odd\e[31mfile\n.rb", 1)
    end
    Object.const_set(:HostileTextNames, klass) unless defined?(::HostileTextNames)
    object = ::HostileTextNames.new
    Tracegraph.profile { HOSTILE.each { |n| object.send(n.to_sym) }; object.from_odd_file }
  end

  def assert_inert(text)
    refute_match(/[\e\r\0\a\x7F\u202E]/, text)
    text.each_line { |line| refute_match(/\AFORGED/, line) }
  end

  def test_the_flat_table_escapes_control_characters
    out = StringIO.new
    hostile_profile.print_flat(out, limit: 100)
    assert_inert out.string
    assert_includes out.string, "HostileTextNames#\\e[2J\\e[Hcleared"
    assert_includes out.string, "HostileTextNames#line\\nFORGED: all tests passed"
    assert_includes out.string, "HostileTextNames#rtl\\u{202e}exe.rb"
    assert_includes out.string, "odd\\e[31mfile\\n.rb:1"
  end

  def test_the_diff_table_escapes_control_characters
    base = Tracegraph.profile { nil }
    out = StringIO.new
    Tracegraph::ProfileDiff.new(base, hostile_profile).print_text(out, limit: 100)
    assert_inert out.string
    assert_includes out.string, "HostileTextNames#cr\\rover"
  end
end

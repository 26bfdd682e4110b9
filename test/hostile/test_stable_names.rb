require_relative "../ruby/test_helper"
require_relative "../ruby/cli_helper"

# The same program gives the same method names in every run: no memory
# address in any name, so diffs and CI gates compare like with like.
class TestStableNames < Minitest::Test
  include CliHelper

  PROGRAM = <<~'RUBY'
    require "tracegraph"
    require "json"
    class Outer; end
    Anonymous = Class.new { def run = 1 }   # named once assigned: Anonymous#run
    point = Struct.new(:x, :y) do           # anonymous, with a Ruby method
      def length = Math.sqrt(x * x + y * y)
    end
    bare = Class.new(Outer)                 # anonymous, no methods of its own
    mixin = Module.new { def mixed = 2 }
    nested = Class.new { const_set(:Inner, Class.new { def deep = 3 }) }
    object = Object.new
    def object.hi = 4
    profile = Tracegraph.profile do
      ENV.fetch("HOME", nil)
      ENV["TRACEGRAPH_NOTHING"]
      Anonymous.new.run
      point.new(3, 4).length
      bare.new
      Class.new { include mixin }.new.mixed
      nested::Inner.new.deep
      object.hi
    end
    puts JSON.generate((profile.methods.map(&:name) - Tracegraph::Profile::GC_NODES).sort)
  RUBY

  def names_of_one_run
    out, err, status = ruby("-e", PROGRAM, chdir: ROOT)
    assert status.success?, err
    JSON.parse(out.lines.last)
  end

  def test_two_runs_give_the_same_names_and_no_addresses
    first = names_of_one_run
    assert_equal first, names_of_one_run
    assert first.none? { |n| n.match?(/0x\h+/) }, first.grep(/0x/).inspect
    %w[ENV.fetch ENV.[] Anonymous#run #<Object>.hi].each { |name| assert_includes first, name }
    # Anonymous owners are named by where their first Ruby method is.
    assert_includes first, "#<Class:-e:6>#length"
    assert_includes first, "#<Module:-e:9>#mixed"
    assert_includes first, "#<Class:-e:10>#deep"
  end
end

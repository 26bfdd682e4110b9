require_relative "../test_helper"
require "fileutils"
require "tmpdir"

module Greeter
  def self.hello = "hi"
  def greet = "hello"
end

class Person
  include Greeter
  def self.create = new
  def name = "ann"
  alias_method :full_name, :name
  def method_missing(*) = :missing
  def respond_to_missing?(*) = true
end

class Basket
  def self.fill = [1].each { |x| x }
  def weigh = [[1, 2]].each { |pair| pair.map { |x| x * 2 } }
  define_method(:made) { [1].each { |x| x } }
end

class TestNaming < TracegraphTest
  # Blocks are named as backtraces name them, with tracegraph's own name
  # for the enclosing method, so the same on every Ruby (3.4's backtraces
  # say "block in Basket#weigh", 3.1's and 3.3's "block in weigh");
  # outside methods, Ruby's own label.
  def test_block_names
    dir = Dir.mktmpdir
    top = File.join(dir, "top.rb")
    File.write(top, "[1].each { |x| x }\n")
    basket = Basket.new
    profile = Tracegraph.profile do
      Basket.fill
      basket.weigh
      basket.made
      load top
    end
    names = profile.methods.map(&:name)
    ["block in Basket.fill", "block in Basket#weigh", "block in Basket#made",
     "block in <top (required)>"].each { |name| assert_includes names, name }
    # weigh's two blocks start on one line: through the public API they
    # are one node, called once and twice (test_helper's one_node_per_line?).
    if one_node_per_line?
      refute names.any? { |n| n.include?("levels") }, names.inspect
      assert_equal 1 + 2, method_named(profile, "block in Basket#weigh").calls
    else
      assert_equal [1, 2], ["block in Basket#weigh", "block (2 levels) in Basket#weigh"].map { |n| method_named(profile, n).calls }
    end
    refute names.any? { |n| n.include?("<class:Basket>") }, names.inspect
    assert_equal [top, 1], [method_named(profile, "block in <top (required)>").file,
                            method_named(profile, "block in <top (required)>").line]
  ensure
    FileUtils.rm_rf(dir) if dir
  end

  def test_instance_singleton_module_and_alias_names
    person = Person.new
    object = Object.new
    def object.custom = 1
    anonymous = Class.new { def run = 2 }.new
    profile = Tracegraph.profile do
      Person.create
      person.name
      person.full_name
      person.greet
      Greeter.hello
      Math.sqrt(4)
      object.custom
      anonymous.run
      [3, 1].sort
    end
    names = profile.methods.map(&:name)
    %w[Person.create Person#name Greeter#greet Greeter.hello Math.sqrt Array#sort Class#new].each do |name|
      assert_includes names, name
    end
    assert_equal 2, method_named(profile, "Person#name").calls, "an alias collapses into the method it calls"
    refute_includes names, "Person#full_name"
    assert_includes names, "#<Object>.custom"
    assert_includes names, "#<Class:#{__FILE__.delete_prefix("#{Dir.pwd}/")}:#{__LINE__ - 19}>#run"
  end

  # Owners that Ruby names by memory address get names that hold from run
  # to run (test/hostile/test_stable_names.rb runs a program twice).
  def test_owners_without_a_name_or_a_ruby_method
    assert_equal "#<Class < Person>", Tracegraph::Naming.module_name(Class.new(Person))
    assert_equal "#<Class < #<Class < Person>>", Tracegraph::Naming.module_name(Class.new(Class.new(Person)))
    assert_equal "#<Module>", Tracegraph::Naming.module_name(Module.new)
    assert_equal "#<Person>", Tracegraph::Naming.object_name(Person.new)
    assert_equal "ENV", Tracegraph::Naming.object_name(ENV)
    # Module#name itself, not a class's own `name`: no user code names it.
    pretender = Class.new(Person) { def self.name = "Pretender" }
    assert_equal "#<Class:#{Tracegraph.short_path(__FILE__)}:#{__LINE__ - 1}>", Tracegraph::Naming.module_name(pretender)
  end

  def test_kernel_methods_use_the_module_name
    profile = Tracegraph.profile { format("%d", 1) }
    assert_includes profile.methods.map(&:name), "Kernel#format"
  end

  def test_unusual_method_names
    klass = Class.new do
      define_method(:"a\"b\\c") { 1 }
      define_method(:"名前") { 2 }
      define_method(:[]=) { |_k, _v| 3 }
    end
    Object.const_set(:OddNames, klass) unless defined?(OddNames)
    o = OddNames.new
    profile = Tracegraph.profile { o.send(:"a\"b\\c"); o.send(:"名前"); o[1] = 2 }
    names = profile.methods.map(&:name)
    assert_includes names, "OddNames#a\"b\\c"
    assert_includes names, "OddNames#名前"
    assert_includes names, "OddNames#[]="
    assert names.all?(&:valid_encoding?)
  end

  # Anonymous owners are named in one pass per stop, with the working
  # directory read once in it: each stop reads it again.
  def test_each_stop_names_from_the_working_directory_it_has
    dir = Dir.mktmpdir
    file = File.join(dir, "anon.rb")
    File.write(file, "$tracegraph_anonymous = Class.new { def run = 1 }\n") # (a constant would name it)
    load file
    object = $tracegraph_anonymous.new
    names = Dir.chdir(dir) { Tracegraph.profile { object.run }.methods.map(&:name) }
    assert_includes names, "#<Class:anon.rb:1>#run"
    names = Tracegraph.profile { object.run }.methods.map(&:name)
    assert_includes names, "#<Class:#{Tracegraph.short_path(file)}:1>#run"
    refute_equal "anon.rb", Tracegraph.short_path(file), "the second stop is not in that directory"
  ensure
    $tracegraph_anonymous = nil
    FileUtils.rm_rf(dir)
  end

  # Anonymous owners made in a loop, by Class.new, Struct.new and
  # Module.new, keep the names Naming gives them (naming.c's owner_name
  # names both). The classes one line makes share that line's
  # name, however many there are; their singleton methods are "."; classes
  # the program no longer holds are named too; and the heap has moved under
  # them (test/torture/test_gc_torture.rb names them with the collector
  # compacting at every allocation of the stop).
  def test_anonymous_owners_made_in_a_loop_under_compaction
    file = Tracegraph.short_path(__FILE__)
    line = __LINE__ + 1
    classes = 3.times.map { |i| Class.new { define_method(:run) { i }; def self.make = new } }
    structs = 2.times.map { Struct.new(:a) { def total = a + 1 } }
    host = Object.new.extend(Module.new { def mixed = 3 })
    profile = Tracegraph.profile(blocks: false) do
      classes.each { |c| c.make.run }
      structs.each { |s| s.new(1).total }
      host.mixed
      2.times { Class.new { def gone = 4 }.new.gone } # held by nothing after this line
      GC.start
      GC.compact
      GC.verify_compaction_references(double_heap: true, toward: :empty)
    end

    calls = ->(name) { profile.methods.select { |m| m.name == name }.map(&:calls) }
    assert_equal [1, 1, 1], calls["#<Class:#{file}:#{line}>#run"]
    assert_equal [1, 1, 1], calls["#<Class:#{file}:#{line}>.make"]
    assert_equal [1, 1], calls["#<Class:#{file}:#{line + 1}>#total"]
    assert_equal [1], calls["#<Module:#{file}:#{line + 2}>#mixed"]
    assert_equal [1, 1], calls["#<Class:#{file}:#{line + 7}>#gone"]
    assert_equal "#<Class:#{file}:#{line}>", Tracegraph::Naming.module_name(classes[0])
    refute profile.methods.any? { |m| m.name.include?("0x") }, profile.methods.map(&:name).inspect
  end

  # Naming.module_name and .object_name give the names the profile gives
  # the same owners: one rule (naming.c's owner_name) names both. Asked
  # here before the profile, and the classes it drops asked before they
  # are dropped.
  module Refined
    OWNER = [nil]
    refine(String) do
      OWNER[0] = self
      def tracegraph_refined = 5
    end
  end
  using Refined

  def test_ruby_and_the_profile_name_owners_alike
    looped = 3.times.map { |i| Class.new { define_method(:run) { i }; def self.make = new } }
    struct = Struct.new(:a) { def total = a + 1 }
    mixin = Module.new { def mixed = 3 }
    host = Object.new.extend(mixin)
    plain = Object.new
    def plain.solo = 6
    dropped = Class.new { def gone = 4 }
    refinement = Refined::OWNER[0]
    expected = looped.map { |c| "#{Tracegraph::Naming.module_name(c)}#run" } +
               looped.map { |c| "#{Tracegraph::Naming.module_name(c)}.make" } +
               ["#{Tracegraph::Naming.module_name(struct)}#total", "#{Tracegraph::Naming.module_name(mixin)}#mixed",
                "#{Tracegraph::Naming.object_name(plain)}.solo", "#{Tracegraph::Naming.module_name(dropped)}#gone"]
    expected << "#{Tracegraph::Naming.module_name(refinement)}#tracegraph_refined" if refinement
    profile = Tracegraph.profile(blocks: false) do
      looped.each { |c| c.make.run }
      struct.new(1).total
      host.mixed
      plain.solo
      "x".tracegraph_refined
      dropped.new.gone
      dropped = nil # held by nothing now but the profile
      GC.start
      GC.compact
    end

    names = profile.methods.map(&:name)
    expected.uniq.each { |name| assert_includes names, name }
    refute names.any? { |n| n.include?("0x") }, names.inspect
    file = Tracegraph.short_path(__FILE__)
    assert_match(/\A#<Class:#{Regexp.escape(file)}:\d+>#run\z/, expected[0])
    assert_equal "#<Object>.solo", expected[8]
    assert_equal Encoding::UTF_8, expected[0].encoding
    assert_equal "#<Class < Struct>", Tracegraph::Naming.module_name(Struct.new(:b)), "no Ruby method: by its superclass"
  end
end

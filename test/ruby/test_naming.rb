require_relative "test_helper"

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

class TestNaming < TracegraphTest
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
end

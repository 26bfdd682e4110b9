module Tracegraph
  # Names for the owners Ruby itself would name by memory address:
  # anonymous classes and modules, and singleton classes of plain objects.
  # The same program must give the same names in every run, or diffs and
  # CI gates see methods come and go. The extension names every other
  # owner itself and asks here only for these, at stop (never in the hook).
  #
  #   Class.new { def run = 1 }       #<Class:app/jobs.rb:12>#run
  #   Struct.new(:a) (no Ruby methods) #<Class < Struct>#a
  #   ENV.fetch                        ENV.fetch   (an object held by a constant)
  #   def obj.hi (obj an Object)       #<Object>.hi
  module Naming
    # [name, separator]: what goes before the method name, and "#" for
    # instance methods or "." for singleton methods.
    def self.owner(klass)
      return [module_name(klass), "#"] unless klass.singleton_class?

      object = attached_object(klass)
      [object.is_a?(Module) ? module_name(object) : object_name(object), "."]
    end

    def self.attached_object(singleton)
      return singleton.attached_object if singleton.respond_to?(:attached_object)

      ObjectSpace.each_object(singleton).find { |o| o.singleton_class.equal?(singleton) }
    end

    # A module's name, or for an anonymous one where it was defined: the
    # first of its own methods written in Ruby (by file and line), else its
    # superclass.
    def self.module_name(mod)
      name = mod.name
      return name if name && !name.include?("#<")

      kind = mod.is_a?(Class) ? "Class" : "Module"
      if (location = definition_location(mod))
        "#<#{kind}:#{location}>"
      elsif mod.is_a?(Class) && mod.superclass
        "#<Class < #{module_name(mod.superclass)}>"
      else
        "#<#{kind}>"
      end
    end

    def self.definition_location(mod)
      methods = mod.instance_methods(false) + mod.private_instance_methods(false)
      locations = methods.filter_map { |m| mod.instance_method(m).source_location }
      locations += mod.singleton_methods(false).filter_map { |m| mod.method(m).source_location }
      file, line = locations.min
      file && "#{short_path(file)}:#{line}"
    end

    # Paths under the working directory are written relative to it, so
    # that names do not depend on where the project is checked out.
    def self.short_path(file)
      dir = "#{Dir.pwd}/"
      file.start_with?(dir) ? file.delete_prefix(dir) : file
    rescue SystemCallError
      file
    end

    # A plain object: the top-level constant that holds it (ENV, ARGF), or
    # its class.
    def self.object_name(object)
      constant_holding(object) || "#<#{module_name(object.class)}>"
    end

    def self.constant_holding(object)
      verbose = $VERBOSE
      $VERBOSE = nil # deprecated constants warn when read
      Object.constants.sort.find do |c|
        !Object.autoload?(c) && Object.const_defined?(c, false) && Object.const_get(c, false).equal?(object)
      end&.to_s
    rescue StandardError
      nil
    ensure
      $VERBOSE = verbose
    end
  end
end

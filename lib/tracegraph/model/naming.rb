# frozen_string_literal: true

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
    # instance methods or "." for singleton methods. For a singleton class
    # the extension passes the object it belongs to, which it can find on
    # every Ruby.
    def self.owner(klass, attached = nil)
      pass = @pass
      return owner_name(klass, attached) unless pass

      pass[:owners][klass] ||= owner_name(klass, attached) # a Struct's members, say: one owner, many methods
    end

    def self.owner_name(klass, attached)
      return [module_name(klass), INSTANCE_METHOD] unless SINGLETON_CLASS_P.bind_call(klass)

      [Module === attached ? module_name(attached) : object_name(attached), SINGLETON_METHOD]
    end

    INSTANCE_METHOD = "#"
    SINGLETON_METHOD = "."

    # Module#name itself, as the extension reads it: a class may define its
    # own `name`, and no user code runs while naming.
    MODULE_NAME = Module.instance_method(:name)

    # The other methods naming asks of a module, called the same way: no
    # user code runs, and the call is not looked up again in each
    # anonymous class's own empty method cache, which cost more than the
    # call itself where a program made thousands of them.
    SINGLETON_CLASS_P = Module.instance_method(:singleton_class?)
    INSTANCE_METHODS = Module.instance_method(:instance_methods)
    PRIVATE_INSTANCE_METHODS = Module.instance_method(:private_instance_methods)
    INSTANCE_METHOD_OF = Module.instance_method(:instance_method)
    SINGLETON_METHODS = Kernel.instance_method(:singleton_methods)
    METHOD_OF = Kernel.instance_method(:method)
    SUPERCLASS = Class.instance_method(:superclass)

    # A module's name, or for an anonymous one where it was defined: the
    # first of its own methods written in Ruby (by file and line), else its
    # superclass. At stop the extension names the anonymous modules that
    # have such a method itself, by this same rule (naming.c,
    # defined_module_name): a change here is a change there.
    def self.module_name(mod)
      name = MODULE_NAME.bind_call(mod)
      return name if name && !name.include?("#<")

      kind = Class === mod ? "Class" : "Module"
      if (location = definition_location(mod))
        "#<#{kind}:#{location}>"
      elsif Class === mod && (superclass = SUPERCLASS.bind_call(mod))
        "#<Class < #{module_name(superclass)}>"
      else
        "#<#{kind}>"
      end
    end

    # "file:line" of the first of a module's own methods written in Ruby,
    # or nil. Every profile with anonymous owners asks this once for each
    # (Struct.new or Class.new in a loop: thousands at one stop), so it
    # keeps the earliest [file, line] as it goes, without an array of
    # all of them.
    def self.definition_location(mod)
      file = line = nil
      each_own_method(mod) do |location|
        next unless location
        next if file && ((order = location[0] <=> file) > 0 || (order.zero? && location[1] >= line))

        file, line = location
      end
      # Relative to the working directory, so that names do not depend on
      # where the project is checked out.
      file && "#{short_path(file)}:#{line}"
    end

    # Yields the source location (or nil) of each method a module defines
    # itself, instance methods of every visibility then singleton methods,
    # but not the templates ActionView compiles into its anonymous view
    # class: which of them exist depends on what has been rendered.
    def self.each_own_method(mod)
      INSTANCE_METHODS.bind_call(mod, false).each { |m| yield own_method_location(mod, m) }
      PRIVATE_INSTANCE_METHODS.bind_call(mod, false).each { |m| yield own_method_location(mod, m) }
      SINGLETON_METHODS.bind_call(mod, false).each { |m| yield METHOD_OF.bind_call(mod, m).source_location }
    end

    def self.own_method_location(mod, m)
      location = INSTANCE_METHOD_OF.bind_call(mod, m).source_location
      # Symbol#name is the symbol's own frozen string: no copy to ask.
      location unless location && m.name.include?("__") && template_name("##{m}", location[0])
    end

    # The extension names a profile's methods between begin_pass and
    # end_pass: the working directory is read once for all of them, and
    # each file shortened once.
    def self.begin_pass
      @pass = {pwd: Tracegraph.working_dir_prefix, paths: {}, owners: {}.compare_by_identity}
      nil
    end

    def self.end_pass
      @pass = nil
    end

    def self.short_path(file)
      pass = @pass
      return Tracegraph.short_path(file) unless pass

      pass[:paths][file] ||= Tracegraph.short_path(file, pwd: pass[:pwd])
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

    # ---- compiled templates ---------------------------------------------------

    # ActionView compiles each template into a method named from the
    # template's path, its String#hash (seeded per process) and its
    # object's id (Template#method_name, the same in Rails 6.1 to 7.2):
    #   _app_views_posts__post_html_erb___2873853593807101210_5160
    # ("-" becomes "_", so a negative hash gives three "_"). The method's
    # file is the template's own, so it is named by that path instead,
    # the same in every process: "app/views/posts/_post.html.erb", and its
    # blocks "block in app/views/posts/_post.html.erb".
    TEMPLATE_METHOD = /\A(?<block>block (?:\(\d+ levels\) )?in )?.*[#.]_(?<ident>[a-z_]+?)___?\d+_\d+\z/m

    # The template's name for a method `name` defined in `file`, or nil
    # when it is not a compiled template: the part of the name built from
    # the path must be what Rails builds from this file's path.
    def self.template_name(name, file)
      return nil unless file && name.include?("__") && (m = TEMPLATE_METHOD.match(name))
      return nil unless file.tr("^a-z_", "_").end_with?(m[:ident])

      "#{m[:block]}#{Tracegraph.short_path(file)}"
    end

    # ---- blocks ---------------------------------------------------------------

    # "block in ", "block (2 levels) in ": how Ruby's labels begin for blocks.
    BLOCK_PREFIX = /\Ablock (?:\((\d+) levels\) )?in /

    # A block's name, as backtraces print it but stable across Rubies:
    # "block in Foo#bar", "block (2 levels) in Foo.baz", with the enclosing
    # method named as tracegraph names methods (Ruby 3.4's backtraces name
    # the class too; 3.1 and 3.3 print "block in bar"). A define_method
    # method is a method, not a block, so the blocks in its body count
    # their levels from it. Blocks outside methods keep Ruby's label:
    # "block in <main>", "block in <top (required)>", "block in <class:Foo>".
    #
    #   label        Ruby's label of the block's iseq (or, without the VM
    #                reads, maybe the enclosing method's: then the block is
    #                found by its first line)
    #   owner, mid   the enclosing method's class and name (nil outside methods)
    #   line         the block's first line
    #   method_name  the enclosing method's tracegraph name (nil outside methods)
    def self.block_name(label, owner, mid, line, method_name)
      label = find_block_label(owner, mid, line) || "block in #{method_name}" if method_name && !BLOCK_PREFIX.match?(label)
      levels = block_levels(label)
      return label if levels.zero? || method_name.nil?

      levels -= block_levels(method_iseq(owner, mid)&.label.to_s)
      "#{levels > 1 ? "block (#{levels} levels) in " : 'block in '}#{method_name}"
    end

    # 1 for "block in x", n for "block (n levels) in x", 0 for other labels.
    def self.block_levels(label)
      m = BLOCK_PREFIX.match(label)
      m ? (m[1] || 1).to_i : 0
    end

    def self.method_iseq(owner, mid)
      return nil unless owner && mid && defined?(RubyVM::InstructionSequence)

      RubyVM::InstructionSequence.of(owner.instance_method(mid))
    rescue StandardError
      nil
    end

    # The label of the outermost block starting at `line` in the method.
    def self.find_block_label(owner, mid, line)
      queue = [method_iseq(owner, mid)].compact
      until queue.empty?
        iseq = queue.shift
        return iseq.label if iseq.first_lineno == line && BLOCK_PREFIX.match?(iseq.label)

        iseq.each_child { |child| queue << child }
      end
      nil
    rescue StandardError
      nil
    end
  end
end

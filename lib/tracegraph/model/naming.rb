# frozen_string_literal: true

module Tracegraph
  # Names for the owners Ruby itself would name by memory address:
  # anonymous classes and modules, and singleton classes of plain objects.
  # The same program must give the same names in every run, or diffs and
  # CI gates see methods come and go. Names are made at stop, never in
  # the hook.
  #
  #   Class.new { def run = 1 }       #<Class:app/jobs.rb:12>#run
  #   Struct.new(:a) (no Ruby methods) #<Class < Struct>#a
  #   ENV.fetch                        ENV.fetch   (an object held by a constant)
  #   def obj.hi (obj an Object)       #<Object>.hi
  #
  # The rule is implemented once, in the extension (naming.c, owner_name):
  # it names a profile's methods by it at stop, with a memo for that stop,
  # and module_name and object_name here ask it the same. What stays here is work
  # only Ruby does, which the extension calls and which names no owner:
  # constant_holding, template_name and block names.
  module Naming
    # A module's name, or for an anonymous one where it was defined: the
    # first of its own methods written in Ruby (by file and line, but not a
    # compiled template), else its superclass, else "#<Class>" or
    # "#<Module>". Module#name itself is read: a class may define its own
    # `name`, and no user code runs while naming.
    def self.module_name(mod)
      Tracegraph._module_name(mod)
    end

    # A plain object: the top-level constant that holds it (ENV, ARGF), or
    # its class: "#<Object>".
    def self.object_name(object)
      Tracegraph._object_name(object)
    end

    # The top-level constant that holds `object`, or nil (the extension
    # asks this for the singleton methods of plain objects).
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

    # How a block that shares its line with another of its level ends
    # (naming.c names it so at stop): " (column 17)", or where Ruby gives
    # no column " (2nd on line 7)". It is the block's own, not its owner's.
    BLOCK_PLACE = / \((?:column \d+|\d+(?:st|nd|rd|th) on line \d+)\)\z/

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
    #   in_line_block  (found by its line) the block runs inside another
    #                that starts on its line, Tracegraph.profile's own
    #                (block_frames.h): the outermost block nested in one
    #                on that line, not the outermost
    def self.block_name(label, owner, mid, line, method_name, in_line_block = false)
      if method_name && !BLOCK_PREFIX.match?(label)
        label = find_block_label(owner, mid, line, in_line_block) || "block in #{method_name}"
      end
      levels = block_levels(label)
      return label if levels.zero? || method_name.nil?

      levels -= block_levels(method_iseq(owner, mid)&.label.to_s)
      "#{levels > 1 ? "block (#{levels} levels) in " : 'block in '}#{method_name}"
    end

    # The methods' names for outputs that merge frames by name (folded
    # stacks, pprof, speedscope, the Firefox Profiler): where two methods
    # share a name but not a place (two blocks of one method on lines 263
    # and 273 are both "block in Font#kern"), each gets its line, as
    # blocks that share a line get their column (BLOCK_PLACE): "block in
    # Font#kern (line 263)", or its file and line when the files differ.
    # among: the methods whose names may collide (a view's: its tree
    # still lists the recording's methods, and a name the view does not
    # share stays whole, as in the view saved and loaded again).
    def self.distinct_names(methods, among: methods)
      places = Hash.new { |h, k| h[k] = [] }
      among.each { |m| places[m.name] << [m.file, m.line] }
      methods.map do |m|
        seen = places[m.name].uniq
        next m.name if seen.size < 2 || m.line.nil?

        where = seen.map(&:first).uniq.size == 1 ? "line #{m.line}" : "#{Tracegraph.short_path(m.file.to_s)}:#{m.line}"
        "#{m.name} (#{where})"
      end
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

    # The label of the outermost block starting at `line` in the method,
    # or with `nested`, of the outermost one inside such a block (else the
    # outermost).
    def self.find_block_label(owner, mid, line, nested = false)
      root = method_iseq(owner, mid)
      queue = root ? [[root, false]] : []
      outermost = nil
      until queue.empty?
        iseq, inside = queue.shift
        here = iseq.first_lineno == line && BLOCK_PREFIX.match?(iseq.label)
        return iseq.label if here && (!nested || inside)

        outermost ||= iseq.label if here
        iseq.each_child { |child| queue << [child, inside || here] }
      end
      outermost
    rescue StandardError
      nil
    end
  end
end

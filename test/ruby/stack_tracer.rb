# A reference tracer for test_exact_stacks.rb: plain TracePoint, no
# cleverness. It keeps one stack per thread and fiber and records, for
# one run,
#
#   edges:  {[caller_name, callee_name] => calls}
#   stacks: {"A#x;B#y" => calls}   (calls of each distinct call path)
#
# naming methods exactly as tracegraph does (see method_name in
# ext/tracegraph/binding/naming.c): "Class#meth" for instance methods under
# their defining class or module, "Mod.meth" for singleton methods of a
# class or module, "#<Object>.meth" for singleton methods of
# other objects, and the original name for aliases.
#
# With blocks: true it also listens to b_call and b_return, and a block
# is a frame of its own, named from the running Ruby's backtrace label of
# its frame and the enclosing method TracePoint reports, as
# Tracegraph::Naming.block_name builds it ("block in Foo#bar"). A
# define_method method's body is a block frame too, with its own b_call
# and b_return after the method's call and before its return: those are
# the method's, and are skipped (the block frame whose label and path are
# those of the method's own instruction sequence).
#
# TracePoint reports every return, also while exceptions, throw, break
# and Thread#kill unwind, so its stacks are exact without guessing, with
# two exceptions:
#
# - attr_writer/attr_reader methods, and Struct member accessors (which
#   Ruby reports as C calls since 3.3), run without a VM frame of their
#   own. Ruby reports their c_call, and their c_return only if they do
#   not raise (a FrozenError when the object is frozen). They call no
#   methods of their own, so they are counted as leaves and never pushed:
#   what runs while one raises (FrozenError#initialize, inspect) belongs
#   to its caller, as in Ruby's backtrace, which has no line for them
#   either.
# - While a SystemStackError unwinds, Ruby reports no returns at all
#   (vm.c, hook_before_rewind). A return that does not match the top of
#   its stack is recorded in #errors (the run cannot serve as a
#   reference); programs that overflow the stack are checked against
#   hand-written expectations instead.
class StackTracer
  # A live frame: its name, its call path's node, and the key a return
  # must match.
  Frame = Struct.new(:name, :node, :klass, :mid)

  # One stack (a thread's root fiber, or another fiber). skip counts the
  # open calls inside a method we leave out (Tracegraph's own start and
  # stop, which tracegraph does not see either, and our own methods):
  # nothing they call is part of the program.
  class Stack
    attr_reader :owner, :frames
    attr_accessor :skip

    def initialize(owner)
      @owner = owner
      @frames = []
      @skip = 0
    end
  end

  KEY = :__stack_tracer_stack

  attr_reader :edges, :errors

  # c_calls: also trace methods written in C, as tracegraph's option.
  # gate: a callable; while it returns false, events are ignored: pass
  #   -> { Tracegraph.running? } to record exactly while tracegraph does
  #   (other threads may run between our start and tracegraph's).
  # ignore_threads: threads whose events are ignored.
  # one_name_per_line: a callable; while it returns true, the blocks of
  #   one method that start on one line share the outermost one's name,
  #   as tracegraph names them through the public API (docs/rubies.md).
  def initialize(c_calls: true, blocks: false, gate: nil, ignore_threads: [], one_name_per_line: nil)
    @c_calls = c_calls
    @one_name_per_line = one_name_per_line
    @blocks = blocks
    @bodies = {}
    @gate = gate
    @ignored_threads = ignore_threads.to_h { |t| [t, true] }.compare_by_identity
    tracegraph = defined?(::Tracegraph) ? ::Tracegraph.singleton_class : nil
    # Tracegraph's calibration (at a start, inside Tracegraph.running?) is
    # recorded apart and thrown away: not part of any profile.
    calibration = defined?(::Tracegraph::Calibration) ? [::Tracegraph::Calibration.singleton_class, ::Tracegraph::Calibration::Subject] : []
    @ignored = [tracegraph, StackTracer, TracePoint, *calibration].compact
    @edges = Hash.new(0)
    # Call paths as a tree, so a call costs the same at any depth: node
    # ids index @paths ([parent id or nil, name]) and @path_calls.
    @path_ids = {}
    @paths = []
    @path_calls = []
    @errors = []
    @names = {}.compare_by_identity
    @frameless = {}
    events = c_calls ? %i[call return c_call c_return] : %i[call return]
    events += %i[b_call b_return] if blocks
    @tp = TracePoint.new(*events) { |tp| on_event(tp) }
  end

  # Records the block's run; returns self.
  def self.record(c_calls: true, &block)
    tracer = new(c_calls: c_calls)
    tracer.start
    begin
      block.call
    ensure
      tracer.stop
    end
    tracer
  end

  def start
    @tp.enable
    nil
  end

  def stop
    @tp.disable
    nil
  end

  # {"A#x;B#y" => calls}: the calls of each distinct path, over all stacks.
  def stacks
    names = []
    result = Hash.new(0)
    @paths.each_with_index do |(parent, name), id|
      names[id] = parent ? "#{names[parent]};#{name}" : name
      result[names[id]] += @path_calls[id]
    end
    result.to_h
  end

  private

  # Thread#[] is fiber-local: one stack per fiber of every thread, found
  # without allocating the thread's root Fiber object (Fiber.current
  # would; tracegraph's hook takes care not to, and the reference should
  # not change the world it observes).
  def current_stack
    stack = Thread.current[KEY]
    return stack if stack && stack.owner.equal?(self)

    Thread.current[KEY] = Stack.new(self)
  end

  def on_event(tp)
    return if @gate && !@gate.call
    return if !@ignored_threads.empty? && @ignored_threads.key?(Thread.current)

    stack = current_stack
    event = tp.event
    klass = tp.defined_class
    mid = tp.method_id
    return on_block_event(stack, tp, event, klass, mid) if event == :b_call || event == :b_return

    case event
    when :call, :c_call
      if stack.skip > 0
        stack.skip += 1
      elsif klass.nil? || mid.nil?
        nil # tracegraph ignores events it cannot name; so do we (and their returns)
      elsif @ignored.include?(klass)
        stack.skip = 1
      else
        push(stack, klass, mid, tp.self, event == :c_call && frameless?(klass, tp.callee_id))
      end
    when :c_return
      if stack.skip > 0
        stack.skip -= 1
      elsif klass && mid && !frameless?(klass, tp.callee_id)
        pop(stack, klass, mid, event)
      end
    else
      if stack.skip > 0
        stack.skip -= 1
      elsif klass.nil? || mid.nil?
        nil
      else
        pop(stack, klass, mid, event)
      end
    end
  end

  # ---- blocks ----------------------------------------------------------------

  def on_block_event(stack, tp, event, klass, mid)
    # The traced frame: below on_event and the TracePoint's block.
    frame = caller_locations(3, 1).first
    label = frame&.label.to_s
    path = tp.path
    if event == :b_call
      if stack.skip > 0
        stack.skip += 1
      elsif @ignored.include?(klass)
        stack.skip = 1
      elsif !method_body?(klass, mid, label, path)
        # Naming.block_name looks up the outermost block at the line
        # when the label it is given is not a block's.
        named = klass && mid && @one_name_per_line&.call ? "" : label
        name = Tracegraph::Naming.block_name(named, klass, mid, tp.lineno,
                                             klass && mid ? method_name(klass, mid, tp.self) : nil)
        push(stack, [:block, label, path], nil, nil, false, name)
      end
    elsif stack.skip > 0
      stack.skip -= 1
    elsif !method_body?(klass, mid, label, path)
      pop(stack, [:block, label, path], nil, event)
    end
  end

  # Is the block frame labelled `label` in `path` the body of the
  # define_method method (klass, mid)?
  def method_body?(klass, mid, label, path)
    return false unless klass && mid

    body = @bodies.fetch([klass, mid]) do
      iseq = begin
        RubyVM::InstructionSequence.of(klass.instance_method(mid))
      rescue StandardError
        nil
      end
      @bodies[[klass, mid]] = iseq && iseq.label.start_with?("block") ? [iseq.label, iseq.path] : nil
    end
    body == [label, path]
  end

  # Counts a call; pushes its frame unless it is a leaf without one.
  def push(stack, klass, mid, receiver, frameless = false, block_name = nil)
    name = block_name || method_name(klass, mid, receiver)
    parent = stack.frames.last
    @edges[[parent.name, name]] += 1 if parent
    key = [parent&.node, name]
    node = @path_ids[key] ||= (@paths << key; @path_calls << 0; @paths.size - 1)
    @path_calls[node] += 1
    stack.frames << Frame.new(name, node, klass, mid) unless frameless
  end

  # Methods without a frame of their own, among those reported as C
  # calls: attr_reader/attr_writer methods, which have a source location
  # (where attr_* was called), and a Struct's member accessors. Looked up
  # by the name they were called by: the original name may since have
  # been redefined (RubyGems' Kernel#require, whose C original it calls
  # by an alias).
  def frameless?(klass, callee)
    @frameless.fetch([klass, callee]) do
      location = begin
        klass.instance_method(callee).source_location
      rescue NameError
        nil
      end
      member = Class === klass && klass < Struct && klass.members.include?(callee.to_s.delete_suffix("=").to_sym)
      @frameless[[klass, callee]] = !location.nil? || member
    end
  end

  def pop(stack, klass, mid, event)
    top = stack.frames.last
    return if top.nil? # a return from a frame entered before we started

    if same_key?(top, klass, mid)
      stack.frames.pop
      return
    end
    if @errors.size < 20
      @errors << "unbalanced #{event} of #{(Array === klass ? nil : @names[klass]) || klass.inspect}#{mid} with #{top.name} on top " \
                 "(#{stack.frames.size} deep)"
    end
    # Keep going as well as we can: close up to the nearest frame of this
    # method, or leave the stack alone if there is none.
    index = stack.frames.rindex { |f| same_key?(f, klass, mid) }
    stack.frames.slice!(index..) if index
  end

  # Methods by identity of their class; blocks ([:block, label, path]) by value.
  def same_key?(frame, klass, mid)
    return frame.klass == klass if Array === klass

    frame.klass.equal?(klass) && frame.mid == mid
  end

  # ---- naming, as tracegraph's method_name ----------------------------------

  def method_name(klass, mid, receiver)
    owner = (@names[klass] ||= owner_name(klass, receiver))
    "#{owner}#{mid}"
  end

  # The owner part with its separator: "Foo#", "Foo.", "#<Object>.".
  # Owners Ruby names by address are named by Tracegraph::Naming, as
  # tracegraph does (test_naming.rb tests that naming itself).
  def owner_name(klass, receiver)
    return "#{class_path(klass)}#" unless klass.singleton_class?

    attached = attached_object(klass, receiver)
    if Module === attached
      "#{class_path(attached)}."
    elsif Kernel === attached
      "#{Tracegraph::Naming.object_name(attached)}."
    else
      @errors << "cannot name the singleton class of a BasicObject"
      "#<Class:?>#"
    end
  end

  # The permanent name, else Tracegraph::Naming's stable one.
  def class_path(mod) = Tracegraph::Naming.module_name(mod)

  # The object a singleton class belongs to: public since Ruby 3.2 (on
  # 3.3+, tracegraph's committed code still reads the hidden __attached__
  # ivar, which no longer names it: a known bug, mismatches there are
  # tracegraph's). On older Rubies, find it from the receiver: itself, or
  # for a class method called on a subclass, the ancestor whose singleton
  # class it is.
  # (Nothing here may raise: it runs inside the traced program.)
  def attached_object(klass, receiver)
    return klass.attached_object if klass.respond_to?(:attached_object)

    if Module === receiver
      found = receiver.ancestors.find { |m| m.singleton_class.equal?(klass) }
      return found if found
    end
    return receiver if (Kernel === receiver) && receiver.singleton_class.equal?(klass)

    @errors << "cannot tell whose singleton class #{klass.inspect} is"
    receiver
  end
end

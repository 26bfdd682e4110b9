require_relative "torture_helper"

# The profiler keeps classes as keys and pins them: the garbage collector
# running at every allocation, moving objects, or freeing thousands of
# classes mid-profile must not crash it or scramble its names.
class TestGCTorture < TortureTest
  class Base
    def ping = :pong
  end

  def define_and_call(n)
    Array.new(n) do |i|
      klass = Class.new(Base) do
        define_method(:work) { ping }
        attr_accessor :value
      end
      object = klass.new
      object.value = i
      object.work
      klass
    end
  end

  # GC.stress makes every allocation a full GC: any unmarked object the
  # profiler holds would be freed and show up as a crash or a bad name.
  # Run in a subprocess: that kind of bug kills the process.
  def test_gc_stress_while_defining_classes
    out, err, status = run_ruby(<<~RUBY)
      class Base; def ping = :pong; end
      def make(n) = Array.new(n) { Class.new(Base) { define_method(:work) { ping } }.new.work }
      GC.stress = true
      profile = Tracegraph.profile { make(#{Torture.scaled(8)}) }
      GC.stress = false
      anon = profile.methods.count { |m| m.name.match?(/\\A#<Class:.+:\\d+>#work\\z/) }
      sum_ok = profile.methods.sum(&:self_time) == profile.total_time
      puts [anon, profile["Base#ping"].calls, profile["Object#make"].calls, sum_ok].join(",")
    RUBY
    assert_no_crash status, err
    assert status.success?, err
    assert_equal "#{Torture.scaled(8)},#{Torture.scaled(8)},1,true", out.strip
  end

  # The stop names anonymous owners (naming.c keeps a memo of them and
  # their files while it does) with the collector compacting the heap at
  # every allocation: no name may point at a moved or freed object.
  def test_naming_under_gc_stress_and_compaction
    out, err, status = run_ruby(<<~RUBY)
      def make(n) = Array.new(n) { |i| [Class.new { define_method(:work) { i } }, Struct.new(:a) { def sum = 2 }] } # (3.4 records the accessor a, 3.1 does not)
      made = make(#{Torture.scaled(3)})
      Tracegraph.start
      made.each { |klass, struct| klass.new.work; struct.new(1).sum }
      made = nil
      GC.auto_compact = true
      GC.stress = true
      profile = Tracegraph.stop
      GC.stress = false
      names = profile.methods.map(&:name).grep(/#<Class/).tally.sort.map { |name, n| "\#{name} \#{n}" }
      puts names
    RUBY
    assert_no_crash status, err
    assert status.success?, err
    n = Torture.scaled(3)
    assert_equal ["#<Class:-e:1>#sum #{n}", "#<Class:-e:1>#work #{n}", "#<Class:-e:1>.new #{n}"], out.lines.map(&:strip)
  end

  # Threads first seen while GC.stress is on: registering a thread inside
  # the hook must not allocate (asking Ruby for a thread's root Fiber can,
  # and a GC inside the hook crashed the VM about one run in four).
  def test_gc_stress_with_threads_first_seen_in_the_hook
    out, err, status = run_ruby(<<~RUBY)
      def tick = [1, 2].sum
      def make(n) = Array.new(n) { Class.new { define_method(:work) { tick } }.new.work }
      rounds = #{Torture.scaled(6)}
      rounds.times do
        GC.stress = true
        profile = Tracegraph.profile do
          workers = Array.new(3) { Thread.new { 3.times { tick; Thread.pass } } }
          make(3)
          workers.each(&:join)
        end
        GC.stress = false
        abort "bad counts" unless profile["Object#tick"].calls == 12
      end
      puts rounds
    RUBY
    assert_no_crash status, err
    assert status.success?, err
    assert_equal Torture.scaled(6).to_s, out.strip
  end

  # Compaction moves every movable object; pinned keys must stay put and
  # methods found before and after must be the same entries.
  def test_compaction_mid_profile
    skip "needs GC.verify_compaction_references" unless GC.respond_to?(:verify_compaction_references)
    profile = Tracegraph.profile do
      define_and_call(50)
      GC.compact
      Base.new.ping
      GC.verify_compaction_references(double_heap: true, toward: :empty)
      define_and_call(50)
      Base.new.ping
    end
    assert_equal 102, method_named(profile, "TestGCTorture::Base#ping").calls
    assert_equal 1, method_named(profile, "GC.compact").calls
    assert_equal 100, profile.methods.count { |m| m.name.match?(/\A#<Class:.+:\d+>#work\z/) }
    assert_sane profile
  end

  # Class.new in a loop: every class is a new key, most are garbage by the
  # time the profile is built, and each still needs its name.
  def test_many_anonymous_classes_created_and_dropped
    n = Torture.scaled(10_000)
    profile = Tracegraph.profile(c_calls: false) do
      n.times { |i| Class.new { define_method(:tick) { i } }.new.tick }
      GC.start
    end
    ticks = profile.methods.select { |m| m.name.end_with?("#tick") }
    assert_equal n, ticks.size
    assert(ticks.all? { |m| m.calls == 1 && m.name.match?(/\A#<Class:.+:\d+>#tick\z/) })
    assert_sane profile
  end

  # Ruby methods are recognised in the hook by their method entry, a heap
  # object: one freed mid-profile must not lend its address, and with it
  # its statistics, to a method defined later.
  def test_methods_defined_called_and_removed
    n = Torture.scaled(3_000)
    holder = Class.new
    profile = Tracegraph.profile(c_calls: false) do
      n.times do |i|
        holder.class_eval("def m#{i} = #{i}", __FILE__, __LINE__)
        holder.new.public_send(:"m#{i}")
        holder.send(:remove_method, :"m#{i}")
        GC.start if i % 50 == 49
      end
    end
    defined = profile.methods.select { |m| m.name.match?(/#m\d+\z/) }
    assert_equal n, defined.size
    assert(defined.all? { |m| m.calls == 1 }, "calls attributed to the wrong method")
    assert_sane profile
  end
end

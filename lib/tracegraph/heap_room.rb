# Tracegraph::HeapRoom: gives the program's heap back the room that
# tracegraph's own objects take in it, so that a profiled program collects
# as often as it does without tracegraph.
#
# Ruby 3.1 grows its heap only when a collection leaves under a fifth of
# its slots free. Loading tracegraph leaves about 6,000 objects live: each
# collection of a small program then frees that many fewer slots, and it
# collects more often. A small loop of string work (ArithVsString in
# bench/accuracy_workloads.rb) collected 190 times a run with tracegraph
# loaded, against 108 without, and each of those collections lands in the
# time of whatever allocated. So, once loaded, the heap is grown by as
# many slots as loading left live: that many objects more than the heap
# has free are allocated while the collector is off; the next collection
# frees them, and the slots stay. The loop then collects 118 times.
#
# Only where the heap is one size of slot (3.1). Ruby 3.2 on keeps
# objects in pools by size and sizes those otherwise: there tracegraph
# costs the same loop less (3.3: 117 collections against 105; 3.4: 75
# against 82), and growing the pools so made 3.4 collect 128 times.
#
# Measured between two minor collections, one before loading and one
# after (about 1 and 3 ms in a small heap). Where tracegraph's objects are
# under 1% of the heap (a Rails app's), or the program has the collector
# off, nothing is grown; a heap of over a million slots is not measured. Depends on nothing of ours: lib/tracegraph.rb and
# the command load it first.
module Tracegraph
  module HeapRoom
    # Below this share of the heap's slots, tracegraph's objects change how
    # often it collects by too little to pay for the allocations.
    SMALL = 0.01
    # A heap of more slots than this is not measured at all: what loading
    # leaves (6,000-10,000 objects) is under 1% of it, and the two
    # collections took 12 ms in a heap of a million strings.
    LARGE = 1_000_000

    @depth = 0
    @before = nil

    class << self
      # Before loading: the live objects, after a minor collection. Nested
      # calls (the command loads lib/tracegraph.rb) count, so that the
      # outermost load's give_back does the work.
      def mark
        @depth += 1
        @before = live_slots if @depth == 1 && one_heap? && GC.stat(:heap_available_slots) <= LARGE && !collector_off?
      end

      # After loading: grows the heap by what loading left live, once, at
      # the outermost call. Returns the slots added.
      def give_back
        @depth -= 1 if @depth.positive?
        before = @before
        return 0 unless @depth.zero? && before

        @before = nil
        added = live_slots - before
        added.positive? && added >= SMALL * eden_slots ? grow(added) : 0
      end

      private

      # Ruby 3.2 on has GC.stat_heap, one heap per size of slot.
      def one_heap? = !GC.respond_to?(:stat_heap)

      def collector_off?
        off = GC.disable
        GC.enable unless off
        off
      end

      # Live slots after a minor collection that sweeps at once.
      def live_slots
        GC.start(full_mark: false, immediate_sweep: true)
        GC.stat(:heap_live_slots)
      end

      # The heap's slots in use by pages (a tomb page is an empty one Ruby
      # keeps to give back, and takes first when it needs a page).
      def eden_slots
        pages = GC.stat(:heap_eden_pages)
        GC.stat(:heap_available_slots) * pages / (pages + GC.stat(:heap_tomb_pages))
      end

      # Allocates objects until the heap has `count` more slots: the free
      # ones are taken first, then Ruby adds pages, the collector being
      # off. At most twice what that should take.
      def grow(count)
        return 0 if GC.disable # turned off meanwhile: left so

        begin
          start = eden_slots
          limit = 2 * (GC.stat(:heap_free_slots) + count) + 1_000
          made = 0
          while eden_slots < start + count && made < limit
            256.times { Object.new }
            made += 256
          end
          eden_slots - start
        ensure
          GC.enable
        end
      end
    end
  end
end

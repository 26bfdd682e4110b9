require_relative "test_helper"
require_relative "cli_helper"

# Tracegraph::HeapRoom: a small program collects about as often with
# tracegraph loaded, or run by the command, as without it. On Ruby 3.1
# (one heap), where loading tracegraph made a small loop of string work
# collect 1.7 times as often.
class TestHeapRoom < Minitest::Test
  include CliHelper

  # Prints how many collections a small loop of string work made: what a
  # short script allocates, beside a heap that loading may have filled.
  LOOP = <<~RUBY
    text = Array.new(40) { |i| "word\#{i} alpha beta, gamma; delta" }.join(" ")
    before = GC.count
    3_000.times { |i| i.even? ? text.split(" ") : text.scan(/\\w+/) }
    puts GC.count - before
  RUBY

  def setup
    @dir = Dir.mktmpdir("tracegraph-heap-room")
    skip "Ruby #{RUBY_VERSION} keeps a heap per size of slot: nothing is grown there" if GC.respond_to?(:stat_heap)
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def collections(out, err, status)
    assert status.success?, err
    Integer(out.lines.first)
  end

  def test_a_small_program_collects_as_often_with_tracegraph_as_without
    plain = write_script("plain.rb", LOOP)
    loaded = write_script("loaded.rb", "require 'tracegraph'\n#{LOOP}")
    without = collections(*ruby(plain))
    with_require = collections(*ruby(loaded))
    with_command = collections(*tracegraph("--no-gc", "-o", "out.json", plain))
    # Without the room given back: 1.7 times as many, here and in the command.
    assert_operator with_require, :<=, without * 1.15, "require: #{with_require} against #{without}"
    assert_operator with_command, :<=, without * 1.15, "command: #{with_command} against #{without}"
  end

  def test_nested_loads_grow_once_and_a_collector_turned_off_stays_off
    out, err, status = ruby("-e", <<~RUBY)
      require "tracegraph/heap_room"
      room = Tracegraph::HeapRoom
      room.mark
      room.mark
      keep = Array.new(20_000) { |i| "kept \#{i}" }
      inner = room.give_back
      outer = room.give_back
      again = room.give_back
      room.mark
      GC.disable
      more = Array.new(20_000) { |i| "more \#{i}" }
      off = room.give_back
      puts [inner, outer >= 20_000, again, off, GC.disable].inspect
    RUBY
    assert status.success?, err
    assert_equal "[0, true, 0, 0, true]", out.strip
  end

  # A heap of over a million slots (a big app's) is not measured: what
  # loading leaves is under 1% of it, and two collections cost 12 ms.
  def test_a_large_heap_is_left_alone
    out, err, status = ruby("-e", <<~RUBY)
      require "tracegraph/heap_room"
      app = Array.new(Tracegraph::HeapRoom::LARGE) { Object.new }
      count = GC.count
      Tracegraph::HeapRoom.mark
      collections = GC.count - count
      kept = Array.new(20_000) { |i| "kept \#{i}" }
      count = GC.count
      added = Tracegraph::HeapRoom.give_back
      puts [added, collections + GC.count - count].inspect
    RUBY
    assert status.success?, err
    assert_equal "[0, 0]", out.strip
  end
end

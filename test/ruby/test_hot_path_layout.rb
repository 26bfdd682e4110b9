# The code every event runs sits in one block of the built extension
# (TG_HOT_PATH, ext/tracegraph/core/tg_profiler.h), so that its cache
# lines are consecutive and share no L1 instruction-cache set more than
# they must with the program's own code. Where the link put them before,
# the hook's functions lay across 128 KB. Read from the symbols of the
# extension this Ruby loaded (nm, from binutils).
require_relative "test_helper"
require "open3"

class TestHotPathLayout < Minitest::Test
  # The hook's per-event functions (binding/event_hook.c) and the core's
  # (core/tg_profiler.c), by their names before any suffix GCC adds
  # (on_event.lto_priv.0, push_frame.constprop.0).
  HOT = %w[on_event on_event_public on_call on_return on_block push_frame pop_frame tg_profiler_return_rare].freeze
  # Functions are aligned to 16 bytes: up to 15 bytes of padding after each.
  PADDING = 16

  def extension
    require "tracegraph"
    $LOADED_FEATURES.find { |path| File.basename(path) == "tracegraph.so" } or flunk("tracegraph.so is not loaded")
  end

  # name => [start, size] of the extension's functions, the hot path's ones.
  def hot_symbols
    out, status = Open3.capture2("nm", "-S", extension)
    skip "nm is not installed (apt-get install binutils)" unless status.success?
    out.lines.filter_map do |line|
      address, size, type, name = line.split
      next unless name && type.casecmp?("t")

      base = name.sub(/\..*/, "")
      [name, [address.to_i(16), size.to_i(16)]] if HOT.include?(base) && !name.include?(".cold")
    end.to_h
  end

  def test_the_functions_every_event_runs_are_side_by_side
    symbols = hot_symbols
    found = symbols.keys.map { |name| name.sub(/\..*/, "") }.uniq
    assert_equal HOT.sort, found.sort, "hot-path functions missing from #{extension}"
    first = symbols.values.map(&:first).min
    last = symbols.values.map { |start, size| start + size }.max
    room = symbols.values.sum { |_, size| size + PADDING }
    assert_operator last - first, :<=, room,
                    "the hot path spans #{last - first} bytes for #{room} of code: other code lies between " \
                    "its functions (#{symbols.sort_by { |_, (start, _)| start }.map { |n, (s, _)| format('%s@%#x', n, s) }.join(', ')})"
  end
end

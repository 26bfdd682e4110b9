# Loaded with -r by bench/call_tree.rb: at exit, after everything else the
# process does, writes its peak RSS (VmHWM, kB) to $BENCH_PEAK_FILE.
at_exit do
  File.write(ENV.fetch("BENCH_PEAK_FILE"), File.read("/proc/self/status")[/^VmHWM:\s+(\d+)/, 1])
end

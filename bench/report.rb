# Turns the raw samples into the markdown report: machine, method, the
# slowdown table, the ratios that matter, run-to-run spread and memory.
require "etc"
require_relative "report_header"

class Report
  # The rows of the ratio table: [label, numerator config, denominator config].
  RATIOS = [
    ["tracegraph :wall ÷ floor + CLOCK_MONOTONIC", "tracegraph_wall", "floor_monotonic"],
    ["tracegraph :wall ÷ floor + rdtsc, block events too (bookkeeping alone)", "tracegraph_wall", "floor_tsc_blocks"],
    ["tracegraph :wall, blocks: false ÷ floor + rdtsc (bookkeeping alone)", "tracegraph_wall_no_blocks", "floor_tsc"],
    ["tracegraph :wall ÷ tracegraph :wall, blocks: false (what blocks cost)", "tracegraph_wall", "tracegraph_wall_no_blocks"],
    ["tracegraph :wall ÷ ruby-prof WALL_TIME", "tracegraph_wall", "ruby_prof_wall"],
    ["tracegraph :wall ÷ tracegraph :wall, gc: false (the GC hook)", "tracegraph_wall", "tracegraph_wall_no_gc"],
    ["tracegraph :wall, allocations: true ÷ tracegraph :wall (counting allocations)", "tracegraph_wall_allocations",
     "tracegraph_wall"],
    ["tracegraph :wall, c_calls: false ÷ floor: empty hook, call/return only", "tracegraph_wall_no_c", "floor_empty_no_c"],
    ["tracegraph :cpu ÷ floor + CLOCK_PROCESS_CPUTIME_ID", "tracegraph_cpu", "floor_process_cpu"],
    ["tracegraph :cpu ÷ ruby-prof PROCESS_TIME", "tracegraph_cpu", "ruby_prof_process"]
  ].freeze

  def initialize(samples:, memory:, accuracy:, runs:, call_tree: [], seed:, quick:, revision:, load:, started:, finished:, pin_cpu:,
                 repeat:)
    @samples = samples
    @pin_cpu = pin_cpu
    @repeat = repeat
    @memory = memory
    @accuracy = accuracy
    @call_tree = call_tree
    @runs = runs
    @seed = seed
    @quick = quick
    @revision = revision
    @load = load
    @started = started
    @finished = finished
    @workloads = samples.keys.map(&:last).uniq.sort
  end

  def markdown
    [header, slowdown_table, ratio_table, spread, memory_table, accuracy_table, call_tree_table].join("\n")
  end

  # {config => {workload => slowdown or nil}} for the measured configs.
  def slowdowns
    measured_configs.to_h do |config|
      [config.name, @workloads.to_h { |w| [w, slowdown(config.name, w)] }]
    end
  end

  private

  def median(values)
    sorted = values.sort
    mid = sorted.size / 2
    sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
  end

  def missing?(config, workload) = @samples.fetch([config, workload], [:missing]).include?(:missing)

  def measured_configs = Configs::ALL.select { |c| @samples.key?([c.name, @workloads.first]) }

  def seconds(config, workload) = median(@samples[[config, workload]])

  def slowdown(config, workload)
    return if missing?(config, workload)

    seconds(config, workload) / seconds("baseline", workload)
  end

  def cpu_model = ReportHeader.cpu_model

  def command
    env = []
    env << "BENCH_QUICK=1" if @quick
    env << "BENCH_RUNS=#{ENV['BENCH_RUNS']}" if ENV["BENCH_RUNS"] && !@quick
    env << "BENCH_SEED=#{@seed}"
    env << "BENCH_REPEAT=#{@repeat}" if ENV["BENCH_REPEAT"]
    env << "BENCH_CPU=#{ENV['BENCH_CPU']}" if ENV["BENCH_CPU"]
    "#{env.join(' ')} rake bench"
  end

  def header
    uname = Etc.uname
    <<~MD
      # tracegraph overhead#{' (BENCH_QUICK smoke run: tiny workloads, not meaningful numbers)' if @quick}

      - Date: #{@started.strftime('%Y-%m-%d %H:%M %Z')} (took #{(@finished - @started).round} s)
      - Machine: #{Etc.nprocessors} CPUs (nproc), #{cpu_model}, #{uname[:sysname]} #{uname[:release]}
      - Load average (1/5/15 min) at start: #{@load.first}; at end: #{@load.last}
        (other processes compete for the CPUs: compare with the spread below)
      - Ruby: #{RUBY_DESCRIPTION}
      - tracegraph: git #{@revision} (lib/ copied to tmp/bench/lib at the start)
      - Command: `#{command}`

      Each cell is the median of #{@runs} round#{'s' if @runs > 1}. In every round each configuration ×
      workload pair runs in a fresh `ruby` process (`bench/run_one.rb`) #{pinning}that runs the
      workload once under the configuration to warm up, then #{@repeat} more times, timed with
      `CLOCK_MONOTONIC`, and keeps the fastest of those; rounds visit the pairs in a
      new random order. The timed region
      is the whole profiled run: profiler start, the workload, profiler stop and
      building its result object (`Tracegraph.stop`'s Profile, ruby-prof's
      `Profile#stop`, stackprof's result hash). Nothing is printed or written.
      Slowdown = median profiled time ÷ median unprofiled time of the same workload
      in this run. The floors are C hooks on call/return/c_call/c_return built by the
      benchmark (`bench/floor/floor.c`) that do nothing, or only read a clock: no
      profiler reading the same clock can be faster. tracegraph's `:wall` reads the
      TSC where the kernel keeps time with it, so "floor + rdtsc" is its own
      floor, and the gap to it is its bookkeeping alone.
    MD
  end

  def pinning
    @pin_cpu ? "pinned to CPU #{@pin_cpu} with `taskset` " : ""
  end

  def self.table(head, rows)
    lines = [head, head.map { "---" }, *rows].map { |cells| "| #{cells.join(' | ')} |" }
    lines.join("\n") + "\n"
  end

  def slowdown_table
    rows = measured_configs.map do |config|
      cells = @workloads.map do |w|
        if missing?(config.name, w) then "not installed"
        elsif config.name == "baseline" then format("1.00× (%.1f ms)", seconds("baseline", w) * 1000)
        else format("%.2f×", slowdown(config.name, w))
        end
      end
      [config.label, *cells]
    end
    "## Slowdown (profiled ÷ unprofiled)\n\n" + table(["configuration", *@workloads], rows)
  end

  def ratio_table
    rows = RATIOS.map do |label, ours, theirs|
      cells = @workloads.map do |w|
        a = slowdown(ours, w)
        b = slowdown(theirs, w)
        a && b ? format("%.2f", a / b) : "n/a"
      end
      [label, *cells]
    end
    "## Ratios of slowdowns (below 1: tracegraph is faster)\n\n" + table(["ratio", *@workloads], rows)
  end

  def spread
    return "" if @runs < 2

    spreads = @samples.reject { |_, v| v.include?(:missing) }.map { |key, v| [v.max / v.min, key] }.sort
    worst, (config, workload) = spreads.last
    format("Run-to-run spread (slowest ÷ fastest of the %d rounds): median cell %.2f, worst %.2f (%s, %s).\n",
           @runs, spreads[spreads.size / 2].first, worst, config, workload)
  end

  def memory_table
    rows = @memory.map do |m|
      [m["profiled_calls"], m["profiled_methods"], m["edges"],
       "#{ms(m['unprofiled_s'])} → #{ms(m['profiled_s'])} (#{format('%.1f', m['profiled_s'] / m['unprofiled_s'])}×)",
       mb(m["while_profiling_kb"]), mb(m["after_stop_kb"]), mb(m["after_output_kb"]),
       ms(m["stop_s"]), ms(m["to_json_s"]), format("%.1f MB", m["json_bytes"] / 1e6),
       m["to_dot_s"] ? ms(m["to_dot_s"]) : "no to_dot"]
    end
    head = ["calls traced", "methods", "edges", "time (unprofiled → profiled)", "peak RSS + while profiling",
            "+ after stop", "+ after to_json/to_dot", "stop", "to_json", "JSON size", "to_dot"]
    <<~MD + table(head, rows)
      ## Memory and result building (`bench/memory.rb`)

      Tracegraph `:wall` with C calls, in a fresh process per row: leaf methods called
      from one group method per 100 leaves. Peak RSS growth is VmHWM from
      /proc/self/status compared with the peak after an unprofiled warm-up run of the
      same program. `stop` includes building the Profile; to_dot uses its defaults.

    MD
  end

  def accuracy_table
    rows = @accuracy.map do |a|
      ["`:#{a['clock']}`", a["scale"] == 1 ? "sparse (calls of 40 µs–1.2 ms)" : "dense (calls of 1–25 µs)",
       *%w[estimated_vs_exact estimated_vs_wall exact_vs_wall].map { |k| difference(a[k]) }]
    end
    head = ["clock", "events", "estimated vs exact", "estimated vs wall", "exact vs wall"]
    <<~MD + table(head, rows)
      ## CPU clock: estimated vs read on every event (`bench/cpu_accuracy.rb`)

      By default `:cpu` and `:thread_cpu` read the CPU clock only after gaps of 20 µs
      or more, after another thread ran, and every millisecond, and advance it with
      the monotonic clock in between (`exact_clock: true` reads it on every event).
      A CPU-bound workload of loops without calls (`c_calls: false`) runs in each mode
      alternately, 5 times; each cell is the largest relative difference in any
      method's or edge's share of self time, among those with at least 5% of it
      under the wall clock. The wall clock is a third opinion: on one busy thread
      it runs with the CPU clock and costs a vDSO read, not a system call. With
      dense events the exact clock's own system calls, paid inside the methods
      being timed, are what distort the picture (the loop driver gains several
      times its share); the estimate stays with the wall clock.

    MD
  end

  # The call tree at a million paths, one table per bench/call_tree.rb run.
  def call_tree_table
    @call_tree.map { |run| self.class.call_tree_markdown(run) }.join("\n")
  end

  def self.call_tree_markdown(run)
    rows = run.reject { |k, _| %w[sweeps memory].include?(k) }.map do |name, r|
      label = if name == "bare" then "the program alone"
              elsif name.start_with?("rubocop") then name.sub("rubocop: ", "rubocop under `tracegraph -o ").sub(/(out\.\S+)\z/, '\1`')
              else "`tracegraph -o #{name.sub(' capped at', ' --max-call-tree-nodes')}`".sub("100,000`", "100000`")
              end
      [label,
       format("%.2f s", r["seconds"]), format("%.1f MB", r["peak_mb"]),
       r["output_mb"].zero? ? "" : format("%.1f MB", r["output_mb"]), r["note"] ? "#{r['note']} folded" : ""]
    end
    m = run["memory"]
    <<~MD + table(["run", "wall time", "peak RSS", "output", "cap"], rows) + <<~MD2
      ## The call tree at a million paths (`bench/call_tree.rb`)

      `bench/million_paths.rb`: 6,853 methods, #{m['nodes']} distinct call paths
      (sweep > 3 methods > 49 > 6,800), swept #{run['sweeps']} times, run by the command with each stack
      output in a fresh process (wall time of the whole run, peak RSS from VmHWM).
      Nearly all of the time is the tracing itself: its 25 million calls go over
      #{m['edges']} distinct caller-callee edges, which miss the profiler's edge cache;
      stop takes about 0.3 s and each output under 0.6 s. Where rubocop is installed,
      the rubocop rows run it on its own first #{ENV.fetch("RUBOCOP_FILES", "40")} style cops (`RUBOCOP_FILES`).

    MD
      The call tree's own memory, from RSS growth over the same sweep recorded
      without it: #{m['recording_bytes_per_node']} bytes a node while recording (the node, its
      index entry and the tables' growth slack), #{m['after_stop_bytes_per_node']} bytes a node after stop
      (the 32-byte node alone; the index is freed).
    MD2
  end

  def table(head, rows)
    self.class.table(head, rows)
  end

  def difference(pair)
    name, value = pair
    format("%.1f%% (%s)", value * 100, name)
  end

  def mb(kb) = format("%.1f MB", kb / 1024.0)

  def ms(s) = format("%.0f ms", s * 1000)
end

# `rake bench`: profiler overhead against the floor and the peers; see
# bench/run.rb. BENCH_RUNS=n rounds (5), BENCH_REPEAT=n timed runs per process
# (3, fastest kept), BENCH_CPU=n (the last CPU; "none" to not pin),
# BENCH_QUICK=1 for a smoke run.
desc "Measure profiling overhead vs. a bare event hook, ruby-prof and stackprof; writes bench/RESULTS.md"
task bench: :compile do
  ruby "bench/run.rb"
  ruby "-Ilib", "bench/speedscope_size.rb"
  ruby "-Ilib", "bench/stop_and_draw.rb"
end

namespace :bench do
  desc "The call tree at a million paths alone (bench/call_tree.rb; part of rake bench); prints its table"
  task call_tree: :compile do
    ruby "-Ilib", "-rjson", "-r./bench/report", "-e",
         "puts Report.call_tree_markdown(JSON.parse(`\#{RbConfig.ruby} -Ilib bench/call_tree.rb`.lines.last))"
  end

  desc "speedscope's file against the folded file gzipped, on rubocop, and speedscope's importer on it " \
       "(bench/speedscope_size.rb; part of rake bench); writes bench/SPEEDSCOPE.md"
  task speedscope: :compile do
    ruby "-Ilib", "bench/speedscope_size.rb"
  end

  desc "Stopping and drawing 10,000 methods, of named and of anonymous classes, and stopping after 20,000 " \
       "anonymous classes made under GC.compact (bench/stop_and_draw.rb; part of rake bench); writes bench/STOP.md"
  task stop: :compile do
    ruby "-Ilib", "bench/stop_and_draw.rb"
  end

  desc "The real programs' call graphs at method level and by gem: boxes hold, drawing size, dot's time, " \
       "longest label line (bench/real_graphs.rb); prints the table of docs/real-programs.md"
  task graphs: :compile do
    ruby "-Ilib", "bench/real_graphs.rb"
  end

  desc "Each method's share of the run without tracegraph (a wrapper's timing, or stackprof's samples) against " \
       "its share in tracegraph's profiles, per configuration and over five fresh processes, on nine workloads " \
       "(bench/accuracy.rb; QUICK=1, CONFIGS, WORKLOADS); writes bench/ACCURACY.md"
  task accuracy: :compile do
    ruby "-Ilib", "bench/accuracy.rb"
  end

  desc "The calibrated cost, what was taken out per event, and a tiny method's share, over fresh processes, " \
       "with the machine as it is and beside a busy core (bench/calibration_stability.rb; PROCESSES); " \
       "writes bench/CALIBRATION.md"
  task calibration: :compile do
    ruby "-Ilib", "bench/calibration_stability.rb"
  end

  desc "What the correction leaves in per kind of call, in ns a call: profiled total less unprofiled time " \
       "(bench/call_kind_costs.rb; PROCESSES); writes bench/CALL_KINDS.md"
  task call_kinds: :compile do
    ruby "-Ilib", "bench/call_kind_costs.rb"
  end

  desc "Whether the hook slows the work between its events: five loops of one method each, unprofiled, under " \
       "an empty hook and under tracegraph with and without its collector events " \
       "(bench/work_between_events.rb; PROCESSES); writes bench/WORK_BETWEEN_EVENTS.md"
  task work_between_events: :compile do
    ruby "-Ilib", "bench/work_between_events.rb"
  end

  desc "Where an event's cost falls, counted by callgrind (instructions, cache misses, mispredicts per event): the " \
       "VM's side, tracegraph's hook, and elsewhere, which nothing times (bench/footprint.rb; WORKLOADS); " \
       "writes bench/FOOTPRINT.md"
  task footprint: :compile do
    ruby "-Ilib", "bench/footprint.rb"
  end

  desc "Profile#group_by on rubocop's call tree of about 1.45 million paths, recorded and saved (bench/group_by.rb); " \
       "prints its table"
  task group_by: :compile do
    ruby "-Ilib", "bench/group_by.rb"
  end

  desc "The CI gate's false alarms and detection: 31 unchanged and 30 slowed measurements (bench/gate.rb); writes bench/GATE.md"
  task gate: :compile do
    ruby "-Ilib", "bench/gate.rb"
  end

  desc "The CI gate by gem on a jekyll build whose plugin's C method is 20% slower: 11 unchanged and 10 " \
       "slowed measurements of --runs 5 (bench/gate.rb); writes bench/GATE-jekyll-gem.md"
  task gate_by_gem: :compile do
    sh({"GATE_WORKLOAD" => "jekyll", "GATE_GROUP_BY" => "gem", "GATE_RUNS" => "5", "GATE_PAIRS" => "10",
        "GATE_COMMAND" => "rake bench:gate_by_gem"}, RbConfig.ruby, "-Ilib", "bench/gate.rb")
  end

  desc "Grouped views of jekyll, asciidoctor, an rspec suite and a Rails request: arrows within 100% and " \
       "their callees' totals, the (C) methods box's share (bench/grouped_truth.rb); writes bench/GROUPED.md"
  task grouped: :compile do
    ruby "-Ilib", "bench/grouped_truth.rb"
  end

  desc "What profiling one Rails request costs, the response and the writing after it, with and without the " \
       "call tree, and what it leaves behind (bench/rails_request.rb; BENCH_RAILS_ROUNDS, 30; BENCH_RAILS_AFTER, " \
       "1000); writes bench/RAILS.md"
  task rails: :compile do
    ruby "-Ilib", "bench/rails_request.rb"
  end

  desc "Whether a profile leaves a YJIT process as fast as before, and what a profiled Rails request costs the " \
       "requests after it, in the 3.4-yjit chroot (bench/yjit.rb; root); writes bench/YJIT.md"
  task :yjit do
    # The chroot's copy of the checkout has no .git: the commit goes along.
    commit = `git -C #{ROOT} rev-parse --short HEAD 2>/dev/null`.strip
    markdown = IO.popen({"BENCH_COMMIT" => commit}, [File.join(ROOT, "bin/ruby-chroot"), "3.4-yjit", "sh", "-c",
                                                     "rake compile >&2 && ruby -Ilib bench/yjit.rb"], &:read)
    fail "bench:yjit failed" unless $?.success?
    File.write(File.join(ROOT, "bench/YJIT.md"), markdown)
    puts markdown
  end

  desc "The overhead ratios on the host Ruby and every chroot Ruby (RUBIES, as test:rubies; root); writes bench/RUBIES.md"
  task rubies: :compile do
    ruby "bench/rubies.rb"
  end
end

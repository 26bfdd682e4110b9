# `rake bench:rubies`: the overhead on every supported Ruby, side by side.
#
# Runs bench/run.rb (BENCH_OVERHEAD_ONLY=1) under the host Ruby and under
# each chroot Ruby of `rake test:rubies` (bin/ruby-chroot), with the
# configurations that answer "does the overhead hold on this Ruby?": the
# floors and tracegraph's :wall with and without C calls, and ruby-prof
# where Debian builds it for that Ruby. Each Ruby is measured in its own
# run, so only ratios within a row compare; they are what the table shows.
# Writes bench/RUBIES.md.
require "json"
require "open3"
require "rbconfig"
require_relative "configs"
require_relative "report"

ROOT = File.expand_path("..", __dir__)
CONFIGS = %w[floor_monotonic floor_tsc tracegraph_wall tracegraph_wall_no_c floor_empty_no_c ruby_prof_wall].freeze
RUBIES = ENV.fetch("RUBIES", "3.3 3.4").split(/[\s,]+/)
# rake bench's ratios, those between the configurations measured here.
RATIOS = Report::RATIOS.select { |_, ours, theirs| CONFIGS.include?(ours) && CONFIGS.include?(theirs) }.freeze

def measure(label, command)
  warn "bench:rubies: #{label}"
  env = {"BENCH_OVERHEAD_ONLY" => "1", "BENCH_CONFIGS" => CONFIGS.join(",")}
  out, status = Open3.capture2e(env, *command)
  abort "bench:rubies: #{label} failed:\n#{out}" unless status.success?
  JSON.parse(out.lines.grep(/\A\{"ruby"/).last || abort("bench:rubies: no result from #{label}:\n#{out}"))
end

def ratio(slowdowns, ours, theirs, workload)
  a = slowdowns.dig(ours, workload)
  b = slowdowns.dig(theirs, workload)
  a && b ? format("%.2f", a / b) : "n/a"
end

results = [measure("host Ruby #{RUBY_VERSION}", [RbConfig.ruby, "bench/run.rb"])]
RUBIES.each do |version|
  results << measure("Ruby #{version} (chroot)", [File.join(ROOT, "bin/ruby-chroot"), version, "sh", "-c",
                                                 "rake compile >/dev/null && ruby bench/run.rb"])
end

workloads = results.first["slowdowns"].values.first.keys
lines = ["# tracegraph overhead on every supported Ruby", "",
         "- Date: #{Time.now.utc.strftime('%Y-%m-%d %H:%M UTC')}; command: `rake bench:rubies` " \
         "(#{ENV.fetch('BENCH_RUNS', '5')} rounds per Ruby)",
         "- Machine: #{File.read('/proc/cpuinfo')[/^model name\s*:\s*(.+)$/, 1]}, #{`nproc`.strip} CPUs",
         "",
         "Each Ruby runs `bench/run.rb` with the floors, tracegraph `:wall` and ruby-prof, in its own",
         "process per cell, exactly as `rake bench` does (see bench/RESULTS.md for the method). Each",
         "cell is a ratio of slowdowns measured in the same run on the same Ruby (below 1: tracegraph",
         "is faster). n/a: that Ruby has no ruby-prof from Debian.", ""]
RATIOS.each do |label, ours, theirs|
  lines << "## #{label}" << ""
  lines << "| Ruby | #{workloads.join(' | ')} |" << "| --- |#{' --- |' * workloads.size}"
  results.each do |r|
    lines << "| #{r['ruby'][/\Aruby (\S+)/, 1]} | #{workloads.map { |w| ratio(r['slowdowns'], ours, theirs, w) }.join(' | ')} |"
  end
  lines << ""
end
lines << "## Slowdowns (profiled ÷ unprofiled)" << ""
results.each do |r|
  lines << "#{r['ruby']}:" << "" << "| configuration | #{workloads.join(' | ')} |" << "| --- |#{' --- |' * workloads.size}"
  r["slowdowns"].each do |config, cells|
    lines << "| #{config} | #{workloads.map { |w| cells[w] ? format('%.2f×', cells[w]) : 'not installed' }.join(' | ')} |"
  end
  lines << ""
end
File.write(File.join(ROOT, "bench/RUBIES.md"), lines.join("\n"))
puts lines.join("\n")
warn "bench:rubies: wrote bench/RUBIES.md"

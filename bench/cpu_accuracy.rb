# How close the estimated CPU clock (the default for :cpu and :thread_cpu)
# comes to reading the CPU clock on every event (exact_clock: true), on a
# CPU-bound workload: each method's share of self time, compared across the
# two. Runs both modes alternately, several times, in this one process and
# prints one JSON line.
#
# The workload spends its time in loops without method calls (while loops
# on integers, traced with c_calls: false), so events are sparse and the
# exact clock's own cost (a system call per event on many machines, which
# the method being timed pays for) does not distort what it measures.
require "json"
require "tracegraph"

module CpuAccuracy
  def self.spin(n)
    i = x = 0
    while i < n
      x = (x * 31 + i) & 0xffff
      i += 1
    end
    x
  end

  # scale 1: calls of about 40 us to 1.2 ms, mostly above the estimate's
  # 20 us gap, so real readings dominate. scale 0.02: calls of 1 to 25 us,
  # where the estimate does almost all the work.
  def self.workload(scale)
    small, medium, large, other = [2_000, 20_000, 60_000, 5_000].map { |n| (n * scale).round }
    (200 / scale).round.times do
      small(small)
      medium(medium)
      large(large)
      spin(other)
    end
  end

  def self.small(n) = spin(n)
  def self.medium(n) = spin(n)
  def self.large(n) = spin(n)

  # Share of the total self time of each method and of each caller->callee
  # edge (spin's self time when called from small, medium, ...), for those
  # with at least 1%.
  def self.shares(profile)
    total = profile.total_time.to_f
    parts = profile.methods.map { |m| [m.name, m.self_time] } +
            profile.edges.map { |e| ["#{e.caller.name} -> #{e.callee.name}", e.self_time] }
    parts.filter_map { |name, time| [name, time / total] if time / total >= 0.01 }.to_h
  end
end

clock = (ARGV[0] || "cpu").to_sym
rounds = Integer(ARGV[1] || 5)
scale = Float(ARGV[2] || 1)
CpuAccuracy.workload(scale)
# The wall clock as a third opinion: on one CPU-bound thread it runs with
# the CPU clock, and it is cheap to read (vDSO), so it does not distort.
runs = {estimated: [], exact: [], wall: []}
rounds.times do
  runs.each_key do |mode|
    options = {clock: mode == :wall ? :wall : clock, c_calls: false, exact_clock: mode == :exact}
    runs[mode] << CpuAccuracy.shares(Tracegraph.profile(**options) { CpuAccuracy.workload(scale) })
  end
end
mean = runs.transform_values do |list|
  list.flat_map(&:keys).uniq.to_h { |name| [name, list.sum { |s| s.fetch(name, 0.0) } / list.size] }
end
names = mean[:wall].select { |_, share| share >= 0.05 }.keys
# The largest relative difference between two modes' shares, and where.
worst = lambda do |a, b|
  names.map { |n| [n, (mean[a].fetch(n, 0.0) - mean[b].fetch(n, 0.0)).abs / mean[b].fetch(n, 0.0)] }.max_by(&:last)
end
puts JSON.generate(clock: clock, rounds: rounds, scale: scale, compared: names,
                   estimated_vs_exact: worst.call(:estimated, :exact), estimated_vs_wall: worst.call(:estimated, :wall),
                   exact_vs_wall: worst.call(:exact, :wall),
                   shares: names.to_h { |n| [n, %i[exact estimated wall].map { |m| mean[m].fetch(n, 0.0).round(4) }] })

# Four threads doing call-heavy CPU work. They pass the GVL often, so even a
# short run switches threads thousands of times: this measures the per-thread
# bookkeeping (shadow stacks, per-thread clocks) as well as per-call cost.
module Workloads
  module Threads
    def self.leaf(i) = i * 3 % 7

    def self.work(n)
      acc = 0
      n.times do |i|
        acc += leaf(i)
        Thread.pass if (i % 500).zero?
      end
      acc
    end
  end

  calls = quick? ? 2_000 : 55_000
  register("threads") { Array.new(4) { Thread.new { Threads.work(calls) } }.each(&:join) }
end

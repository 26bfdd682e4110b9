# Recursion of a tiny Ruby method: nearly every instruction is a call or a
# return, so this is the worst case for a tracing profiler.
module Workloads
  module Fib
    def self.fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
  end

  depth = quick? ? 15 : 26
  register("fib") { Fib.fib(depth) }
end

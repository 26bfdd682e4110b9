# The program bench/gate.rb profiles: a few hundred milliseconds of work in
# a handful of methods. GATE_SLOWDOWN=1.2 makes one method, String#count
# (called from Workload#count_letters), 20% slower with exactly the same
# calls: it counts a text 20% longer. Everything else is unchanged.
SLOWDOWN = Float(ENV.fetch("GATE_SLOWDOWN", "1"))

class Workload
  TEXT = "lorem ipsum dolor sit amet, consectetur adipiscing elit " * 2000
  COUNTED = TEXT * 5 + TEXT[0, ((SLOWDOWN - 1) * TEXT.bytesize * 5).round].to_s
  NUMBERS = Array.new(20_000) { |i| (i * 7919) % 10_007 }

  def count_letters = 400.times.sum { COUNTED.count("a-m") }
  def sort_numbers = 100.times { NUMBERS.sort }
  def checksum = 200.times.sum { TEXT.sum(32) }
  def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

  def run
    count_letters
    sort_numbers
    checksum
    fib(20)
  end
end

Workload.new.run

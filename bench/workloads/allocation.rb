# Allocation-heavy: short-lived strings, arrays, hashes and structs, so GC
# runs often. Shows what a profiler adds when time goes to the allocator and
# GC rather than to calls (and whether GC work is attributed sanely).
module Workloads
  module Allocation
    Point = Struct.new(:x, :y)

    def self.round(i)
      point = Point.new(i, i * 2)
      record = {id: i, label: "point-#{i}", coords: [point.x, point.y]}
      record[:label].upcase.bytes.sum + record[:coords].map { |c| c.to_s * 2 }.size
    end
  end

  count = quick? ? 2_000 : 30_000
  register("allocation") { count.times { |i| Allocation.round(i) } }
end

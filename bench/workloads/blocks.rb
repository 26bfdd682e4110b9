# Block-heavy everyday Ruby: small methods that iterate with each, map,
# select, each_with_object and inject over short arrays and hashes, and
# yield to blocks of their own. Most calls here start a block, so this
# is where blocks as frames (b_call and b_return on every block) cost
# the most.
module Workloads
  module Blocks
    Order = Struct.new(:id, :lines)
    ORDERS = Array.new(20) { |i| Order.new(i, Array.new(8) { |j| {sku: "s#{j}", qty: (i + j) % 5, price: j * 3} }) }

    def self.each_line(order)
      order.lines.each { |line| yield line }
    end

    def self.total(order)
      sum = 0
      each_line(order) { |line| sum += line[:qty] * line[:price] }
      sum
    end

    def self.round
      totals = ORDERS.map { |order| total(order) }
      big = ORDERS.select { |order| order.lines.any? { |line| line[:qty] > 3 } }
      by_sku = ORDERS.each_with_object(Hash.new(0)) do |order, acc|
        order.lines.each { |line| acc[line[:sku]] += line[:qty] }
      end
      [totals.inject(0) { |a, b| a + b }, big.size, by_sku.size]
    end
  end

  rounds = quick? ? 20 : 2000
  register("blocks") { rounds.times { Blocks.round } }
end

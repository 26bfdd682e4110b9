# A small CSV-to-JSON job, the kind of code whose cost is its garbage:
#   tracegraph --allocations --size-by allocations -o allocs.svg examples/allocations.rb
# The graph shows which methods allocate the objects, and how many.
require "json"

# 2,000 rows of "id,name,city,amount".
CSV_TEXT = (1..2000).map { |i| "#{i},name#{i},city#{i % 17},#{i * 3}.50" }.join("\n")

class Importer
  FIELDS = %i[id name city amount].freeze

  def rows(text) = text.each_line(chomp: true).map { |line| parse(line) }

  def parse(line) = FIELDS.zip(line.split(",")).to_h

  def typed(row) = row.merge(id: Integer(row[:id]), amount: Float(row[:amount]))

  def by_city(rows) = rows.group_by { |row| row[:city] }

  def report(groups)
    groups.transform_values { |rows| {count: rows.size, total: rows.sum { |row| row[:amount] }.round(2)} }
  end

  def run(text)
    typed_rows = rows(text).map { |row| typed(row) }
    JSON.generate(report(by_city(typed_rows)))
  end
end

5.times { Importer.new.run(CSV_TEXT) }

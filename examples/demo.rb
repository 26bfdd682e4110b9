# The program from "DIY Ruby CPU profiling, Part IV": profile it with
#
#   tracegraph -o call_graph.pdf examples/demo.rb
#
# (from a checkout: `rake demo`, or `ruby -Ilib exe/tracegraph ...`).
def main
  3.times do
    find_many_square_roots
    find_many_squares
  end
end

def find_many_square_roots
  5000.times { |i| Math.sqrt(i) }
end

def find_many_squares
  5000.times { |i| i**2 }
end

main

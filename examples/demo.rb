# The seed program from "DIY Ruby CPU profiling, Part IV", profiled by
# tracegraph. Run it with:  ruby -Ilib examples/demo.rb
# then open call_graph.pdf (or call_graph.dot with any Graphviz viewer).
require "tracegraph"

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

profile = Tracegraph.profile { main }

profile.print_flat(limit: 10)
profile.write_dot("call_graph.dot")
profile.write_json("call_graph.json")
if system("dot", "-Tpdf", "call_graph.dot", "-o", "call_graph.pdf")
  puts "\nWrote call_graph.pdf (and call_graph.dot, call_graph.json)"
else
  puts "\nWrote call_graph.dot and call_graph.json; install Graphviz (`dot`) to render call_graph.pdf"
end

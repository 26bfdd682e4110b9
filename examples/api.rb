# Profiling from code: the block form, the flat table and the outputs.
# Run from a checkout with: ruby -Ilib examples/api.rb
require "tracegraph"

def slow_sum(n) = (1..n).sum { |i| Math.sqrt(i) }
def fast_sum(n) = n * (n + 1) / 2

profile = Tracegraph.profile(clock: :cpu) do
  10.times { slow_sum(20_000) }
  10.times { fast_sum(20_000) }
end

profile.print_flat(limit: 8)
puts "slow_sum: #{profile['Object#slow_sum'].calls} calls, #{(profile['Object#slow_sum'].total_seconds * 1000).round(1)} ms"
profile.write_dot("api_graph.dot")       # dot -Tpdf api_graph.dot -o api_graph.pdf
profile.write_json("api_profile.json")   # Tracegraph::Profile.load_json("api_profile.json")

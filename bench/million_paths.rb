# A synthetic program shaped like a big application run for the call-tree
# benchmark (bench/call_tree.rb): 6,853 methods and 999,751 distinct call
# paths (sweep > a0..a2 > b0..b48 > c0..c6799), swept SWEEPS times (25 by
# default: 25.0 million calls, as many as rubocop checking its own source).
SWEEPS = Integer(ENV.fetch("SWEEPS", "25"))
A, B, C = 3, 49, 6800

module MillionPaths; end
source = Array.new(C) { |k| "def c#{k} = nil" }
source += Array.new(B) { |j| "def b#{j}\n#{Array.new(C) { |k| "c#{k}" }.join("\n")}\nend" }
source += Array.new(A) { |i| "def a#{i}\n#{Array.new(B) { |j| "b#{j}" }.join("\n")}\nend" }
source << "def sweep\n#{Array.new(A) { |i| "a#{i}" }.join("\n")}\nend"
MillionPaths.module_eval(source.join("\n"))
MillionPaths.extend(MillionPaths)

SWEEPS.times { MillionPaths.sweep }

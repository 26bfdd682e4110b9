# Profile#reached_only_through: the methods that some methods decide
# alone. A Hash key collision (String#hash is seeded per process) calls
# the key's eql?, which calls what it compares by, which may call more:
# in one process and not the next. What only such methods call comes and
# goes with them; a gate that exempts them (tracegraph diff --exempt)
# must exempt it too.
module Tracegraph
  class Profile
    # The methods for which the block is true, and every method that only
    # they, or methods only they reach, call, at any depth (a method's
    # calls of itself aside): {method => true}, by identity. A method
    # with more calls than its edges bring was called from the top of a
    # thread too, which no method decides.
    def reached_only_through
      callers = Hash.new { |h, k| h[k] = [] }.compare_by_identity
      callees = Hash.new { |h, k| h[k] = [] }.compare_by_identity
      called = Hash.new(0).compare_by_identity
      edges.each do |e|
        called[e.callee] += e.calls
        next if e.caller.equal?(e.callee)

        callers[e.callee] << e.caller
        callees[e.caller] << e.callee
      end
      methods.each { |m| callers[m] << nil if m.calls > called[m] }
      reached = {}.compare_by_identity
      todo = methods.select { |m| yield m }
      todo.each { |m| reached[m] = true }
      until todo.empty?
        callees[todo.pop].each do |m|
          next if reached[m] || !callers[m].all? { |c| reached[c] }

          reached[m] = true
          todo << m
        end
      end
      reached
    end
  end
end

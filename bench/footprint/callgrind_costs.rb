# The self costs in a callgrind output file (valgrind --tool=callgrind),
# summed by object (the shared library or executable the code is in):
# {"libruby-3.1.so.3.1" => {"Ir" => ..., "I1mr" => ...}, ...}. The file
# format is valgrind's (docs: "Callgrind Format Specification"): `events:`
# names the columns; `ob=` sets the object, with name compression ("(3)
# name" the first time an object is named, in `ob=` or in a call's `cob=`;
# "(3)" after); a cost line is a position then the costs, trailing zeros
# left out; the cost line after `calls=` is the call's inclusive cost,
# which belongs to its callee and is skipped here.
module CallgrindCosts
  module_function

  def by_object(path)
    events = nil
    objects = {}
    current = nil
    skip_next = false
    totals = Hash.new { |h, k| h[k] = Hash.new(0) }
    File.foreach(path) do |line|
      case line
      when /\Aevents:\s*(.+)/ then events = Regexp.last_match(1).split
      when /\A(c?)ob=\((\d+)\)(?: (.+))?/
        called, id, name = Regexp.last_match.captures
        objects[id] = File.basename(name.strip) if name
        current = objects.fetch(id) if called.empty?
      when /\Acalls=/ then skip_next = true
      when /\A[+\-*\d]/
        if skip_next
          skip_next = false
          next
        end
        next unless current && events

        costs = line.split.drop(1)
        costs.each_with_index { |value, i| totals[current][events[i]] += Integer(value) }
      end
    end
    raise ArgumentError, "#{path}: no `events:` line: not a callgrind output file" unless events

    totals.transform_values(&:to_h)
  end
end

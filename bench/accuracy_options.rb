# The profiler configurations of bench/accuracy.rb, written as the CONFIGS
# environment variable writes them: a list separated by ";", each entry the
# options of one Tracegraph.profile call as Ruby writes a hash, with or
# without its braces:
#
#   CONFIGS='{}; c_calls: false; {clock: :cpu, c_calls: false}'
#
# Values may be true, false, nil, integers, floats, :symbols and "strings";
# nothing is evaluated, so a typo is an error here, not code run in the
# bench. An option the profiler does not know is not an error here: the
# bench prints n/a for it (Tracegraph.profile raises ArgumentError).
module AccuracyOptions
  DEFAULT = "{}; c_calls: :all; c_calls: false; raw_times: true"

  # "a: 1; {b: :x}" => [{a: 1}, {b: :x}]
  def self.parse_list(text)
    entries = text.split(";").map(&:strip).reject(&:empty?)
    raise ArgumentError, "CONFIGS is empty" if entries.empty?

    entries.map { |entry| parse(entry) }
  end

  # "{c_calls: false, clock: :cpu}" or "c_calls: false, clock: :cpu" => {c_calls: false, clock: :cpu}
  def self.parse(text)
    body = text.strip
    body = body[1...-1].strip if body.start_with?("{") && body.end_with?("}")
    body.split(",").map(&:strip).reject(&:empty?).to_h do |pair|
      key, value = pair.split(/:\s+/, 2)
      raise ArgumentError, "#{pair.inspect} in #{text.inspect}: not key: value" unless value && key.match?(/\A\w+\z/)

      [key.to_sym, literal(value.strip, text)]
    end
  end

  def self.literal(value, text)
    case value
    when "true" then true
    when "false" then false
    when "nil" then nil
    when /\A-?\d[\d_]*\z/ then Integer(value)
    when /\A-?\d[\d_]*\.\d+\z/ then Float(value)
    when /\A:(\w+[?!]?)\z/ then Regexp.last_match(1).to_sym
    when /\A"([^"\\]*)"\z/ then Regexp.last_match(1)
    else raise ArgumentError, "#{value.inspect} in #{text.inspect}: not true, false, nil, a number, a :symbol or a \"string\""
    end
  end

  # The column heading: {} => "{}", {c_calls: false} => "c_calls: false".
  def self.label(options)
    return "{}" if options.empty?

    options.map { |key, value| "#{key}: #{value.inspect}" }.join(", ")
  end
end

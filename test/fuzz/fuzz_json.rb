# fuzz_json.rb - a bounded, seeded mutation fuzzer for Profile.parse_json
# and Profile.load_json.
#
# Mutates a valid profile's JSON text (bytes flipped, cut, repeated,
# structural characters and hostile values spliced in) and asserts that
# the reader either loads it or raises Tracegraph::FormatError, nothing
# else. Every eighth input goes through a file and load_json instead,
# sometimes replaced by random bytes or read with a max_bytes it exceeds.
# The profile has a call tree, with allocation counts. A loaded profile
# must also render to DOT and JSON, and be grouped (from its tree when
# it has one, in C).
#   ruby -Ilib test/fuzz/fuzz_json.rb [iterations] [seed]
require "tracegraph"
require "fileutils"
require "tmpdir"

ITERATIONS = Integer(ARGV[0] || ENV.fetch("FUZZ_JSON_ITERATIONS", "20000"))
SEED = Integer(ARGV[1] || ENV.fetch("FUZZ_SEED", "1"))
SPLICES = ['"', "{", "}", "[", "]", ",", ":", "null", "-1", "1.5", "1e400", "2e19", "18446744073709551616",
           '"x"', "true", "\\u0000", "\\ud800", "\xFF".b, "\0", "[[[[[[[[[[", "NaN", " "].freeze

def leaf = :leaf
def seed_text
  profile = Tracegraph.profile(call_tree: true, allocations: true) { 3.times { leaf }; [1].map { leaf } }
  profile.to_json.b
end

def mutate(text, rng)
  text = text.dup
  rng.rand(1..4).times do
    pos = rng.rand(text.bytesize + 1)
    case rng.rand(5)
    when 0 then text[pos, 1] = rng.rand(256).chr.b                       # flip a byte
    when 1 then text = text.byteslice(0, pos)                             # truncate
    when 2 then text.insert(pos, SPLICES.sample(random: rng).b)           # splice a token
    when 3 then text[pos, rng.rand(1..20)] = ""                           # delete a run
    else text.insert(pos, text.byteslice(rng.rand(text.bytesize + 1), rng.rand(1..40)) || "")  # repeat
    end
  end
  text.force_encoding(Encoding::UTF_8)
end

rng = Random.new(SEED)
base = seed_text
counts = Hash.new(0)
file = File.join(Dir.mktmpdir("tracegraph-fuzz-json"), "input.json")
at_exit { FileUtils.rm_rf(File.dirname(file)) }
ITERATIONS.times do |i|
  via_file = (i % 8).zero?
  text = via_file && rng.rand(4).zero? ? rng.bytes(rng.rand(0..4096)) : mutate(base, rng)
  max_bytes = via_file && rng.rand(4).zero? ? rng.rand(1..text.bytesize + 1) : nil
  begin
    profile = if via_file
                File.binwrite(file, text)
                Tracegraph::Profile.load_json(file, max_bytes: max_bytes)
              else
                Tracegraph::Profile.parse_json(text)
              end
    profile.to_dot(node_fraction: 0, edge_fraction: 0)
    profile.to_json
    profile.group_by(:class)
    counts[:loaded] += 1
  rescue Tracegraph::FormatError => e
    counts[:rejected] += 1
    next if e.message.valid_encoding? && !e.message.include?("\n")

    warn "fuzz_json: iteration #{i} (seed #{SEED}): not one line of UTF-8: #{e.message.inspect[0, 400]}"
    exit 1
  rescue StandardError, SystemStackError, NoMemoryError => e
    warn "fuzz_json: iteration #{i} (seed #{SEED}): #{e.class}: #{e.message[0, 200]}"
    warn "input#{via_file ? " (from a file, max_bytes #{max_bytes.inspect})" : ''}: #{text.inspect[0, 2000]}"
    exit 1
  end
end
puts "fuzz_json: #{ITERATIONS} inputs, #{counts[:loaded]} loaded, #{counts[:rejected]} rejected (seed #{SEED})"

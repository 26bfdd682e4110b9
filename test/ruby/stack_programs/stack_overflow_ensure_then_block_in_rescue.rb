# SystemStackError through a method whose ensure calls a method that calls
# another; the caller rescues and calls its marker from a block. The
# ensure's method frame dies silently only after its ensure clause ran,
# so it must still be found dead when the rescue clause calls. Checked
# against hand-checked expectations; see stack_overflow_rescued_by_caller.rb
# for the rules.
module StackPrograms
  module StackOverflowEnsureThenBlockInRescue
    NAME = name
    LONG_RUN = 100
    RECURSIVE = ["#{NAME}.descend"].freeze

    def self.descend = descend
    def self.cleanup = helper
    def self.helper = :helper
    def self.recovered = :recovered
    def self.after = :after

    def self.with_ensure
      descend
    ensure
      cleanup
    end

    def self.run
      begin
        with_ensure
      rescue SystemStackError
        [1].each { recovered }
      end
      after
    end

    # With blocks, the rescue clause's block is a frame between.
    BLOCK = "block in #{NAME}.run".freeze

    # Array#each is a frame with C calls traced, and always where it is
    # written in Ruby (Ruby 3.4 with YJIT on defines it in <internal:array>).
    def self.each_traced?(c_calls) = c_calls || !Array.instance_method(:each).source_location.nil?

    def self.expected_edges(c_calls, blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      each = each_traced?(c_calls)
      recovered_by = blocks ? BLOCK : (each ? "Array#each" : q[:run])
      edges = {
        [q[:run], q[:with_ensure]] => 1,
        [q[:with_ensure], q[:descend]] => 1,
        [q[:descend], q[:descend]] => :many,
        [q[:with_ensure], q[:cleanup]] => 1,
        [q[:cleanup], q[:helper]] => 1,
        [q[:run], q[:after]] => 1,
      }
      edges[[q[:run], "Module#==="]] = 1 if c_calls
      edges[[q[:run], "Array#each"]] = 1 if each
      edges[["Array#each", BLOCK]] = 1 if blocks && each
      edges[[q[:run], BLOCK]] = 1 if blocks && !each
      edges[[recovered_by, q[:recovered]]] = 1
      edges
    end

    def self.expected_stacks(c_calls, blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      run = q[:run]
      with_ensure = "#{run};#{q[:with_ensure]}"
      stacks = { run => 1, with_ensure => 1, "#{with_ensure};..." => :many, "#{with_ensure};#{q[:cleanup]}" => 1,
                 "#{with_ensure};#{q[:cleanup]};#{q[:helper]}" => 1, "#{run};#{q[:after]}" => 1 }
      (1..LONG_RUN).each { |k| stacks[([with_ensure] + [q[:descend]] * k).join(";")] = 1 }
      each = each_traced?(c_calls)
      stacks["#{run};Module#==="] = 1 if c_calls
      stacks["#{run};Array#each"] = 1 if each
      path = [run, ("Array#each" if each), (BLOCK if blocks)].compact.join(";")
      stacks[path] = 1 if blocks
      stacks["#{path};#{q[:recovered]}"] = 1
      stacks
    end
  end
end

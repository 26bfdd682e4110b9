# SystemStackError rescued 31 frames deep and turned into a RangeError,
# which then unwinds the 31 frames above (these returns Ruby does report)
# to the rescuer at the top. Checked against hand-checked expectations;
# see stack_overflow_rescued_by_caller.rb for the rules.
module StackPrograms
  module StackOverflowConvertedAtDepth
    NAME = name
    LONG_RUN = 100
    RECURSIVE = ["#{NAME}.descend"].freeze
    DEPTH = 30

    def self.approach(n)
      return convert_overflow if n == 0

      approach(n - 1)
    end

    def self.convert_overflow
      descend
    rescue SystemStackError
      converted
      raise RangeError, "too deep"
    end

    def self.descend = descend
    def self.converted = :converted
    def self.handled = :handled
    def self.after = :after

    def self.guarded
      approach(DEPTH)
    rescue RangeError
      handled
    end

    def self.run
      guarded
      after
    end

    def self.expected_edges(c_calls, _blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      edges = {
        [q[:run], q[:guarded]] => 1,
        [q[:guarded], q[:approach]] => 1,
        [q[:approach], q[:approach]] => DEPTH,
        [q[:approach], q[:convert_overflow]] => 1,
        [q[:convert_overflow], q[:descend]] => 1,
        [q[:descend], q[:descend]] => :many,
        [q[:convert_overflow], q[:converted]] => 1,
        [q[:guarded], q[:handled]] => 1,
        [q[:run], q[:after]] => 1,
      }
      if c_calls
        edges[[q[:convert_overflow], "Module#==="]] = 1     # SystemStackError === $!
        edges[[q[:convert_overflow], "Kernel#raise"]] = 1
        edges[["Kernel#raise", "Exception.exception"]] = 1  # RangeError.exception("too deep")
        edges[["Exception.exception", "Exception#initialize"]] = 1
        edges[[q[:convert_overflow], "Exception#backtrace"]] = 1 # after raise's frame is gone
        edges[[q[:guarded], "Module#==="]] = 1              # RangeError === $!
      end
      edges
    end

    def self.expected_stacks(c_calls, _blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      run = q[:run]
      guarded = "#{run};#{q[:guarded]}"
      approach = ->(k) { ([guarded] + [q[:approach]] * k).join(";") }
      convert = "#{approach[DEPTH + 1]};#{q[:convert_overflow]}"
      stacks = { run => 1, guarded => 1, convert => 1, "#{convert};..." => :many,
                 "#{convert};#{q[:converted]}" => 1, "#{guarded};#{q[:handled]}" => 1, "#{run};#{q[:after]}" => 1 }
      (1..DEPTH + 1).each do |k|
        stacks[approach[k]] = 1
      end
      (1..LONG_RUN).each { |k| stacks[([convert] + [q[:descend]] * k).join(";")] = 1 }
      if c_calls
        stacks["#{convert};Module#==="] = 1
        stacks["#{convert};Kernel#raise"] = 1
        stacks["#{convert};Kernel#raise;Exception.exception"] = 1
        stacks["#{convert};Kernel#raise;Exception.exception;Exception#initialize"] = 1
        stacks["#{convert};Exception#backtrace"] = 1
        stacks["#{guarded};Module#==="] = 1
      end
      stacks
    end
  end
end

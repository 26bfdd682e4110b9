# SystemStackError rescued 51 frames deep (and then 3 deep): the frames
# above the rescuer are gone, the 50 below it return normally. Checked
# against hand-checked expectations (TracePoint misses the returns while
# a SystemStackError unwinds); see stack_overflow_rescued_by_caller.rb
# for the rules.
module StackPrograms
  module StackOverflowRescuedMidRecursion
    NAME = name
    LONG_RUN = 100
    RECURSIVE = ["#{NAME}.plunge"].freeze

    def self.approach(n)
      return plunge_guarded if n == 0

      approach(n - 1)
    end

    def self.plunge_guarded
      plunge
    rescue SystemStackError
      caught
    end

    def self.plunge = plunge
    def self.caught = :caught
    def self.after = :after

    def self.run
      approach(50)
      after
      approach(2)
      after
    end

    def self.expected_edges(c_calls, _blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      edges = {
        [q[:run], q[:approach]] => 2,
        [q[:approach], q[:approach]] => 50 + 2,
        [q[:approach], q[:plunge_guarded]] => 2,
        [q[:plunge_guarded], q[:plunge]] => 2,
        [q[:plunge], q[:plunge]] => :many,
        [q[:plunge_guarded], q[:caught]] => 2,
        [q[:run], q[:after]] => 2,
      }
      if c_calls
        edges[[q[:plunge_guarded], "Module#==="]] = 2
      end
      edges
    end

    def self.expected_stacks(c_calls, _blocks = true)
      q = ->(m) { "#{NAME}.#{m}" }
      run = q[:run]
      approach = ->(k) { ([run] + [q[:approach]] * k).join(";") }
      stacks = Hash.new(0)
      stacks[run] = 1
      stacks["#{run};#{q[:after]}"] = 2
      [51, 3].each do |depth| # approach(50) is 51 frames deep at n = 0
        (1..depth).each do |k|
          stacks[approach[k]] += 1
        end
        guarded = "#{approach[depth]};#{q[:plunge_guarded]}"
        stacks[guarded] += 1
        (1..LONG_RUN).each { |k| stacks[([guarded] + [q[:plunge]] * k).join(";")] += 1 }
        stacks["#{guarded};..."] = :many
        stacks["#{guarded};#{q[:caught]}"] += 1
        stacks["#{guarded};Module#==="] += 1 if c_calls
      end
      stacks.to_h
    end
  end
end

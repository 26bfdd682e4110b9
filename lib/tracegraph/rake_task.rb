# A rake task that profiles a script with the tracegraph command:
#
#   require "tracegraph/rake_task"
#   Tracegraph::RakeTask.new(:profile) do |t|
#     t.script = "bench/app.rb"
#     t.output = "tmp/call_graph.pdf"
#   end
#
# `rake profile` then runs `tracegraph -o tmp/call_graph.pdf bench/app.rb`
# in a fresh Ruby process.
require "rake"
require "rake/tasklib"
require "rbconfig"

module Tracegraph
  class RakeTask < Rake::TaskLib
    EXE = File.expand_path("../../exe/tracegraph", __dir__)
    LIB = File.expand_path("..", __dir__)

    attr_accessor :name, :script, :args, :output, :clock, :c_calls, :options, :description

    def initialize(name = :profile)
      super()
      @name = name
      @args = []
      @output = "call_graph.dot"
      @c_calls = true
      @options = [] # further tracegraph flags, e.g. ["--max-nodes", "40"]
      yield self if block_given?
      raise ArgumentError, "Tracegraph::RakeTask #{name}: set t.script" unless script
      define
    end

    def command
      cmd = [RbConfig.ruby, "-I#{LIB}", EXE, "-o", output.to_s]
      cmd += ["--clock", clock.to_s] if clock
      cmd << "--no-c-calls" unless c_calls
      cmd << "--all-c-calls" if c_calls == :all
      cmd + options.map(&:to_s) + [script.to_s] + args.map(&:to_s)
    end

    private

    def define
      desc(description || "Profile #{script} into #{output}")
      task(name) do
        dir = File.dirname(output.to_s)
        mkdir_p(dir) unless File.directory?(dir)
        sh(*command)
      end
    end
  end
end

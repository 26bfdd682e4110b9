# The workload registry. Each file in bench/workloads/ registers one callable
# under its file name; BENCH_QUICK=1 asks for tiny sizes (a CI smoke run).
module Workloads
  DIR = File.join(__dir__, "workloads")
  @callables = {}

  def self.names = Dir[File.join(DIR, "*.rb")].map { |path| File.basename(path, ".rb") }.sort

  def self.quick? = ENV["BENCH_QUICK"] == "1"

  def self.register(name, &callable)
    @callables[name.to_s] = callable
  end

  def self.load(name)
    raise ArgumentError, "unknown workload #{name.inspect} (have: #{names.join(', ')})" unless names.include?(name)

    require File.join(DIR, name)
    @callables.fetch(name)
  end
end

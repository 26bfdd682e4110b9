# Shared by the torture tests: how hard to push, a subprocess runner for
# cases that could kill the test runner, and the invariants every profile
# must keep however badly the profiled program behaved.
require_relative "../ruby/test_helper"
require "open3"
require "tmpdir"
require "rbconfig"

module Torture
  # `rake torture` sets TORTURE_SCALE=10; plain `rake test` runs at 1.
  SCALE = Integer(ENV.fetch("TORTURE_SCALE", "1"))
  LIB = File.expand_path("../../lib", __dir__)

  def self.scaled(n) = n * SCALE

  # assert_consistent, plus what a reader of the numbers relies on: totals
  # never below self times, every name readable and free of NULs.
  def assert_sane(profile)
    assert_consistent profile
    profile.methods.each do |m|
      assert_operator m.total_time, :>=, m.self_time, m.name
      assert m.name.valid_encoding?, "name not valid UTF-8: #{m.name.inspect}"
      refute m.name.include?("\0"), "name holds a NUL: #{m.name.inspect}"
      next if Tracegraph::Profile::GC_NODES.include?(m.name) && m.file.nil? && !m.c_method

      assert_match(/\S[#.]\S/, m.name, "name lost its owner or method part")
    end
    known = profile.methods.to_h { |m| [m.object_id, true] }
    profile.edges.each do |e|
      assert known[e.caller.object_id] && known[e.callee.object_id], "edge to a method not in the profile"
      assert_operator e.calls, :>, 0
    end
  end

  # Runs `code` in a fresh Ruby with tracegraph loadable (the load path is
  # taken from this process, so an ASan run tests its own build). Returns
  # [stdout, stderr, Process::Status]; a crash shows as a signal here
  # instead of killing the test runner.
  def run_ruby(code, env: {})
    load_path = $LOAD_PATH.select { |d| d.start_with?(File.expand_path("../..", __dir__)) }
    load_path = [LIB] if load_path.empty?
    args = load_path.flat_map { |d| ["-I", d] }
    Open3.capture3(env, RbConfig.ruby, *args, "-rtracegraph", "-e", code)
  end

  def assert_no_crash(status, stderr)
    refute status.signaled?, "killed by signal #{status.termsig}:\n#{stderr}"
    refute_match(/\[BUG\]|Segmentation fault|AddressSanitizer/, stderr)
  end
end

class TortureTest < TracegraphTest
  include Torture
end

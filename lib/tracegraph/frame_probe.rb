module Tracegraph
  # Calls of known shapes. The extension watches them once, at the first
  # start, to measure how far apart two frames sit on Ruby's VM stack and
  # to check every VM-internal read it makes before trusting it (see
  # ext/tracegraph/binding/ruby_vm_probe.c). Their order and shapes are what the probe
  # expects: change both together.
  module FrameProbe
    def self.run
      outer
      through_c
      bmethod
      matched
    end

    def self.outer = inner
    def self.inner = nil
    # A method, a C method (BasicObject#instance_exec), a block, a method.
    def self.through_c = instance_exec { inner }
    define_singleton_method(:bmethod) { inner }
    # A method that has set $~, which moves its method entry into an svar.
    def self.matched = (/x/ =~ "x"; inner)

    # What the probe found, in words: which of the hook's two paths
    # records, on which Ruby, and why (docs/rubies.md). nil before the
    # first start has probed; FrameProbe.verdict! probes first if need be.
    def self.verdict(found = Tracegraph._vm_probe_verdict, ruby = RUBY_VERSION)
      case found
      when :checked then "VM reads checked on #{ruby}"
      when :turned_off then "public API only: TRACEGRAPH_NO_VM_READS is set (Ruby #{ruby})"
      when :not_recognised then "public API only: Ruby #{ruby}'s frame layout was not recognised"
      end
    end

    # The verdict, after a start and stop that record nothing if no start
    # has probed yet (the probe runs at the first).
    def self.verdict!
      unless Tracegraph._vm_probe_verdict || Tracegraph.running?
        Tracegraph.start
        Tracegraph.stop
      end
      verdict
    end
  end
end

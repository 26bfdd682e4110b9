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
    end

    def self.outer = inner
    def self.inner = nil
    # A method, a C method (BasicObject#instance_exec), a block, a method.
    def self.through_c = instance_exec { inner }
    define_singleton_method(:bmethod) { inner }
  end
end

module Tracegraph
  # Two nested Ruby calls. The extension watches them once, at the first
  # start, to measure how far apart two frames sit on Ruby's VM stack; it
  # uses frame positions to keep its shadow stacks in step when Ruby skips
  # return events (see ext/tracegraph/tracegraph.c, section 2).
  module FrameProbe
    def self.outer = inner
    def self.inner = nil
  end
end

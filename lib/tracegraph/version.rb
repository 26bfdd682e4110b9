module Tracegraph
  VERSION = "0.1.0"
end

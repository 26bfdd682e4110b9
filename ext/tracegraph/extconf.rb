# Builds the Ruby extension: the binding (tracegraph.c) plus the plain-C
# core files beside it (tg_*.c), which CMake also builds for the C tests.
require "mkmf"

$CFLAGS << " -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-parameter"
$CFLAGS << " -O2" unless $CFLAGS.include?("-O")
# Link-time optimisation lets the hook (tracegraph.c) inline the core's
# per-event functions (tg_profiler.c) across files.
unless ENV["TRACEGRAPH_ASAN"]
  $CFLAGS << " -flto"
  $LDFLAGS << " -flto"
end
if ENV["TRACEGRAPH_ASAN"]
  $CFLAGS << " -fsanitize=address -fno-omit-frame-pointer"
  $LDFLAGS << " -fsanitize=address"
end

create_makefile("tracegraph/tracegraph")

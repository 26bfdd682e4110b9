# Builds the floor hook (floor.c) with the same flags as the tracegraph
# extension, so the comparison is between hooks, not compilers. Run from a
# build directory under tmp/: the benchmark compiles it fresh each time.
require "mkmf"

$CFLAGS << " -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-parameter"
$CFLAGS << " -O2" unless $CFLAGS.include?("-O")
create_makefile("tracegraph_bench_floor")

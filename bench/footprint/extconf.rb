# Builds collect.c (callgrind's collection switch) for bench/footprint.rb,
# from a build directory under tmp/.
require "mkmf"

abort "valgrind/callgrind.h is missing: apt-get install valgrind" unless have_header("valgrind/callgrind.h")
$CFLAGS << " -std=c11 -Wall -Wextra -Wno-unused-parameter" # ruby.h has unused parameters
create_makefile("tracegraph_bench_collect")

# Builds the Ruby extension: the binding (tracegraph.c) plus the plain-C
# core files beside it (tg_*.c), which CMake also builds for the C tests.
require "mkmf"

$CFLAGS << " -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-parameter"
$CFLAGS << " -O2" unless $CFLAGS.include?("-O")
# Only Init_tracegraph is exported. Everything else stays inside the .so,
# so the hook (tracegraph.c) calls the core's per-event functions
# (tg_profiler.c) directly rather than through the PLT, and link-time
# optimisation can inline them across files.
$CFLAGS << " -fvisibility=hidden"
# -flto=auto: the link splits the work as it sees fit, without the warning
# plain -flto gives once the code is big enough for two partitions.
unless ENV["TRACEGRAPH_ASAN"]
  $CFLAGS << " -flto=auto"
  $LDFLAGS << " -flto=auto"
end
if ENV["TRACEGRAPH_ASAN"]
  $CFLAGS << " -fsanitize=address -fno-omit-frame-pointer"
  $LDFLAGS << " -fsanitize=address"
end

# Singleton classes name their object through the public API since Ruby
# 3.2; 3.1 keeps it in the hidden __attached__ instance variable.
have_func("rb_class_attached_object", "ruby.h")

create_makefile("tracegraph/tracegraph")

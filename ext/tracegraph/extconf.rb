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
  # Heap and globals only: no stack redzones. Ruby (not sanitized) unwinds
  # exceptions with longjmp straight past our frames, so the redzones of a
  # skipped frame stay poisoned; a later Ruby frame at that depth then
  # trips ASan's clock_gettime interceptor (a false "stack" error, and an
  # internal CHECK while describing it). The core's stack buffers are
  # checked by `rake test:sanitize`, which runs the C tests with full ASan.
  $CFLAGS << " -fsanitize=address --param asan-stack=0 -fno-omit-frame-pointer"
  $LDFLAGS << " -fsanitize=address"
end

# Singleton classes name their object through the public API since Ruby
# 3.2; 3.1 keeps it in the hidden __attached__ instance variable.
have_func("rb_class_attached_object", "ruby.h")

create_makefile("tracegraph/tracegraph")

# Builds the Ruby extension from two folders:
#   core/     plain C11 that never includes ruby.h (CMake also builds it alone
#             for the Check tests);
#   binding/  the only C that includes ruby.h.
# mkmf compiles only the sources beside this file unless told otherwise, so the
# two folders go in $srcs and $VPATH. mkmf names each object by its basename,
# so no two sources may share one, even in different folders.
require "mkmf"

SOURCE_DIRS = %w[core binding].map { |dir| File.join(__dir__, dir) }
$srcs = SOURCE_DIRS.flat_map { |dir| Dir[File.join(dir, "*.c")] }.sort
basenames = $srcs.map { |src| File.basename(src) }
duplicates = basenames.select { |name| basenames.count(name) > 1 }.uniq
abort "extconf.rb: two sources named #{duplicates.join(', ')}; mkmf needs unique basenames" unless duplicates.empty?
$VPATH.concat(SOURCE_DIRS)
SOURCE_DIRS.each { |dir| $INCFLAGS << " -I#{dir}" }

$CFLAGS << " -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wno-unused-parameter"
$CFLAGS << " -O2" unless $CFLAGS.include?("-O")
# Only Init_tracegraph is exported. Everything else stays inside the .so,
# so the hook (binding/event_hook.c) calls the core's per-event functions
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

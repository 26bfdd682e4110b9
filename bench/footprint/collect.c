/* Switches callgrind's counting on and off around the code measured
 * (bench/footprint.rb runs the process with --collect-atstart=no): the
 * process's start, the workload's setup, the calibration and building the
 * profile are left out. Outside valgrind the request is a no-op. */
#include <ruby.h>
#include <valgrind/callgrind.h>

static VALUE collect_toggle(VALUE mod)
{
    (void)mod;
    CALLGRIND_TOGGLE_COLLECT;
    return Qnil;
}

void Init_tracegraph_bench_collect(void)
{
    VALUE mod = rb_define_module("TracegraphBenchCollect");
    rb_define_singleton_method(mod, "toggle", collect_toggle, 0);
}

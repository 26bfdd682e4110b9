/* The floor: the cheapest possible tracing profiler. It registers the same
 * kind of event hook as tracegraph (raw trace arg, call/return/c_call/c_return)
 * and does nothing, or only reads one clock, per event. A real profiler can
 * only be slower; the gap to this floor is what its bookkeeping costs. */
#include <ruby.h>
#include <ruby/debug.h>
#include <time.h>

#define FLOOR_EVENTS (RUBY_EVENT_CALL | RUBY_EVENT_RETURN | RUBY_EVENT_C_CALL | RUBY_EVENT_C_RETURN)

static clockid_t floor_clock;
/* Volatile so the compiler cannot drop the clock read as dead code. */
static volatile struct timespec floor_last;

static void empty_hook(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    (void)arg;
}

static void clock_hook(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    (void)arg;
    struct timespec ts;
    clock_gettime(floor_clock, &ts);
    floor_last = ts;
}

static void add_hook(void (*hook)(VALUE, rb_trace_arg_t *))
{
    rb_add_event_hook2((rb_event_hook_func_t)(void (*)(void))hook, FLOOR_EVENTS, Qnil,
                       RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
}

/* TracegraphBenchFloor.start(clock_id): clock_id is nil for the empty hook,
 * or a Process::CLOCK_* constant to read that clock once per event. */
static VALUE floor_start(VALUE mod, VALUE clock_id)
{
    (void)mod;
    if (NIL_P(clock_id)) {
        add_hook(empty_hook);
    } else {
        floor_clock = (clockid_t)NUM2INT(clock_id);
        add_hook(clock_hook);
    }
    return Qnil;
}

static VALUE floor_stop(VALUE mod)
{
    (void)mod;
    rb_remove_event_hook((rb_event_hook_func_t)(void (*)(void))empty_hook);
    rb_remove_event_hook((rb_event_hook_func_t)(void (*)(void))clock_hook);
    return Qnil;
}

void Init_tracegraph_bench_floor(void)
{
    VALUE mod = rb_define_module("TracegraphBenchFloor");
    rb_define_singleton_method(mod, "start", floor_start, 1);
    rb_define_singleton_method(mod, "stop", floor_stop, 0);
}

/* The floor: the cheapest possible tracing profiler. It registers the same
 * kind of event hook as tracegraph (raw trace arg, call/return/c_call/c_return)
 * and does nothing, or only reads one clock, per event. A profiler reading
 * the same clock can only be slower; the gap to this floor is what its
 * bookkeeping costs. The TSC variant reads the counter tracegraph's wall
 * clock reads where the kernel keeps time with it (ext/tracegraph/core/tg_tsc.h),
 * so its gap is tracegraph's bookkeeping alone. */
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

static void tsc_hook(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    (void)arg;
#if defined(__x86_64__)
    floor_last.tv_nsec = (long)__builtin_ia32_rdtsc();
#endif
}

static rb_event_flag_t floor_events;

static void add_hook(void (*hook)(VALUE, rb_trace_arg_t *))
{
    rb_add_event_hook2((rb_event_hook_func_t)(void (*)(void))hook, floor_events, Qnil,
                       RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
}

/* TracegraphBenchFloor.start(clock_id, c_calls, blocks = false): clock_id
 * is nil for the empty hook, :tsc to read the time-stamp counter, or a
 * Process::CLOCK_* constant to read that clock once per event. c_calls
 * false hooks Ruby calls and returns only, the floor for tracegraph's
 * c_calls: false. blocks also hooks b_call and b_return, the events
 * tracegraph listens to with blocks: true (its default). */
static VALUE floor_start(int argc, VALUE *argv, VALUE mod)
{
    (void)mod;
    rb_check_arity(argc, 2, 3);
    VALUE clock_id = argv[0], c_calls = argv[1], blocks = argc > 2 ? argv[2] : Qfalse;
    floor_events = RTEST(c_calls) ? FLOOR_EVENTS : (RUBY_EVENT_CALL | RUBY_EVENT_RETURN);
    if (RTEST(blocks)) floor_events |= RUBY_EVENT_B_CALL | RUBY_EVENT_B_RETURN;
    if (NIL_P(clock_id)) {
        add_hook(empty_hook);
    } else if (SYMBOL_P(clock_id)) {
        add_hook(tsc_hook);
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
    rb_remove_event_hook((rb_event_hook_func_t)(void (*)(void))tsc_hook);
    return Qnil;
}

void Init_tracegraph_bench_floor(void)
{
    VALUE mod = rb_define_module("TracegraphBenchFloor");
    rb_define_singleton_method(mod, "start", floor_start, -1);
    rb_define_singleton_method(mod, "stop", floor_stop, 0);
}

/*
 * frame_share.c - Tracegraph._frame_share(receiver, method, n): calls
 * receiver.method(n) while a timer interrupts this thread every 50 µs
 * or so and notes which control frame was on top of Ruby's stack (ec->cfp),
 * as a sampling profiler does; returns how often, and for how much of
 * this thread's CPU time, each depth below this C method's own frame was
 * on top: [[bytes below, samples, CPU ns], ...], or nil where the execution
 * context is not found, SIGPROF has a handler already (another profiler
 * samples with it: it is theirs) or the timer cannot be had.
 *
 * Why: the calibration (lib/tracegraph/calibration.rb) measures what an
 * empty method's call and return cost inside its frame from what a
 * recording says the method took. That also holds the method's own time
 * without tracing (entering its body, returning), which a sampling
 * profiler counts as the method's: about 6 ns a call on the machine this
 * was measured on, most of a one-line method's time. Taken out as
 * tracing's cost, it made one-line methods read half their time. A
 * sampler of our own, on the calibration's loop, measures it.
 *
 * Each sample weighs the thread's CPU time since the one before. The
 * timer runs on the wall clock (a CPU-clock timer fires only at the
 * kernel's tick, a few per 10 ms loop), so while another Ruby thread holds
 * the lock this one waits where it stopped, and unweighted samples piled
 * up there: with a second thread busy, the callee of a loop whose time it
 * takes three quarters of read a quarter.
 *
 * Read in the signal handler, on the thread itself: what it reads is
 * that thread's state at the interrupted instruction. (A second thread
 * reading ec->cfp saw C methods' frames a fifth as often as a signal
 * does: its reads delay the writes it waits to see.) The handler reads
 * one word and follows no pointer, and reads the thread's CPU clock
 * (clock_gettime is async-signal-safe). SIGPROF's handler is ours only while
 * the call runs, and only if it had none; the default is put back after
 * any signal still pending has been taken, so nothing of ours reaches it.
 *
 * Uses: frame_share.h, ruby_vm.h (the execution context's layout).
 * Calls no other binding file.
 */
#include "frame_share.h"

#include <ruby/debug.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ruby_vm.h"

/* Depths recorded, in 8-byte steps below the C frame: a control frame is
 * 7 or 8 words, so 64 steps hold the loop's frame and several below it. */
#define SHARE_STEPS 64
/* The timer's period. Taking a signal costs 20-30 µs on the 2-core VM
 * this was measured on (each one is a trip out of the guest): at a
 * period of 25 µs the signals took 90% of the thread, and a loop of
 * 10 ms ran for 100. At 50 µs they take about a third. */
#define SHARE_INTERVAL_NS 50000

static struct {
    const struct ruby_vm_execution_context *ec;
    uintptr_t base;             /* the C method's own frame */
    volatile sig_atomic_t on;
    uint64_t last_cpu_ns;       /* the thread's CPU clock at the sample before */
    uint64_t counts[SHARE_STEPS];
    uint64_t cpu_ns[SHARE_STEPS];
} sampled;

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void note_frame(int sig)
{
    (void)sig;
    if (!sampled.on) return;
    uint64_t now = thread_cpu_ns();
    uint64_t ran = now - sampled.last_cpu_ns;
    sampled.last_cpu_ns = now;
    uintptr_t cfp = (uintptr_t)sampled.ec->cfp;
    if (cfp < sampled.base) {
        uintptr_t step = (sampled.base - cfp) / 8;
        if (step < SHARE_STEPS) {
            sampled.counts[step]++;
            sampled.cpu_ns[step] += ran;
        }
    }
}

typedef struct share_call {
    VALUE receiver;
    ID method;
    VALUE n;
} share_call;

static VALUE call_loop(VALUE arg)
{
    share_call *c = (share_call *)arg;
    return rb_funcall(c->receiver, c->method, 1, c->n);
}

/* The calling fiber's execution context, as the hook reads it
 * (ruby_vm.h): from the trace argument of one allocation, with a hook on
 * allocations for just that one. Ruby exports no way to it, and such an
 * internal event, unlike a call event, rewrites no instruction. */
static const void *noted_ec;

static void note_ec(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    if (!noted_ec) noted_ec = ruby_vm_trace_ec(arg);
}

static const struct ruby_vm_execution_context *current_ec(void)
{
    noted_ec = NULL;
    rb_add_event_hook2((rb_event_hook_func_t)(void (*)(void))note_ec, RUBY_INTERNAL_EVENT_NEWOBJ, Qnil,
                       RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
    VALUE one = rb_obj_alloc(rb_cObject);
    rb_remove_event_hook((rb_event_hook_func_t)(void (*)(void))note_ec);
    RB_GC_GUARD(one);
    return noted_ec;
}

/* A timer that sends SIGPROF to this thread alone every SHARE_INTERVAL_NS. */
static bool start_timer(timer_t *timer)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_MONOTONIC, &ev, timer) != 0) return false;
    struct itimerspec every = {{0, SHARE_INTERVAL_NS}, {0, SHARE_INTERVAL_NS}};
    if (timer_settime(*timer, 0, &every, NULL) != 0) {
        timer_delete(*timer);
        return false;
    }
    return true;
}

/* Stops the timer, takes any SIGPROF it left pending, and puts the
 * handler before ours back. */
static void stop_timer(timer_t timer, const struct sigaction *before)
{
    sigset_t prof, old;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &prof, &old);
    timer_delete(timer);
    sampled.on = 0;
    struct timespec now = {0, 0};
    while (sigtimedwait(&prof, NULL, &now) == SIGPROF) {
    }
    sigaction(SIGPROF, before, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static VALUE frame_share_method(VALUE self, VALUE receiver, VALUE method, VALUE n)
{
    (void)self;
    Check_Type(method, T_SYMBOL);
    const struct ruby_vm_execution_context *ec = current_ec();
    if (!ec || !ec->cfp) return Qnil;
    uintptr_t base = (uintptr_t)ec->cfp;
    /* Frames live in [cfp, vm_stack + vm_stack_size): a context whose
     * current frame is not there is not the layout ruby_vm.h reads. */
    if (base < (uintptr_t)ec->vm_stack || base >= (uintptr_t)ruby_vm_stack_end(ec)) return Qnil;
    memset(&sampled, 0, sizeof sampled);
    sampled.ec = ec;
    sampled.base = base;
    /* A SIGPROF handler of someone else's (stackprof's, a trap): theirs
     * stays, and nothing is sampled. */
    struct sigaction ours, before;
    if (sigaction(SIGPROF, NULL, &before) != 0) return Qnil;
    if ((before.sa_flags & SA_SIGINFO) || (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN)) return Qnil;
    memset(&ours, 0, sizeof ours);
    ours.sa_handler = note_frame;
    ours.sa_flags = SA_RESTART;
    sigemptyset(&ours.sa_mask);
    if (sigaction(SIGPROF, &ours, &before) != 0) return Qnil;
    timer_t timer;
    sampled.last_cpu_ns = thread_cpu_ns();
    sampled.on = 1;
    if (!start_timer(&timer)) {
        sampled.on = 0;
        sigaction(SIGPROF, &before, NULL);
        return Qnil;
    }
    share_call call = {receiver, SYM2ID(method), n};
    int raised = 0;
    rb_protect(call_loop, (VALUE)&call, &raised);
    stop_timer(timer, &before);
    if (raised) rb_jump_tag(raised);
    VALUE depths = rb_ary_new();
    for (int step = 1; step < SHARE_STEPS; step++)
        if (sampled.counts[step])
            rb_ary_push(depths, rb_ary_new_from_args(3, INT2FIX(step * 8), ULL2NUM(sampled.counts[step]),
                                                     ULL2NUM(sampled.cpu_ns[step])));
    return depths;
}

void frame_share_init(VALUE mTracegraph)
{
    rb_define_singleton_method(mTracegraph, "_frame_share", frame_share_method, 3);
}

/*
 * session.h - the recording session every event source shares: what it
 * was started with (session_options) and its state (session), the shadow
 * stacks of threads and fibers (contexts), the method keys, and the
 * clocks, with the inline readers the hooks run on every event. session.c
 * owns the state and its slower paths.
 *
 * The event sources (event_hook.c, gc_events.c, alloc_events.c) and
 * start_stop.c include this header; session.c calls none of them.
 *
 * Uses: ruby_vm.h (inline), core tg_profiler.h, tg_clock.h, tg_tsc.h.
 *
 * Rules for everything a hook reaches from here: no Ruby allocation, no
 * Ruby method calls, no raise, no locks. Hooks run with the GVL held, so
 * plain globals are safe.
 */
#ifndef TRACEGRAPH_SESSION_H
#define TRACEGRAPH_SESSION_H

#include <ruby.h>
#include <ruby/debug.h>

#include "ruby_vm.h"
#include "tg_clock.h"
#include "tg_profiler.h"
#include "tg_tsc.h"

/* Rare paths stay out of the hook's body, so the common path keeps its
 * registers (and its prologue) small. */
#define TG_SLOW_PATH __attribute__((noinline, cold))
#define TG_ALWAYS_INLINE inline __attribute__((always_inline))

/* What we know about a method beyond its statistics: its key. A block
 * (block_frames.h) is a method too, with is_block set. */
typedef struct method_key {
    VALUE klass;      /* the defining class or module (pinned while profiling);
                         a block's iseq, or without the VM reads its frame object;
                         nil for a GC pseudo-method (session_gc_method) */
    ID mid;           /* the method's original name: aliases collapse */
    bool is_c;
    bool is_block;
    bool in_line_block; /* public API only: a block that starts on the line of
                           Tracegraph.profile's own block, which it runs in
                           (not recorded): not the outermost block there */
    int line;         /* a block's first line (public API keys) */
    VALUE owner;      /* a block's enclosing method's class, or 0 (pinned);
                         for a define_method method seen without the VM
                         reads, the frame object of its body, or 0 */
    ID owner_mid;     /* a block's enclosing method, or 0 */
} method_key;

/* One shadow stack: a thread's root stack or a fiber's. */
typedef struct context_rec {
    tg_context ctx;
    VALUE fiber;      /* pinned; Qfalse while unresolved */
    uint32_t index;   /* in session.contexts */
} context_rec;

/* A thread's CPU clock, estimated between real readings (see
 * session_event_time). */
typedef struct cpu_estimate {
    uint64_t value;         /* the last time handed out, on the CPU clock */
    uint64_t last_mono;     /* monotonic clock at the last event */
    uint64_t last_sync;     /* monotonic clock at the last real reading */
    bool estimate_valid;    /* false until a real reading, and after another thread ran */
} cpu_estimate;

typedef struct thread_rec {
    VALUE thread;           /* pinned */
    context_rec *current;   /* the stack of the fiber running on this thread */
    context_rec *unresolved; /* its first stack, until we know its fiber */
    uint64_t last_now;      /* clock at its last event: closes its frames at stop
                               on the CPU clocks, where our clock is not its clock */
    cpu_estimate clock;
    /* Its time line without tracing's own cost (session_event_time_less):
     * the clock's reading at its last event, the same moment with the cost
     * taken out, and the cost taken out so far. */
    uint64_t raw_last, less_last, cost_removed;
    uint64_t cost_after_last;   /* the part of its last event's cost after its reading */
} thread_rec;

/* A direct-mapped cache from an event's method key to the method index:
 * (class, method id) for C methods, (method entry, 0) for Ruby methods
 * (see ruby_vm_frame_method_entry). Cheaper than the method map's hash
 * probe, and for Ruby methods it skips asking Ruby for the class and name.
 * Filled by the event hook (event_hook.c), marked by session.c.
 * 8,192 entries: rubocop runs about 3,900 methods, and at 1,024 one event
 * in 46 missed and took the slow path (several hundred ns); at 8,192, one
 * in 330. */
#define METHOD_CACHE_BITS 13
#define METHOD_CACHE_SIZE (1u << METHOD_CACHE_BITS)
#define METHOD_IGNORED (TG_NONE - 1)   /* tracegraph's own methods; never a method index */
/* A define_method method's body: its b_call and b_return are the method's
 * own frame, not a block's, but cost the program what a block's do. */
#define METHOD_BODY (TG_NONE - 2)
typedef struct method_cache_entry {
    VALUE a;          /* 0: empty. Pinned while cached (see session.c) */
    ID b;
    uint32_t method;  /* an index, or METHOD_IGNORED */
} method_cache_entry;

/* The kinds of event whose cost is calibrated: a Ruby method's call or
 * return, a block's, a C method's. Each has two parts: the one inside the
 * frame (after a call's clock reading, before a return's) and the one
 * outside it, in the caller's time. */
enum { SESSION_COST_RUBY, SESSION_COST_BLOCK, SESSION_COST_C, SESSION_COST_KINDS };
enum { SESSION_COST_INSIDE, SESSION_COST_OUTSIDE };
enum { SESSION_HOOK_CALL, SESSION_HOOK_RETURN };
#define SESSION_HOOK_SAMPLE_EVERY 32
/* A timed event longer than this was interrupted (the thread preempted, a
 * page fault): the hook takes tens of nanoseconds, a method's first call
 * about a microsecond. Such a sample is left out of the mean, where one
 * 4 ms preemption would weigh as much as 100,000 events. */
#define SESSION_HOOK_SAMPLE_MAX_NS 5000

/* What Tracegraph._start was asked for, read by name from its Hash once,
 * outside the hook (start_stop.c, read_options), and kept apart
 * from the state it sets up below. The Ruby side checks each option
 * first (Tracegraph::RecordingOptions). */
typedef struct session_options {
    tg_clock_kind clock;
    bool c_calls;               /* C methods are traced */
    bool c_calls_all;           /* c_calls: :all, the operators Ruby runs inline too */
    bool hide_next_call;        /* the CLI's own load/eval of the script */
    bool hide_next_block;       /* Tracegraph.profile's own block */
    uint32_t call_tree_nodes;   /* the call tree's cap; 0: no call tree */
    bool exact_clock;           /* the kernel's clock on every event */
    bool current_thread_only;   /* threads: :current */
    bool calibrating;           /* Tracegraph::Calibration's own recording */
    bool gc, blocks, allocations;
    /* The calibrated costs (Tracegraph::Calibration), ns per event by kind
     * and part, and the hook's own time at a call and at a return in the
     * calibration's loops; all 0 for raw times. */
    uint64_t event_cost[SESSION_COST_KINDS][2];
    uint64_t hook_base[SESSION_COST_KINDS][2];
    bool sample_hooks;          /* costs given, or the calibration's own recording */
} session_options;

/* The running session: its tables and state. session_setup copies in
 * the few options the hook reads (clock, gc, blocks, allocations, the
 * costs), each where the hook's fields keep their short offsets; the two
 * hide_next_* are state, not options: each is cleared once it has hidden
 * its call or block. The session_options themselves are not kept. */
struct session {
    bool running;
    tg_clock_kind clock;
    clockid_t clock_id;
    bool estimate_cpu;          /* CPU clocks: read them only when needed */
    bool use_tsc;               /* CLOCK_MONOTONIC readings come from the TSC */
    rb_event_flag_t events;
    tg_profiler prof;
    tg_calltree tree;           /* used when the call tree was asked for */

    method_key *keys;           /* parallel to prof.methods */
    uint32_t key_capacity;

    thread_rec *threads;        /* index = the core's thread index */
    uint32_t thread_capacity;
    tg_pairmap thread_index;    /* Thread VALUE -> index */

    context_rec **contexts;     /* stable pointers: the core keeps tg_context* */
    uint32_t context_count, context_capacity;
    tg_pairmap fiber_index;     /* Fiber VALUE -> context */

    VALUE cached_thread;        /* one-entry cache of the thread lookup, */
    const void *cached_ec;      /* and of the execution context it ran in */
    thread_rec *cached;
    bool dropped;               /* an event was lost (out of memory) */
    bool hide_next_call;        /* the CLI's own load/eval of the script */
    /* Last, so the hook's fields keep their offsets (and short encodings). */
    bool paused;                /* between pause and resume: see event_hook_paused */
    VALUE only_thread;          /* threads: :current, the thread hooked; Qfalse: all.
                                   Registered at start, so marked as session.threads[0] */
    VALUE hook_thread;          /* the one thread whose events reach the hook (Ruby
                                   filters the rest): only_thread, or the calibrating
                                   thread; Qfalse: all. Marked as only_thread is */
    bool calibrating;           /* the calibration's recording: not running? to Ruby */
    rb_event_hook_func_t hook;  /* the hook installed now */
    bool gc;                    /* garbage collection is recorded (gc_events.h) */
    bool blocks;                /* blocks as frames (block_frames.h) */
    bool allocations;           /* allocations are counted (alloc_events.h) */
    bool hide_next_block;       /* Tracegraph.profile's own block */
    VALUE hide_block_thread;    /* the thread it runs on (marked as session.threads[0]) */
    uint32_t last_call;         /* public API only: the method whose call was the
                                   last event, or TG_NONE (define_method bodies) */
    /* Wall time while recording (CLOCK_MONOTONIC, read outside the hook):
     * what the threads' times are set against in the legend. */
    uint64_t wall_started, wall_paused_at, wall_paused, wall_time;
    /* What one event costs the program, by kind (ns on the session's
     * clock, measured by Tracegraph::Calibration): taken out of the time
     * between events, see session_event_time_less. All 0 with raw_times. */
    uint64_t event_cost[SESSION_COST_KINDS][2];
    /* The hook's own time grows with the program (a big one's tables miss
     * the caches), beyond what the calibration's tight loops showed: one
     * event in SESSION_HOOK_SAMPLE_EVERY is timed from the hook's entry to
     * its exit (on average; see on_event_sampled), per kind and direction (call, return); the calibration's
     * own mean (hook_base) is set against the running mean, which moves
     * the costs taken out (see sampled_hook_end): inside_cost and
     * outside_cost, by kind and direction, the calibrated ones until the
     * first sample. */
    bool sample_hooks;
    uint32_t sample_countdown, sample_random;
    uint64_t hook_ticks[SESSION_COST_KINDS][2], hook_samples[SESSION_COST_KINDS][2];
    uint64_t hook_base[SESSION_COST_KINDS][2];
    uint64_t inside_cost[SESSION_COST_KINDS][2], outside_cost[SESSION_COST_KINDS][2];
    /* The default C-call tracing: Ruby's "ever enabled" record keeps these
     * C-event bits, as before the start (vm_event_flags.h); see start_stop.c */
    bool c_calls_called_only;
    rb_event_flag_t c_ever_before;
    bool c_held, c_rewritten;
    uint64_t cost_removed;      /* at stop: the threads' cost_removed added up */
    uint64_t slow_lookups;      /* events whose method or block the cache did not hold */
    /* Last, so the hook's fields keep their offsets. */
    VALUE hidden_block_frame;   /* public API only: the frame object of
                                   Tracegraph.profile's own block, or 0 (marked) */
    int hidden_block_line;      /* and its first line */
    /* Last of all: at 8,192 entries it is the largest field by far, and
     * the hook's other fields keep their offsets before it. */
    method_cache_entry method_cache[METHOD_CACHE_SIZE];
};

/* The one session, recording or not, named after this file as everything
 * it shares is. Started and stopped by start_stop.c. */
extern struct session session;

/* What the probe (ruby_vm_probe.h) found at the first start: whether the
 * VM reads are trusted, and the size of one control frame. When they are
 * not, frame positions are off and the hook uses the public API only. */
extern ruby_vm_layout session_vm;

/* The wall clock's TSC calibration (see session_monotonic_now). */
extern tg_tsc session_tsc;

/* ---- inline readers for the hooks -------------------------------------- */

/* Where a method's frame is on the VM stack: the address of its control
 * frame. Frames are pushed downwards, so a smaller address is deeper. At
 * a Ruby call or return, cfp is the method's own frame. At a C call or
 * return it is the caller's frame (the C frame is pushed after the call
 * event and popped before the return event), so the C frame is the slot
 * just below it. The exception: a C frame unwound by an exception, throw
 * or break fires its return with cfp still at the C frame itself; see
 * return_from_own_slot in event_hook.c. */
static inline uint64_t session_frame_position(rb_trace_arg_t *arg, bool c_method)
{
    uint64_t cfp = ruby_vm_trace_cfp(arg);
    if (!session_vm.frame_size || !cfp) return 0;
    return c_method ? cfp - session_vm.frame_size : cfp;
}

/* The CPU clocks cost a system call per reading on many machines (about
 * 0.65 us here, ten times the monotonic clock). Between two events a few
 * microseconds apart a running thread cannot have lost the CPU for long,
 * so there the CPU clock advances like the monotonic one: read that, and
 * read the real CPU clock only after a longer gap (where a sleep, I/O or
 * another thread may hide), after another thread ran, and at least every
 * millisecond, so an estimate never drifts far. The estimate never steps
 * backwards; a constant offset does not change any duration. */
#define CPU_SHORT_GAP_NS 20000ull
#define CPU_SYNC_PERIOD_NS 1000000ull

/* The wall clock: CLOCK_MONOTONIC, or the same clock read for less
 * through the TSC where the kernel keeps time with it (tg_tsc.h). */
static inline uint64_t session_monotonic_now(void)
{
    return session.use_tsc ? tg_tsc_now(&session_tsc) : tg_clock_read(CLOCK_MONOTONIC);
}

/* The session's clock at an event on thread `th` (which only the
 * estimated CPU clocks read: NULL will do for the others). */
static inline uint64_t session_event_time(thread_rec *th)
{
    if (!session.estimate_cpu) return session.use_tsc ? tg_tsc_now(&session_tsc) : tg_clock_read(session.clock_id);
    cpu_estimate *c = &th->clock;
    uint64_t mono = session_monotonic_now();
    uint64_t gap = mono - c->last_mono;
    c->last_mono = mono;
    if (c->estimate_valid && gap < CPU_SHORT_GAP_NS && mono - c->last_sync < CPU_SYNC_PERIOD_NS)
        return c->value += gap;
    uint64_t cpu = tg_clock_read(session.clock_id);
    if (cpu > c->value) c->value = cpu;
    c->last_sync = mono;
    c->estimate_valid = true;
    return c->value;
}

/* The running thread's record, made the core's running context, the slow
 * way (session.c), remembering the execution context it was found for.
 * NULL if out of memory. */
TG_SLOW_PATH thread_rec *session_event_thread(rb_trace_arg_t *arg);

/* Thread `th`'s time line with tracing's cost taken out, at the clock
 * reading `raw` (session_event_time's, on that thread's clock) of an event
 * that cost the program `before` until the reading and `after` from it:
 * every event costs the VM's call into the hook and the hook itself, and
 * that lands in the time between two readings. Each interval loses what
 * the events at its two ends cost inside it, as calibrated, but keeps at
 * least a nanosecond: time never runs backwards, and a call that ran
 * took some time (and shows in pprof and flame graphs, which drop zeros). A frame then
 * spans its own work, as in the unprofiled program, and so do its
 * callers. Python's profile module does the same with its calibrated bias. */
static TG_ALWAYS_INLINE uint64_t session_time_less(thread_rec *th, uint64_t raw, uint64_t before, uint64_t after)
{
    uint64_t gap = raw > th->raw_last ? raw - th->raw_last : 0;
    uint64_t cost = th->cost_after_last + before;
    uint64_t take = gap <= cost ? (gap ? gap - 1 : 0) : cost;
    th->raw_last = raw;
    th->cost_after_last = after;
    th->cost_removed += take;
    return th->less_last += gap - take;
}

/* The session's clock at an event on thread `th`, less tracing's cost
 * (session_time_less). Every time the profiler keeps for a thread comes
 * from here or from session_time_at. */
static TG_ALWAYS_INLINE uint64_t session_event_time_less(thread_rec *th, uint64_t before, uint64_t after)
{
    return session_time_less(th, session_event_time(th), before, after);
}

/* Thread `th`'s time line at the reading `raw`, taken outside its events
 * (pause, resume, stop): no cost to take out, and nothing moves back. */
static inline uint64_t session_time_at(thread_rec *th, uint64_t raw)
{
    return th->less_last + (raw > th->raw_last ? raw - th->raw_last : 0);
}

/* The running thread: the same execution context as the last event
 * means the same thread, with no lookup. (A fiber switch changes it too;
 * that event resets it.) `vm_reads` is a constant in each build of the
 * hook (see event_hook.c). */
static TG_ALWAYS_INLINE thread_rec *session_event_thread_cached(rb_trace_arg_t *arg, bool vm_reads)
{
    return vm_reads && ruby_vm_trace_ec(arg) == session.cached_ec ? session.cached : session_event_thread(arg);
}

/* For the allocation hook (alloc_events.c): the running context of the
 * allocating thread, or NULL if it is not recorded (threads: :current)
 * or out of memory. Every allocation asks, so the same execution context
 * as the last event answers without a lookup, as for calls (NEWOBJ's ec
 * is the allocating fiber's). No clock reading; allocates no Ruby object. */
static inline tg_context *session_allocating_context(rb_trace_arg_t *arg)
{
    if (RTEST(session.only_thread) && rb_thread_current() != session.only_thread) return NULL;
    thread_rec *th = session_event_thread_cached(arg, session_vm.trusted);
    return th ? &th->current->ctx : NULL;
}

/* ---- session.c --------------------------------------------------------- */

/* Makes the object whose mark function marks session, and defines
 * Tracegraph._stack_methods (at Init). */
void session_init(VALUE mod);

/* Frees every table of session and zeroes it. */
void session_free(void);

/* The running thread's record, made the core's running context; `fiber`
 * is its current Fiber if the caller may ask for it safely (outside the
 * hook), else Qfalse. NULL if out of memory (session.dropped is set). */
thread_rec *session_current_thread(VALUE fiber);

/* For the GC hook (gc_events.c): the running context of the thread an
 * event fires on, made the core's running context, with that thread's
 * clock in *now; NULL if the thread is not recorded (threads: :current)
 * or out of memory. Allocates no Ruby object: safe inside the collector. */
tg_context *session_event_context(rb_trace_arg_t *arg, uint64_t *now);

/* The index of a method (is_c for a C method) or a block (keyed by its
 * frame object and line, named at stop after its enclosing method: owner,
 * owner_mid; 0 outside methods), created with its key on first sight.
 * TG_NONE if out of memory. */
uint32_t session_method_for_call(VALUE klass, ID mid, bool is_c);
uint32_t session_block_for_call(VALUE frame, int line, VALUE owner, ID owner_mid);

/* The index of a garbage-collection pseudo-method (tg_gc_node), created
 * the first time it is about to be pushed, so a profile holds only those
 * that ran: its key (nil, node) cannot be a real method's. Plain malloc,
 * no Ruby object: safe inside the collector. TG_NONE if out of memory. */
uint32_t session_gc_method(uint32_t node);

/* A fiber switch happened on thread `th`: stop the clock of the stack it
 * left and start the one it entered. */
void session_switch_fiber(thread_rec *th, rb_trace_arg_t *arg, uint64_t now);

/* Thread `th` is ending: close whatever it left open (Thread#kill). */
void session_end_thread(thread_rec *th, uint64_t now);

/* A reading of the session's clock from any thread (outside the hook):
 * for CPU clocks the calling thread's own real CPU time. */
uint64_t session_clock_read(void);

/* Whether the TSC can stand in for CLOCK_MONOTONIC: calibrates it once
 * (2 ms, at the first start that can use it) and refines its scale at
 * every later start. */
bool session_tsc_ready(void);

#endif

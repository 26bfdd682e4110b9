/*
 * tracegraph.c - the Ruby binding: the event hook, GC marking, and naming.
 *
 * With gc_events.c (garbage collection's own hook), alloc_events.c
 * (allocations' own hook) and block_frames.c (blocks as frames: keys and
 * names), the only code that includes ruby.h.
 * It translates Ruby's events into the plain-C core
 * (tg_profiler) and the core's numbers back into Ruby objects. Sections,
 * top-down:
 *   1. session state and GC marking
 *   2. where events happen on the VM stack (frame positions)
 *   3. threads and fibers -> shadow stacks (contexts)
 *   4. the event hook (the hot path, in one screen)
 *   5. start / stop, pause / resume, and building the result
 *   6. method naming and source locations (at stop, never in the hook)
 *   7. emitters: Ruby profile -> tg_report -> DOT and diff DOT
 *   8. the call tree after stop, and the stack outputs (tg_stacks)
 *
 * Rules for the hook: no Ruby allocation, no Ruby method calls, no raise,
 * no locks. It runs with the GVL held, so plain globals are safe.
 */
#include <ruby.h>
#include <ruby/debug.h>
#include <ruby/encoding.h>

#include "alloc_events.h"
#include "gc_events.h"
#include "tg_clock.h"
#include "tg_diff_dot.h"
#include "tg_dot.h"
#include "tg_gc.h"
#include "tg_profiler.h"
#include "tg_report.h"
#include "tg_stacks.h"
#include "tg_tsc.h"
#include "block_frames.h"
#include "native_tree_view.h"
#include "ruby_vm.h"

/* ---- 1. session state and GC marking ---------------------------------- */

/* Rare paths stay out of the hook's body, so the common path keeps its
 * registers (and its prologue) small. */
#define TG_SLOW_PATH __attribute__((noinline, cold))
#define TG_ALWAYS_INLINE inline __attribute__((always_inline))

/* What we know about a method beyond its statistics: its key. A block
 * (block_frames.h) is a method too, with is_block set. */
typedef struct method_key {
    VALUE klass;      /* the defining class or module (pinned while profiling);
                         a block's iseq, or without the VM reads its frame object */
    ID mid;           /* the method's original name: aliases collapse */
    bool is_c;
    bool is_block;
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
    uint32_t index;   /* in S.contexts */
} context_rec;

/* A thread's CPU clock, estimated between real readings (see event_time). */
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
                               in :thread_cpu mode, where our clock is not its clock */
    cpu_estimate clock;
} thread_rec;

/* A direct-mapped cache from an event's method key to the method index:
 * (class, method id) for C methods, (method entry, 0) for Ruby methods
 * (see vm_frame_method_entry). Cheaper than the method map's hash probe, and
 * for Ruby methods it skips asking Ruby for the class and name. */
#define METHOD_CACHE_SIZE 1024
#define METHOD_IGNORED (TG_NONE - 1)   /* tracegraph's own methods; never a method index */
typedef struct method_cache_entry {
    VALUE a;          /* 0: empty. Pinned while cached (session_mark) */
    ID b;
    uint32_t method;  /* an index, or METHOD_IGNORED */
} method_cache_entry;

static struct session {
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

    method_cache_entry method_cache[METHOD_CACHE_SIZE];

    VALUE cached_thread;        /* one-entry cache of the thread lookup, */
    const void *cached_ec;      /* and of the execution context it ran in */
    thread_rec *cached;
    bool dropped;               /* an event was lost (out of memory) */
    bool hide_next_call;        /* the CLI's own load/eval of the script */
    /* Last, so the hook's fields keep their offsets (and short encodings). */
    bool paused;                /* between pause and resume: see on_event_paused */
    VALUE only_thread;          /* threads: :current, the thread hooked; Qfalse: all.
                                   Registered at start, so marked as S.threads[0] */
    rb_event_hook_func_t hook;  /* the hook installed now */
    bool gc;                    /* garbage collection is recorded (gc_events.h) */
    bool blocks;                /* blocks as frames (block_frames.h) */
    bool allocations;           /* allocations are counted (alloc_events.h) */
    bool hide_next_block;       /* Tracegraph.profile's own block */
    VALUE hide_block_thread;    /* the thread it runs on (marked as S.threads[0]) */
    uint32_t last_call;         /* public API only: the method whose call was the
                                   last event, or TG_NONE (define_method bodies) */
    /* Wall time while recording (CLOCK_MONOTONIC, read outside the hook):
     * what the threads' times are set against in the legend. */
    uint64_t wall_started, wall_paused_at, wall_paused, wall_time;
} S;

static VALUE mTracegraph, cTracegraphSelf, eError;
static VALUE hidden_module = Qnil;   /* Tracegraph._hide_methods_of: our wrappers of exit! and exec */
static VALUE session_keeper;   /* a Ruby object whose mark function marks S */
static ID id_attached, id_instance_method, id_source_location;

static void session_mark(void *unused)
{
    (void)unused;
    /* rb_gc_mark pins: classes, threads and fibers are hash keys here, so
     * they must not move under GC.compact. */
    for (uint32_t i = 0; i < S.prof.method_count; i++) {
        rb_gc_mark(S.keys[i].klass);
        if (S.keys[i].owner) rb_gc_mark(S.keys[i].owner);
    }
    for (uint32_t i = 0; i < S.prof.thread_count; i++) rb_gc_mark(S.threads[i].thread);
    for (uint32_t i = 0; i < S.context_count; i++) rb_gc_mark(S.contexts[i]->fiber);
    /* A cached method entry must not be freed and its slot reused by
     * another method while the cache still maps it. */
    for (uint32_t i = 0; i < METHOD_CACHE_SIZE; i++)
        if (S.method_cache[i].a) rb_gc_mark(S.method_cache[i].a);
}

static const rb_data_type_t session_type = {
    .wrap_struct_name = "tracegraph_session",
    .function = {.dmark = session_mark},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static bool grow_array(void **array, uint32_t *capacity, uint32_t need, size_t size)
{
    if (need <= *capacity) return true;
    uint32_t cap = *capacity ? *capacity * 2 : 64;
    while (cap < need) cap *= 2;
    void *bigger = realloc(*array, (size_t)cap * size);
    if (!bigger) return false;
    *array = bigger;
    *capacity = cap;
    return true;
}

static void session_free(void)
{
    for (uint32_t i = 0; i < S.context_count; i++) {
        tg_context_free(&S.contexts[i]->ctx);
        free(S.contexts[i]);
    }
    free(S.contexts);
    free(S.threads);
    free(S.keys);
    tg_pairmap_free(&S.thread_index);
    tg_pairmap_free(&S.fiber_index);
    tg_calltree_free(&S.tree);
    tg_profiler_free(&S.prof);
    memset(&S, 0, sizeof S);
}

/* ---- 2. where events happen on the VM stack --------------------------- */

/* What the probe found at the first start (ruby_vm.h): whether the VM
 * reads are trusted, and the size of one control frame. When they are
 * not, frame positions are off and the hook uses the public API only. */
static vm_layout vm;

/* The execution context: one per fiber, so a cheap key for "same thread
 * and fiber as the last event". */
static inline const void *trace_ec(rb_trace_arg_t *arg)
{
    return vm_trace_arg(arg)->ec;
}

static inline uint64_t trace_cfp(rb_trace_arg_t *arg)
{
    return (uint64_t)(uintptr_t)vm_trace_arg(arg)->cfp;
}

/* Where a method's frame is on the VM stack: the address of its control
 * frame. Frames are pushed downwards, so a smaller address is deeper. At
 * a Ruby call or return, cfp is the method's own frame. At a C call or
 * return it is the caller's frame (the C frame is pushed after the call
 * event and popped before the return event), so the C frame is the slot
 * just below it. The exception: a C frame unwound by an exception, throw
 * or break fires its return with cfp still at the C frame itself; see
 * return_from_own_slot. */
static inline uint64_t frame_position(rb_trace_arg_t *arg, bool c_method)
{
    uint64_t cfp = trace_cfp(arg);
    if (!vm.frame_size || !cfp) return 0;
    return c_method ? cfp - vm.frame_size : cfp;
}

/* Measured once, at the first start, when profiling is about to
 * instrument calls anyway. */
static void measure_vm_layout(void)
{
    static bool measured;
    if (measured) return;
    measured = true;
    if (!rb_const_defined_at(mTracegraph, rb_intern("FrameProbe"))) return;
    vm = vm_probe(rb_const_get_at(mTracegraph, rb_intern("FrameProbe")));
}

/* ---- 3. threads and fibers -> contexts -------------------------------- */

/* A context is keyed by its fiber. A thread first seen inside the hook
 * gets an unresolved first context (fiber Qfalse, not in the fiber map):
 * finding out which Fiber object runs there would mean calling
 * rb_fiber_current(), which can allocate the thread's root Fiber, and the
 * hook must not allocate. It is resolved at the first switch back to it
 * (see returns_to). */
static context_rec *new_context(VALUE fiber, uint32_t thread)
{
    if (!grow_array((void **)&S.contexts, &S.context_capacity, S.context_count + 1, sizeof *S.contexts))
        return NULL;
    context_rec *rec = malloc(sizeof *rec);
    if (!rec) return NULL;
    if (fiber != Qfalse && !tg_pairmap_insert(&S.fiber_index, (uint64_t)fiber, 0, S.context_count)) {
        free(rec);
        return NULL;
    }
    tg_context_init(&rec->ctx, thread);
    rec->fiber = fiber;
    rec->index = S.context_count;
    S.contexts[S.context_count++] = rec;
    return rec;
}

/* Registers a thread seen for the first time. `fiber` is its current
 * Fiber if the caller may ask for it safely (outside the hook), else
 * Qfalse. */
static thread_rec *register_thread(VALUE thread, VALUE fiber)
{
    if (!grow_array((void **)&S.threads, &S.thread_capacity, S.prof.thread_count + 1, sizeof *S.threads))
        return NULL;
    uint32_t index = tg_profiler_add_thread(&S.prof);
    if (index == TG_NONE) return NULL;
    context_rec *ctx = new_context(fiber, index);
    if (!ctx || !tg_pairmap_insert(&S.thread_index, (uint64_t)thread, 0, index)) return NULL;
    S.threads[index] = (thread_rec){.thread = thread, .current = ctx, .unresolved = fiber == Qfalse ? ctx : NULL};
    return &S.threads[index];
}

/* The running thread's record, made the core's running context.
 * `fiber` as for register_thread. */
static thread_rec *current_thread(VALUE fiber)
{
    VALUE thread = rb_thread_current();
    if (thread == S.cached_thread) return S.cached;
    if (S.cached) S.cached->clock.estimate_valid = false;   /* another thread ran */

    uint32_t i = tg_pairmap_find(&S.thread_index, (uint64_t)thread, 0);
    thread_rec *rec = i != TG_PAIRMAP_NONE ? &S.threads[i] : register_thread(thread, fiber);
    if (!rec) {
        S.dropped = true;
        return NULL;
    }
    S.cached_thread = thread;
    S.cached = rec;
    tg_profiler_activate(&S.prof, &rec->current->ctx);
    return rec;
}

/* Does a switch that lands at `cfp` return to the suspended stack `c`?
 * A stack that switched away sits in Fiber#resume, Fiber.yield or the
 * like, a few frames below its top shadow frame, and that memory is its
 * own VM stack: another fiber's frames cannot be there. */
static bool returns_to(const tg_context *c, uint64_t cfp)
{
    if (c->depth == 0 || !cfp) return false;
    uint64_t top = c->frames[c->depth - 1].position;
    return top && cfp <= top && top - cfp <= 16 * vm.frame_size;
}

/* A fiber switch happened on this thread: stop the clock of the stack we
 * left and start the one we entered. rb_fiber_current() cannot allocate
 * here: switching already made the Fiber objects of both sides. */
static void switch_fiber(thread_rec *th, rb_trace_arg_t *arg, uint64_t now)
{
    VALUE fiber = rb_fiber_current();
    uint32_t i = tg_pairmap_find(&S.fiber_index, (uint64_t)fiber, 0);
    context_rec *next = i != TG_PAIRMAP_NONE ? S.contexts[i] : NULL;
    if (!next) {
        context_rec *first = th->unresolved;
        if (first && first != th->current && returns_to(&first->ctx, vm.trusted ? trace_cfp(arg) : 0) &&
            tg_pairmap_insert(&S.fiber_index, (uint64_t)fiber, 0, first->index)) {
            first->fiber = fiber;
            th->unresolved = NULL;
            next = first;
        } else {
            /* A new fiber, or an unresolved first stack with no frames,
             * which loses nothing by starting afresh. */
            next = new_context(fiber, (uint32_t)(th - S.threads));
        }
    }
    if (!next) {
        S.dropped = true;
        return;
    }
    if (next == th->current) return;
    tg_context_suspend(&th->current->ctx, now);
    /* While paused every clock stays stopped; resume restarts this one. */
    if (!S.paused) tg_context_resume(&next->ctx, now);
    th->current = next;
    tg_profiler_activate(&S.prof, &next->ctx);
}

/* A thread is ending: close whatever it left open (Thread#kill). */
static void end_thread(thread_rec *th, uint64_t now)
{
    uint32_t index = (uint32_t)(th - S.threads);
    for (uint32_t i = 0; i < S.context_count; i++)
        if (S.contexts[i]->ctx.thread == index) tg_profiler_close_all(&S.prof, &S.contexts[i]->ctx, now);
    tg_profiler_activate(&S.prof, &th->current->ctx);
}

/* ---- 4. the event hook ------------------------------------------------- */

/* Is the shadow frame of method `m` at `position` still the real frame
 * in that slot? Dead frames are left behind when Ruby skips return events
 * (it does while a SystemStackError unwinds), and their slots are then
 * reused: by a rescue or ensure clause's frame, a block's, or a C frame
 * we were not told about (c_calls: false). A method frame we were told
 * about would have closed them when it was pushed. So a shadow frame is
 * live exactly when its slot holds a method frame of its own kind. The
 * slot must be a frame boundary between the event's frame and the end of
 * the running fiber's VM stack, which makes the read safe whatever the
 * shadow stack holds. */
static bool frame_is_live(rb_trace_arg_t *arg, uint64_t position, uint32_t m)
{
    uint64_t end = vm_stack_end(trace_ec(arg));
    if (position < trace_cfp(arg) || position >= end || !tg_stride_divides(&vm.frames, end - position)) return false;
    const method_key *k = &S.keys[m];
    if (k->is_block) return vm_frame_kind_at(position) == VM_FRAME_BLOCK && vm_frame_iseq(position) == k->klass;
    return vm_frame_kind_at(position) == (k->is_c ? VM_FRAME_C_METHOD : VM_FRAME_RUBY_METHOD);
}

/* While a SystemStackError is being handled ($! is one: in the rescue and
 * ensure clauses it runs, and what they call), the frames it unwound may
 * still die silently after a check (an ensure clause runs, then its
 * method is unwound without a return event). Reading $! calls its C
 * getter, which walks the frames without allocating. */
static bool stack_overflow_in_flight(void)
{
    return RTEST(rb_obj_is_kind_of(rb_gv_get("$!"), rb_eSysStackError));
}

/* Before a call is pushed, after positions closed frames whose returns
 * Ruby skipped (tg_context.resync): the dead frames above that call's
 * position are still on the stack, and are closed here. Below the first
 * live one, all are live: a frame's callers cannot return before it
 * does. Every silent unwinding leaves its deepest dead frames below the
 * next event, so that event closes some and sets resync; the check then
 * repeats at every call while the SystemStackError is being handled. */
static TG_SLOW_PATH void close_dead_frames(tg_context *ctx, rb_trace_arg_t *arg, uint64_t now)
{
    for (;;) {
        tg_profiler_settle_leaf(&S.prof, ctx);
        if (ctx->depth == 0) break;
        const tg_frame *top = &ctx->frames[ctx->depth - 1];
        if (frame_is_live(arg, top->position, top->method)) break;
        tg_profiler_pop(&S.prof, ctx, now);
    }
    ctx->resync = stack_overflow_in_flight();
}

static uint32_t method_for_call(VALUE klass, ID mid, bool is_c)
{
    /* Room for a new method's key first, so keys and methods stay parallel
     * even when memory runs out. */
    if (!grow_array((void **)&S.keys, &S.key_capacity, S.prof.method_count + 1, sizeof *S.keys)) {
        S.dropped = true;
        return TG_NONE;
    }
    uint32_t before = S.prof.method_count;
    uint32_t m = tg_profiler_method(&S.prof, (uint64_t)klass, (uint64_t)mid);
    if (m == before) S.keys[m] = (method_key){.klass = klass, .mid = mid, .is_c = is_c};   /* a new method */
    return m;
}

/* The same for a block: keyed by its frame object and line, named at
 * stop after its enclosing method (owner, owner_mid; 0 outside methods). */
static uint32_t block_for_call(VALUE frame, int line, VALUE owner, ID owner_mid)
{
    if (!grow_array((void **)&S.keys, &S.key_capacity, S.prof.method_count + 1, sizeof *S.keys)) {
        S.dropped = true;
        return TG_NONE;
    }
    uint32_t before = S.prof.method_count;
    uint32_t m = tg_profiler_method(&S.prof, (uint64_t)frame, TG_BLOCK_KEY_TAG | (uint32_t)line);
    if (m == before)
        S.keys[m] = (method_key){.klass = frame, .is_block = true, .line = line,
                                 .owner = NIL_P(owner) ? 0 : owner, .owner_mid = owner_mid};
    return m;
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
static tg_tsc tsc;

static inline uint64_t monotonic_now(void)
{
    return S.use_tsc ? tg_tsc_now(&tsc) : tg_clock_read(CLOCK_MONOTONIC);
}

/* Calibrates the TSC once (2 ms, at the first start that can use it) and
 * refines its scale at every later start, if the kernel still keeps time
 * with it (it stops when it finds the counter unreliable, which a VM
 * moved to another host can cause). */
static bool tsc_ready(void)
{
    static int state;   /* 0: not tried yet, 1: calibrated, -1: not usable */
    if (state == 0) return (state = tg_tsc_calibrate(&tsc, 2000000) ? 1 : -1) == 1;
    if (state == -1 || !tg_tsc_usable(TG_TSC_CLOCKSOURCE_PATH)) return false;
    tg_tsc_refine(&tsc);
    return true;
}

static inline uint64_t event_time(thread_rec *th)
{
    if (!S.estimate_cpu) return S.use_tsc ? tg_tsc_now(&tsc) : tg_clock_read(S.clock_id);
    cpu_estimate *c = &th->clock;
    uint64_t mono = monotonic_now();
    uint64_t gap = mono - c->last_mono;
    c->last_mono = mono;
    if (c->estimate_valid && gap < CPU_SHORT_GAP_NS && mono - c->last_sync < CPU_SYNC_PERIOD_NS)
        return c->value += gap;
    uint64_t cpu = tg_clock_read(S.clock_id);
    if (cpu > c->value) c->value = cpu;
    c->last_sync = mono;
    c->estimate_valid = true;
    return c->value;
}

/* A reading of the session's clock from any thread: for CPU clocks the
 * calling thread's (or process's) real CPU time. */
static uint64_t session_clock_read(void)
{
    return S.clock == TG_CLOCK_WALL ? monotonic_now() : tg_clock_read(S.clock_id);
}

/* current_thread, remembering the execution context it was found for. */
static TG_SLOW_PATH thread_rec *event_thread(rb_trace_arg_t *arg)
{
    thread_rec *th = current_thread(Qfalse);
    S.cached_ec = th && vm.trusted ? trace_ec(arg) : NULL;
    return th;
}

/* For the GC hook (gc_events.h): a pseudo-method's key (nil, node) cannot
 * be a real method's, which have a class. */
uint32_t tracegraph_gc_method(uint32_t node)
{
    return method_for_call(Qnil, (ID)node, false);
}

/* For the GC hook (gc_events.h): as the event hook finds its thread. */
tg_context *tracegraph_event_context(rb_trace_arg_t *arg, uint64_t *now)
{
    if (RTEST(S.only_thread) && rb_thread_current() != S.only_thread) return NULL;
    thread_rec *th = event_thread(arg);
    if (!th) return NULL;
    *now = th->last_now = event_time(th);
    return &th->current->ctx;
}

#define CALL_EVENTS (RUBY_EVENT_CALL | RUBY_EVENT_C_CALL)
#define BLOCK_EVENTS (RUBY_EVENT_B_CALL | RUBY_EVENT_B_RETURN)

static inline uint32_t method_cache_index(VALUE a, ID b)
{
    return (uint32_t)(((((uint64_t)a >> 3) ^ (uint64_t)b) * 0x9E3779B97F4A7C15ull) >> 54) & (METHOD_CACHE_SIZE - 1);
}

/* The defining class and original name of the event's method (aliases
 * collapse). For Ruby methods Ruby finds them from the frame, without
 * allocating. */
static VALUE event_class(rb_trace_arg_t *arg, ID *mid)
{
    if (!vm.trusted) {
        *mid = vm_symbol_id(rb_tracearg_method_id(arg));
        return rb_tracearg_defined_class(arg);
    }
    const struct vm_trace_arg *head = vm_trace_arg(arg);
    VALUE klass = head->klass;
    if (!klass || !head->id) klass = rb_tracearg_defined_class(arg);   /* fills in head->id too */
    *mid = head->id;
    return klass;
}

/* Tracegraph's own singleton methods (start, stop, profile) are not part
 * of the program being profiled. */
static bool ignored_class(VALUE klass)
{
    return klass == cTracegraphSelf || klass == hidden_module || NIL_P(klass) || !klass;
}

/* The method an event is for, the slow way (a cache miss), remembered in
 * `slot` when the key allows. A return never creates a method: one that
 * was never called started before profiling did. */
static TG_SLOW_PATH uint32_t method_slow(rb_trace_arg_t *arg, method_cache_entry *slot, VALUE a, ID b, bool call,
                                        bool c_method)
{
    ID mid;
    VALUE klass = event_class(arg, &mid);
    uint32_t m = ignored_class(klass) ? METHOD_IGNORED
                 : call               ? method_for_call(klass, mid, c_method)
                                      : tg_profiler_find_method(&S.prof, (uint64_t)klass, (uint64_t)mid);
    if (a && m != TG_NONE) *slot = (method_cache_entry){.a = a, .b = b, .method = m};
    return m;
}

/* ---- blocks (block_frames.h) ---- */

/* Tracegraph's own blocks are not part of the program either. */
static bool ignored_block_owner(VALUE owner)
{
    return owner == cTracegraphSelf || (owner == hidden_module && !NIL_P(owner));
}

/* A block the cache does not know (VM reads trusted), by its iseq. A
 * b_return never creates one: its b_call was before the start. */
static TG_SLOW_PATH uint32_t block_slow(rb_trace_arg_t *arg, method_cache_entry *slot, VALUE iseq, bool call)
{
    VALUE owner = rb_tracearg_defined_class(arg);
    uint32_t m = ignored_block_owner(owner) ? METHOD_IGNORED
                 : call ? block_for_call(iseq, 0, owner, NIL_P(owner) ? 0 : vm_symbol_id(rb_tracearg_method_id(arg)))
                        : tg_profiler_find_method(&S.prof, (uint64_t)iseq, TG_BLOCK_KEY_TAG);
    if (m != TG_NONE) *slot = (method_cache_entry){.a = iseq, .b = 0, .method = m};
    return m;
}

/* The block of a b_call or b_return, from its frame: cached by iseq (a
 * Ruby method's entry or a C method's class is never an iseq). A
 * define_method method's body is the method's: METHOD_IGNORED. */
static TG_ALWAYS_INLINE uint32_t block_method_vm(rb_trace_arg_t *arg, bool call)
{
    uint64_t cfp = trace_cfp(arg);
    if (vm_frame_is_bmethod(cfp)) return METHOD_IGNORED;
    VALUE iseq = vm_frame_iseq(cfp);
    method_cache_entry *slot = &S.method_cache[method_cache_index(iseq, 0)];
    return slot->a == iseq && slot->b == 0 ? slot->method : block_slow(arg, slot, iseq, call);
}

/* The same through the public API (block_frames.h): `last_call` is the
 * method whose call was the event just before (define_method bodies),
 * and a b_return closes the nearest open block with its frame object. */
static TG_SLOW_PATH uint32_t block_public(rb_trace_arg_t *arg, bool call, uint32_t last_call, tg_context *ctx)
{
    VALUE frame;
    int line;
    if (!tg_block_public_frame(arg, &frame, &line)) return TG_NONE;
    VALUE owner = rb_tracearg_defined_class(arg);
    if (ignored_block_owner(owner)) return METHOD_IGNORED;
    ID mid = NIL_P(owner) ? 0 : vm_symbol_id(rb_tracearg_method_id(arg));
    uint32_t method = NIL_P(owner) || !mid ? TG_NONE : tg_profiler_find_method(&S.prof, (uint64_t)owner, mid);
    if (call) {
        if (method != TG_NONE && method == last_call && !S.keys[method].is_c && tg_block_public_is_block(frame)) {
            S.keys[method].owner = frame;   /* a define_method method's body */
            return METHOD_IGNORED;
        }
        return block_for_call(frame, line, owner, mid);
    }
    if (method != TG_NONE && S.keys[method].owner == frame) return METHOD_IGNORED;
    tg_profiler_settle_leaf(&S.prof, ctx);
    for (uint32_t i = ctx->depth; i-- > 0;) {
        uint32_t m = ctx->frames[i].method;
        if (S.keys[m].is_block && S.keys[m].klass == frame) return m;
    }
    return TG_NONE;
}

/* Tracegraph.profile's own block (the first b_call on its thread after
 * the start) is not pushed, as the CLI's load of a script is not: what
 * it calls are the roots. Its b_return then matches nothing. */
static TG_SLOW_PATH bool hide_block(void)
{
    if (rb_thread_current() != S.hide_block_thread) return false;
    S.hide_next_block = false;
    return true;
}

/* The CLI's load of the script: not pushed, so its return is unmatched
 * and ignored, and the calls it makes become bottom frames. Our own
 * methods do not count as that call. */
static TG_SLOW_PATH void hide_call(rb_trace_arg_t *arg)
{
    ID mid;
    if (!ignored_class(event_class(arg, &mid))) S.hide_next_call = false;
}

/* Thread and fiber events: rare, so out of the hot path. */
static TG_SLOW_PATH void on_thread_event(rb_trace_arg_t *arg, rb_event_flag_t event)
{
    thread_rec *th = event_thread(arg);
    if (!th) return;
    uint64_t now = event_time(th);
    if (event & RUBY_EVENT_FIBER_SWITCH) {
        switch_fiber(th, arg, now);
        th->last_now = now;
    } else if (event & RUBY_EVENT_THREAD_END) {
        end_thread(th, now);
    }
}

/* The method of a call or return event: C events carry their class and
 * name; Ruby methods are known by their method entry. METHOD_IGNORED for
 * our own methods, TG_NONE for a return from before the start. */
/* The hook comes in two builds of the same code: one that reads the VM
 * internals the probe trusted (ruby_vm.h), and one that uses Ruby's
 * public API only. `vm_reads` is a constant in each, so neither pays for
 * the other's branches. */
static TG_ALWAYS_INLINE uint32_t event_method(rb_trace_arg_t *arg, bool call, bool c_method, bool vm_reads)
{
    if (!vm_reads) return method_slow(arg, NULL, 0, 0, call, c_method);
    const struct vm_trace_arg *head = vm_trace_arg(arg);
    VALUE a = head->klass;
    ID b = head->id;
    if (!a || !b) {
        /* Only a Ruby method's own frame holds its entry: at a C event
         * cfp is the caller's frame. */
        a = c_method ? 0 : vm_frame_method_entry(head->cfp);
        b = 0;
    }
    method_cache_entry *slot = &S.method_cache[method_cache_index(a, b)];
    return a && slot->a == a && slot->b == b ? slot->method : method_slow(arg, slot, a, b, call, c_method);
}

/* The running thread: the same execution context as the last event
 * means the same thread, with no lookup. (A fiber switch changes it too;
 * that event resets it.) */
static TG_ALWAYS_INLINE thread_rec *event_thread_cached(rb_trace_arg_t *arg, bool vm_reads)
{
    return vm_reads && trace_ec(arg) == S.cached_ec ? S.cached : event_thread(arg);
}

/* For the allocation hook (alloc_events.h): every allocation asks, so the
 * same execution context as the last event answers without a lookup, as
 * for calls. (NEWOBJ's ec is the allocating fiber's.) */
tg_context *tracegraph_allocating_context(rb_trace_arg_t *arg)
{
    if (RTEST(S.only_thread) && rb_thread_current() != S.only_thread) return NULL;
    thread_rec *th = event_thread_cached(arg, vm.trusted);
    return th ? &th->current->ctx : NULL;
}

/* Calls and returns each get their own function, so each keeps only the
 * registers it needs. No stack protector: nothing here writes through a
 * local buffer, and the canary check would cost every event. */
#define TG_HOOK_PATH __attribute__((noinline, no_stack_protector))

static TG_ALWAYS_INLINE void call_event(rb_trace_arg_t *arg, bool c_method, bool vm_reads)
{
    if (RB_UNLIKELY(S.hide_next_call)) {
        hide_call(arg);
        return;
    }
    uint32_t m = event_method(arg, true, c_method, vm_reads);
    if (!vm_reads && !c_method) S.last_call = m;   /* see block_public */
    if (m >= METHOD_IGNORED) return;   /* ours, or out of memory */
    thread_rec *th = event_thread_cached(arg, vm_reads);
    if (!th) return;
    tg_context *ctx = &th->current->ctx;
    uint64_t position = vm_reads ? frame_position(arg, c_method) : 0;
    uint64_t now = event_time(th);   /* after our bookkeeping */
    if (vm_reads) {
        tg_profiler_drop_stale(&S.prof, ctx, position, now);
        if (RB_UNLIKELY(ctx->resync)) close_dead_frames(ctx, arg, now);
    }
    /* Most C methods return before they call anything: no frame for them
     * unless they do. */
    if (c_method) tg_profiler_push_leaf(&S.prof, ctx, m, position, now);
    else tg_profiler_push(&S.prof, ctx, m, position, now);
    th->last_now = now;
}

/* A C frame unwound by an exception, throw or break returns from its own
 * slot, one below where a normal return happens: tried when the normal
 * slot holds nothing. (The normal slot cannot hold a frame then, and the
 * C frame's own slot can hold no other method: its callers are above.) */
static TG_SLOW_PATH void return_from_own_slot(tg_context *ctx, uint32_t m, rb_trace_arg_t *arg, uint64_t now)
{
    tg_profiler_return_rare(&S.prof, ctx, m, trace_cfp(arg), now);
}

static TG_ALWAYS_INLINE void return_event(rb_trace_arg_t *arg, bool c_method, bool vm_reads)
{
    uint32_t m = event_method(arg, false, c_method, vm_reads);
    if (m >= METHOD_IGNORED) return;   /* ours, or a return from before the start */
    thread_rec *th = event_thread_cached(arg, vm_reads);
    if (!th) return;
    uint64_t now = event_time(th);   /* before our bookkeeping */
    tg_context *ctx = &th->current->ctx;
    if (!vm_reads) {
        tg_profiler_return_rare(&S.prof, ctx, m, 0, now);
    } else {
        uint64_t position = frame_position(arg, c_method);
        if (!tg_profiler_return(&S.prof, ctx, m, position, now) && c_method && position)
            return_from_own_slot(ctx, m, arg, now);
    }
    th->last_now = now;
}

/* b_call and b_return: a block is a frame like a Ruby method's, at its
 * own block frame (cfp at both events). */
static TG_ALWAYS_INLINE void block_event(rb_trace_arg_t *arg, bool call, bool vm_reads, uint32_t last_call)
{
    thread_rec *th = event_thread_cached(arg, vm_reads);
    if (!th) return;
    tg_context *ctx = &th->current->ctx;
    if (call && RB_UNLIKELY(S.hide_next_block) && hide_block()) return;
    uint64_t now = call ? 0 : event_time(th);   /* a return: before our bookkeeping */
    uint32_t m = vm_reads ? block_method_vm(arg, call) : block_public(arg, call, last_call, ctx);
    if (m >= METHOD_IGNORED) return;
    uint64_t position = vm_reads ? frame_position(arg, false) : 0;
    if (call) {
        now = event_time(th);   /* a call: after it */
        if (vm_reads) {
            tg_profiler_drop_stale(&S.prof, ctx, position, now);
            if (RB_UNLIKELY(ctx->resync)) close_dead_frames(ctx, arg, now);
        }
        tg_profiler_push(&S.prof, ctx, m, position, now);
    } else {
        /* Not tg_profiler_return: a second call of it would keep link-time
         * optimisation from inlining it into on_return, and cost every
         * method's return (callgrind: +6% on fib with blocks: false). */
        tg_profiler_return_rare(&S.prof, ctx, m, position, now);
    }
    th->last_now = now;
}

static TG_HOOK_PATH void on_block(rb_trace_arg_t *arg, bool call)
{
    block_event(arg, call, true, TG_NONE);
}

static TG_HOOK_PATH void on_call(rb_trace_arg_t *arg, bool c_method)
{
    call_event(arg, c_method, true);
}

static TG_HOOK_PATH void on_return(rb_trace_arg_t *arg, bool c_method)
{
    return_event(arg, c_method, true);
}

static void on_event(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    rb_event_flag_t event = vm_trace_arg(arg)->event;
    if (event & CALL_EVENTS) on_call(arg, event & RUBY_EVENT_C_CALL);
    else if (event & (RUBY_EVENT_RETURN | RUBY_EVENT_C_RETURN)) on_return(arg, event & RUBY_EVENT_C_RETURN);
    else if (event & BLOCK_EVENTS) on_block(arg, event & RUBY_EVENT_B_CALL);
    else on_thread_event(arg, event);
}

/* The hook when the probe did not trust the VM reads: no frame positions,
 * every method looked up through rb_tracearg_*. */
static void on_event_public(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    rb_event_flag_t event = rb_tracearg_event_flag(arg);
    uint32_t last_call = S.last_call;
    S.last_call = TG_NONE;
    if (event & CALL_EVENTS) call_event(arg, event & RUBY_EVENT_C_CALL, false);
    else if (event & (RUBY_EVENT_RETURN | RUBY_EVENT_C_RETURN)) return_event(arg, event & RUBY_EVENT_C_RETURN, false);
    else if (event & BLOCK_EVENTS) block_event(arg, event & RUBY_EVENT_B_CALL, false, last_call);
    else on_thread_event(arg, event);
}

/* A return while paused: the call it ends was made either during the
 * pause (not recorded, so no frame matches) or before it. A frame open at
 * the pause is closed here, at the moment the pause began (its clock is
 * stopped), so a call made after resume gets its real caller, not a
 * frame that is gone. Rare and off the hot path: its own hook. */
static TG_SLOW_PATH void paused_return(rb_trace_arg_t *arg, bool c_method)
{
    uint32_t m = method_slow(arg, NULL, 0, 0, false, c_method);
    if (m >= METHOD_IGNORED) return;
    thread_rec *th = event_thread(arg);
    if (!th) return;
    th->last_now = event_time(th);
    tg_context *ctx = &th->current->ctx;
    if (!ctx->suspended) return;   /* a stack first seen during the pause: no frames */
    uint64_t at = ctx->suspended_at;
    uint64_t position = vm.trusted ? frame_position(arg, c_method) : 0;
    if (!tg_profiler_return_rare(&S.prof, ctx, m, position, at) && c_method && position)
        return_from_own_slot(ctx, m, arg, at);
}

/* A block's return while paused, as paused_return. */
static TG_SLOW_PATH void paused_block_return(rb_trace_arg_t *arg)
{
    thread_rec *th = event_thread(arg);
    if (!th) return;
    th->last_now = event_time(th);
    tg_context *ctx = &th->current->ctx;
    if (!ctx->suspended) return;
    uint32_t m = vm.trusted ? block_method_vm(arg, false) : block_public(arg, false, TG_NONE, ctx);
    if (m >= METHOD_IGNORED) return;
    tg_profiler_return_rare(&S.prof, ctx, m, vm.trusted ? frame_position(arg, false) : 0, ctx->suspended_at);
}

/* The hook between pause and resume. It does not see calls (they are not
 * recorded, and cost the program nothing here); it sees returns, fiber
 * switches and thread ends, so the stacks open at the pause stay true. */
static void on_event_paused(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    rb_event_flag_t event = rb_tracearg_event_flag(arg);
    if (event & (RUBY_EVENT_RETURN | RUBY_EVENT_C_RETURN)) paused_return(arg, event & RUBY_EVENT_C_RETURN);
    else if (event & RUBY_EVENT_B_RETURN) paused_block_return(arg);
    else on_thread_event(arg, event);
}

/* The hook this session installs while recording. */
static rb_event_hook_func_t session_hook(void)
{
    return (rb_event_hook_func_t)(void (*)(void))(vm.trusted ? on_event : on_event_public);
}

/* Installs `func` for `events`: for every thread, or with threads:
 * :current for the one thread, whose filter Ruby applies before calling
 * us, so other threads never reach the hook. */
static void install_hook(rb_event_hook_func_t func, rb_event_flag_t events)
{
    rb_event_hook_flag_t flags = RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG;
    S.hook = func;
    if (RTEST(S.only_thread)) rb_thread_add_event_hook2(S.only_thread, func, events, Qnil, flags);
    else rb_add_event_hook2(func, events, Qnil, flags);
}

static void remove_hook(void)
{
    if (RTEST(S.only_thread)) rb_thread_remove_event_hook(S.only_thread, S.hook);
    else rb_remove_event_hook(S.hook);
}

/* ---- 5. start / stop ----------------------------------------------------- */

static tg_clock_kind clock_from_symbol(VALUE sym)
{
    static const tg_clock_kind kinds[] = {TG_CLOCK_WALL, TG_CLOCK_CPU, TG_CLOCK_THREAD_CPU};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (sym == ID2SYM(rb_intern(tg_clock_name(kinds[i])))) return kinds[i];
    rb_raise(rb_eArgError, "unknown clock %+" PRIsVALUE " (allowed: :wall, :cpu, :thread_cpu)", sym);
}

/* Tracegraph._start(clock, c_calls, hide_next_call, call_tree_nodes,
 * exact_clock, current_thread_only, gc, blocks, allocations,
 * hide_next_block): options are validated in Ruby.
 * hide_next_call leaves out the first call made after start: the CLI's
 * `load` of the script, so the script's methods are the roots of the
 * graph. call_tree_nodes > 0 keeps a call tree of at most that many nodes.
 * exact_clock reads a CPU clock on every event instead of estimating it
 * between readings. current_thread_only records the calling thread (and
 * its fibers) only. gc records garbage collection (gc_events.h). blocks
 * records blocks as frames (block_frames.h); allocations counts the
 * objects allocated in each method (alloc_events.h); hide_next_block
 * leaves out the block the calling thread runs next (Tracegraph.profile's). */
static VALUE tg_start(int argc, VALUE *argv, VALUE mod)
{
    rb_check_arity(argc, 10, 10);
    VALUE clock = argv[0], c_calls = argv[1], hide_next_call = argv[2], call_tree_nodes = argv[3],
          exact_clock = argv[4], current_thread_only = argv[5], gc = argv[6], blocks = argv[7],
          allocations = argv[8], hide_next_block = argv[9];
    (void)mod;
    if (S.running) rb_raise(eError, "already started: call Tracegraph.stop first");
    tg_clock_kind kind = clock_from_symbol(clock);
    measure_vm_layout();

    memset(&S, 0, sizeof S);
    uint32_t tree_nodes = NUM2UINT(call_tree_nodes);
    if (!tg_profiler_init(&S.prof) || !tg_pairmap_init(&S.thread_index, 64) ||
        !tg_pairmap_init(&S.fiber_index, 64) || (tree_nodes && !tg_calltree_init(&S.tree, tree_nodes))) {
        session_free();
        rb_raise(rb_eNoMemError, "tracegraph: cannot allocate the profiler's tables");
    }
    if (tree_nodes) S.prof.tree = &S.tree;
    if (RTEST(allocations)) {
        tg_profiler_count_allocations(&S.prof);
        if (tree_nodes) tg_calltree_count_allocations(&S.tree);
    }
    S.clock = kind;
    S.clock_id = tg_clock_id(kind);
    S.estimate_cpu = kind != TG_CLOCK_WALL && !RTEST(exact_clock);
    /* exact_clock keeps the wall clock on CLOCK_MONOTONIC itself; with the
     * CPU clocks it only matters between real CPU readings. */
    S.use_tsc = (kind == TG_CLOCK_WALL ? !RTEST(exact_clock) : S.estimate_cpu) && tsc_ready();
    S.events = RUBY_EVENT_CALL | RUBY_EVENT_RETURN | RUBY_EVENT_FIBER_SWITCH | RUBY_EVENT_THREAD_END;
    if (RTEST(c_calls)) S.events |= RUBY_EVENT_C_CALL | RUBY_EVENT_C_RETURN;
    S.blocks = RTEST(blocks);
    if (S.blocks) S.events |= BLOCK_EVENTS;
    S.last_call = TG_NONE;
    S.cached_thread = Qundef;
    S.hide_next_call = RTEST(hide_next_call);
    /* Resolve the calling thread here, outside the hook, where allocating
     * its root Fiber object is harmless. */
    if (!current_thread(rb_fiber_current())) {
        session_free();
        rb_raise(rb_eNoMemError, "tracegraph: cannot allocate the profiler's tables");
    }
    S.only_thread = RTEST(current_thread_only) ? rb_thread_current() : Qfalse;
    S.gc = RTEST(gc);
    S.hide_next_block = S.blocks && RTEST(hide_next_block);
    S.hide_block_thread = rb_thread_current();
    S.allocations = RTEST(allocations);
    S.running = true;
    S.wall_started = tg_clock_read(CLOCK_MONOTONIC);
    install_hook(session_hook(), S.events);
    /* After the main hook: see tg_pause. */
    if (RTEST(gc)) gc_events_start(&S.prof);
    /* Last of all: from here to the return nothing allocates. */
    if (S.allocations) alloc_events_start(&S.prof);
    return Qnil;
}

static VALUE method_name(const method_key *k);
static VALUE method_location(const method_key *k);
static VALUE block_name(const method_key *k);


/* nil, or [folded_calls, NativeCallTree]: the nodes move to the Ruby
 * object as they are (no copy, no Ruby object per node); the session's
 * index of them is freed at stop. */
static VALUE build_call_tree(void)
{
    if (!S.prof.tree) return Qnil;
    tg_calltree_node *nodes = S.tree.nodes;
    tg_calltree_allocations *allocations = S.tree.allocations;
    bool counted = S.tree.count_allocations;
    uint32_t count = S.tree.count;
    VALUE folded_calls = ULL2NUM(S.tree.folded_calls);
    S.tree.nodes = NULL;   /* the tree's now, even if wrapping fails */
    S.tree.allocations = NULL;
    S.tree.count = S.tree.capacity = 0;
    tg_calltree_free(&S.tree);   /* its index: not needed after stop */
    VALUE tree = native_tree_wrap(nodes, allocations, counted, count);
    return rb_ary_new_from_args(2, folded_calls, tree);
}

/* Builds the plain-data result that Tracegraph::Profile wraps:
 *   [clock, [[thread, time], ...],
 *    [[name, file, line, is_c, calls, total, self(, allocations, self allocations, {type => self allocations})], ...],
 *    [[caller, callee, calls, total, self(, allocations, self allocations)], ...], complete?, call_tree,
 *    [gc runs, gc step, marking and sweeping method indexes], wall time, allocations?]
 * with the allocation counts only if allocations were counted. */
static VALUE build_result(void)
{
    /* First: it frees the call tree's index before the Ruby arrays grow. */
    VALUE call_tree = build_call_tree();
    VALUE threads = rb_ary_new_capa(S.prof.thread_count);
    for (uint32_t i = 0; i < S.prof.thread_count; i++)
        rb_ary_push(threads, rb_ary_new_from_args(2, S.threads[i].thread, ULL2NUM(S.prof.thread_time[i])));

    VALUE methods = rb_ary_new_capa(S.prof.method_count);
    for (uint32_t i = 0; i < S.prof.method_count; i++) {
        const tg_method_stats *m = &S.prof.methods[i];
        VALUE loc = method_location(&S.keys[i]);
        VALUE row = rb_ary_new_from_args(
            7, S.keys[i].is_block ? block_name(&S.keys[i]) : method_name(&S.keys[i]), rb_ary_entry(loc, 0),
            rb_ary_entry(loc, 1),
            S.keys[i].is_c ? Qtrue : Qfalse, ULL2NUM(m->calls), ULL2NUM(m->total_time), ULL2NUM(m->self_time));
        if (S.allocations) {
            rb_ary_push(row, ULL2NUM(S.prof.method_allocations[i].total));
            rb_ary_push(row, ULL2NUM(S.prof.method_allocations[i].self));
            rb_ary_push(row, alloc_events_by_type(&S.prof.method_allocation_types[i]));
        }
        rb_ary_push(methods, row);
    }

    VALUE edges = rb_ary_new_capa(S.prof.edge_count);
    for (uint32_t i = 0; i < S.prof.edge_count; i++) {
        const tg_edge_stats *e = &S.prof.edges[i];
        VALUE row = rb_ary_new_from_args(5, UINT2NUM(e->caller), UINT2NUM(e->callee), ULL2NUM(e->calls),
                                         ULL2NUM(e->total_time), ULL2NUM(e->self_time));
        if (S.allocations) {
            rb_ary_push(row, ULL2NUM(S.prof.edge_allocations[i].total));
            rb_ary_push(row, ULL2NUM(S.prof.edge_allocations[i].self));
        }
        rb_ary_push(edges, row);
    }
    return rb_ary_new_from_args(9, ID2SYM(rb_intern(tg_clock_name(S.clock))), threads, methods, edges,
                                (S.dropped || S.prof.out_of_memory) ? Qfalse : Qtrue, call_tree,
                                S.gc ? gc_events_result() : Qnil, ULL2NUM(S.wall_time),
                                S.allocations ? Qtrue : Qfalse);
}

static VALUE build_result_protected(VALUE unused)
{
    (void)unused;
    return build_result();
}

/* Thread `th`'s clock now, on its own time line, from the calling thread
 * `me` (outside the hook), given `now` = session_clock_read(): the calling
 * thread's is read; another thread's CPU clock cannot be read from here
 * (its time at its last event stands in), and its estimate may run a
 * constant ahead. */
static uint64_t thread_clock_now(thread_rec *th, VALUE me, uint64_t now)
{
    return th->thread == me                 ? event_time(th)
           : S.clock == TG_CLOCK_THREAD_CPU ? th->last_now
           : S.estimate_cpu                 ? (now > th->clock.value ? now : th->clock.value)
                                            : now;
}

/* Tracegraph._pause: stops every running stack's clock and stops
 * recording calls; the stacks stay open (see on_event_paused). */
static VALUE tg_pause(VALUE mod)
{
    (void)mod;
    if (!S.running) rb_raise(eError, "not started: call Tracegraph.start before Tracegraph.pause");
    if (S.paused) rb_raise(eError, "already paused: call Tracegraph.resume first");
    /* The GC and allocation hooks go first and come back last (tg_resume,
     * tg_start): they are never on without the main hook, and nothing
     * allocated here or in the Ruby that pauses is counted. */
    if (S.allocations) alloc_events_stop();
    if (S.gc) gc_events_pause();
    remove_hook();
    /* A pending C leaf becomes a frame, so a return during the pause
     * closes it like any other. */
    if (S.prof.running) tg_profiler_settle_leaf(&S.prof, S.prof.running);
    uint64_t now = session_clock_read();
    VALUE me = rb_thread_current();
    for (uint32_t i = 0; i < S.prof.thread_count; i++) {
        thread_rec *th = &S.threads[i];
        tg_context_suspend(&th->current->ctx, thread_clock_now(th, me, now));
        th->clock.estimate_valid = false;
    }
    S.paused = true;
    S.wall_paused_at = tg_clock_read(CLOCK_MONOTONIC);
    rb_event_flag_t events = RUBY_EVENT_RETURN | RUBY_EVENT_FIBER_SWITCH | RUBY_EVENT_THREAD_END;
    events |= S.events & (RUBY_EVENT_C_RETURN | RUBY_EVENT_B_RETURN);
    install_hook((rb_event_hook_func_t)(void (*)(void))on_event_paused, events);
    return Qnil;
}

/* Tracegraph._resume: restarts the clock of each thread's running stack
 * (stacks switched out stay stopped until switched in) and records calls
 * again. */
static VALUE tg_resume(VALUE mod)
{
    (void)mod;
    if (!S.running) rb_raise(eError, "not started: call Tracegraph.start and Tracegraph.pause first");
    if (!S.paused) rb_raise(eError, "not paused: call Tracegraph.pause first");
    remove_hook();
    uint64_t now = session_clock_read();
    VALUE me = rb_thread_current();
    for (uint32_t i = 0; i < S.prof.thread_count; i++) {
        thread_rec *th = &S.threads[i];
        tg_context_resume(&th->current->ctx, thread_clock_now(th, me, now));
        th->clock.estimate_valid = false;
    }
    S.paused = false;
    S.wall_paused += tg_clock_read(CLOCK_MONOTONIC) - S.wall_paused_at;
    install_hook(session_hook(), S.events);
    if (S.gc) gc_events_resume();
    if (S.allocations) alloc_events_start(&S.prof);
    return Qnil;
}

/* Tracegraph._stop: removes the hook, closes open frames, returns the data. */
static VALUE tg_stop(VALUE mod)
{
    (void)mod;
    if (!S.running) rb_raise(eError, "not started: call Tracegraph.start first");
    if (S.allocations) alloc_events_stop();   /* first, as in tg_pause */
    if (S.gc) gc_events_stop();
    remove_hook();
    S.running = false;
    uint64_t wall_end = S.paused ? S.wall_paused_at : tg_clock_read(CLOCK_MONOTONIC);
    S.wall_time = wall_end - S.wall_started - S.wall_paused;

    uint64_t now = session_clock_read();
    VALUE me = rb_thread_current();
    for (uint32_t i = 0; i < S.prof.thread_count; i++) {
        thread_rec *th = &S.threads[i];
        /* Close each thread's frames on that thread's own time line
         * (stacks stopped by a pause or a fiber switch at that moment). */
        uint64_t at = thread_clock_now(th, me, now);
        for (uint32_t c = 0; c < S.context_count; c++)
            if (S.contexts[c]->ctx.thread == i) tg_profiler_close_all(&S.prof, &S.contexts[c]->ctx, at);
    }

    int state = 0;
    VALUE result = rb_protect(build_result_protected, Qnil, &state);
    session_free();
    if (state) rb_jump_tag(state);
    return result;
}

static VALUE tg_running_p(VALUE mod)
{
    (void)mod;
    return S.running ? Qtrue : Qfalse;
}

static VALUE tg_paused_p(VALUE mod)
{
    (void)mod;
    return S.running && S.paused ? Qtrue : Qfalse;
}

/* ---- 6. naming and locations ------------------------------------------- */

/* A block's first line: in its key without the VM reads, else its iseq's. */
static int block_line(const method_key *k)
{
    if (k->line) return k->line;
    VALUE line = rb_profile_frame_first_lineno(k->klass);
    return FIXNUM_P(line) ? FIX2INT(line) : 0;
}

/* Names and paths are labelled UTF-8 here, where it costs nothing on a
 * fresh string; Profile.clean_name then only has to check them (and
 * scrubs the rare one in another encoding). */
static VALUE as_utf8(VALUE fresh)
{
    return rb_enc_associate(fresh, rb_utf8_encoding());
}

/* The object a singleton class belongs to. */
static VALUE singleton_object(VALUE singleton_class)
{
#ifdef HAVE_RB_CLASS_ATTACHED_OBJECT
    return rb_class_attached_object(singleton_class);
#else
    return rb_attr_get(singleton_class, id_attached);
#endif
}

/* A class or module with a permanent name (not "#<Class:0x...>", nor
 * nested in one): its path is stable from run to run. */
static bool named_module(VALUE mod)
{
    VALUE name = rb_mod_name(mod);
    return RB_TYPE_P(name, T_STRING) && !memchr(RSTRING_PTR(name), '<', (size_t)RSTRING_LEN(name));
}

typedef struct naming_args {
    VALUE klass, attached;
} naming_args;

/* Tracegraph::Naming.owner(klass, attached), under rb_protect. */
static VALUE naming_owner(VALUE arg)
{
    const naming_args *a = (const naming_args *)arg;
    return rb_funcall(rb_const_get_at(mTracegraph, rb_intern("Naming")), rb_intern("owner"), 2, a->klass, a->attached);
}

/* "Class#meth" for instance methods, "Class.meth" for singleton methods of
 * a class or module. Anonymous owners and singleton classes of other
 * objects, which Ruby names by memory address, are named by
 * Tracegraph::Naming (lib/tracegraph/naming.rb) so that names are the
 * same in every run. */
static VALUE method_name(const method_key *k)
{
    /* A GC pseudo-method (tracegraph_gc_method). */
    if (NIL_P(k->klass)) return rb_utf8_str_new_cstr(tg_gc_node_name((uint32_t)k->mid));
    VALUE owner = k->klass, name = Qnil, attached = Qnil;
    const char *separator = "#";
    if (RB_TYPE_P(owner, T_CLASS) && FL_TEST(owner, FL_SINGLETON)) {
        attached = singleton_object(owner);
        if ((RB_TYPE_P(attached, T_CLASS) || RB_TYPE_P(attached, T_MODULE)) && named_module(attached)) {
            separator = ".";
            name = rb_str_dup(rb_class_path(attached));
        }
    } else if (named_module(owner)) {
        name = rb_str_dup(rb_class_path(owner));
    }
    if (NIL_P(name)) {
        int state = 0;
        naming_args args = {owner, attached};
        VALUE pair = rb_protect(naming_owner, (VALUE)&args, &state);
        if (state || !RB_TYPE_P(pair, T_ARRAY) || RARRAY_LEN(pair) != 2) {
            rb_set_errinfo(Qnil);
            pair = rb_ary_new_from_args(2, rb_any_to_s(owner), rb_str_new_cstr("#"));
        }
        /* A path in the name may be in any encoding: label it UTF-8
         * before the method name joins it (Profile.clean_name scrubs). */
        name = as_utf8(rb_str_dup(rb_obj_as_string(rb_ary_entry(pair, 0))));
        VALUE sep = rb_ary_entry(pair, 1);
        separator = RB_TYPE_P(sep, T_STRING) && RSTRING_LEN(sep) == 1 && RSTRING_PTR(sep)[0] == '.' ? "." : "#";
    }
    rb_str_cat_cstr(name, separator);
    VALUE mname = rb_id2str(k->mid);
    /* Bytes, whatever either part's encoding: the whole is labelled UTF-8
     * and Profile.clean_name scrubs what is not. */
    if (mname) rb_str_cat(name, RSTRING_PTR(mname), RSTRING_LEN(mname));
    else rb_str_cat_cstr(name, "?");
    return as_utf8(name);
}

/* "block in Foo#bar" and the like: see tg_block_name. */
static VALUE block_name(const method_key *k)
{
    VALUE owner_name = Qnil;
    if (k->owner && k->owner_mid) {
        method_key owner = {.klass = k->owner, .mid = k->owner_mid};
        owner_name = method_name(&owner);
    }
    return tg_block_name(k->klass, block_line(k), k->owner, k->owner_mid, owner_name);
}

static VALUE source_location(VALUE key)
{
    const method_key *k = (const method_key *)key;
    VALUE um = rb_funcall(k->klass, id_instance_method, 1, ID2SYM(k->mid));
    return rb_funcall(um, id_source_location, 0);
}

/* [file, line] of a Ruby method, or [nil, nil] for C methods and methods
 * that no longer exist. */
static VALUE method_location(const method_key *k)
{
    if (k->is_c || NIL_P(k->klass)) return rb_ary_new_from_args(2, Qnil, Qnil);
    if (k->is_block) return tg_block_location(k->klass, block_line(k));
    int state = 0;
    VALUE loc = rb_protect(source_location, (VALUE)k, &state);
    if (state) {
        rb_set_errinfo(Qnil);
        return rb_ary_new_from_args(2, Qnil, Qnil);
    }
    if (!RB_TYPE_P(loc, T_ARRAY)) return rb_ary_new_from_args(2, Qnil, Qnil);
    VALUE file = rb_ary_entry(loc, 0);
    /* The path is the iseq's own string: label a copy. */
    if (RB_TYPE_P(file, T_STRING)) rb_ary_store(loc, 0, as_utf8(rb_str_dup(file)));
    return loc;
}

/* ---- 7. emitters --------------------------------------------------------- */

/* Everything Ruby profiles lend tg_reports while they are rendered. The
 * strings point into the Ruby objects, which the caller keeps alive. */
typedef struct report_buffers {
    tg_report_method *methods, *base_methods;
    tg_report_edge *edges, *base_edges;
    uint8_t *focus, *ignore, *waiting;
    uint64_t *self_allocations, *allocations, *edge_allocations;
    uint64_t *base_self_allocations, *base_allocations, *base_edge_allocations;
    const char **context, **notes, **short_files, **edge_via, **allocation_types;
    char *output;
    tg_report_gc gc, base_gc;
} report_buffers;

static void report_buffers_free(report_buffers *b)
{
    free(b->methods);
    free(b->base_methods);
    free(b->edges);
    free(b->base_edges);
    free(b->focus);
    free(b->ignore);
    free(b->waiting);
    free(b->self_allocations);
    free(b->allocations);
    free(b->edge_allocations);
    free(b->base_self_allocations);
    free(b->base_allocations);
    free(b->base_edge_allocations);
    free(b->context);
    free(b->notes);
    free(b->short_files);
    free(b->edge_via);
    free(b->allocation_types);
    free(b->output);
}

static const char *cstr_or_null(VALUE s)
{
    return NIL_P(s) ? NULL : StringValueCStr(s);
}

static uint64_t u64(VALUE v)
{
    return NUM2ULL(v);
}

/* C strings (or NULL for nil) from an Array of exactly n Strings and nils
 * (any length if n < 0), or NULL for nil. They point into the Ruby
 * strings, which the caller keeps alive; the caller frees the array. */
static const char **strings_from(VALUE ary, long n)
{
    if (NIL_P(ary)) return NULL;
    Check_Type(ary, T_ARRAY);
    if (n >= 0 && RARRAY_LEN(ary) != n)
        rb_raise(rb_eArgError, "string array has %ld entries for %ld methods", RARRAY_LEN(ary), n);
    const char **strings = calloc((size_t)RARRAY_LEN(ary) + 1, sizeof *strings);
    if (!strings) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    for (long i = 0; i < RARRAY_LEN(ary); i++) {
        VALUE s = rb_ary_entry(ary, i);
        strings[i] = NIL_P(s) ? NULL : StringValueCStr(s);
    }
    return strings;
}

/* Counts from an Array of exactly n Integers (one per method, or per
 * edge), into *out (malloc'd and set before anything can raise, so the
 * caller frees it either way). */
static const uint64_t *counts_from(VALUE ary, long n, uint64_t **out)
{
    Check_Type(ary, T_ARRAY);
    if (RARRAY_LEN(ary) != n) rb_raise(rb_eArgError, "count array has %ld entries for %ld items", RARRAY_LEN(ary), n);
    uint64_t *counts = *out = calloc((size_t)n + 1, sizeof *counts);
    if (!counts) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    for (long i = 0; i < n; i++) counts[i] = NUM2ULL(rb_ary_entry(ary, i));
    return counts;
}

static uint8_t *flags_from(VALUE ary, long n)
{
    if (NIL_P(ary)) return NULL;
    Check_Type(ary, T_ARRAY);
    if (RARRAY_LEN(ary) != n) rb_raise(rb_eArgError, "flag array has %ld entries for %ld methods", RARRAY_LEN(ary), n);
    uint8_t *flags = calloc((size_t)n + 1, 1);
    if (!flags) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    for (long i = 0; i < n; i++) flags[i] = RTEST(rb_ary_entry(ary, i)) ? 1 : 0;
    return flags;
}

/*
 * Converts the plain arrays lib code prepares from a Tracegraph::Profile
 * (see Profile#native_report_parts) into a tg_report:
 *   meta    [program, clock, total_time, gc]
 *           gc: [runs, entries, time, mark_time, sweep_time], or nil
 *   methods [[name, file, line, is_c, calls, total, self], ...]
 *   edges   [[caller, callee, calls, total, self], ...]
 * The method and edge arrays are malloc'd into *methods_out and
 * *edges_out, which the caller frees even when this raises; the GC
 * numbers go to *gc_out, which the report points to.
 */
static tg_report report_from_ruby(VALUE meta, VALUE methods, VALUE edges,
                                  tg_report_method **methods_out, tg_report_edge **edges_out, tg_report_gc *gc_out)
{
    Check_Type(meta, T_ARRAY);
    Check_Type(methods, T_ARRAY);
    Check_Type(edges, T_ARRAY);
    long nm = RARRAY_LEN(methods), ne = RARRAY_LEN(edges);
    tg_report_method *ms = *methods_out = calloc((size_t)nm + 1, sizeof *ms);
    tg_report_edge *es = *edges_out = calloc((size_t)ne + 1, sizeof *es);
    if (!ms || !es) rb_raise(rb_eNoMemError, "tracegraph: out of memory");

    for (long i = 0; i < nm; i++) {
        VALUE m = rb_ary_entry(methods, i);   /* [name, file, line, is_c, calls, total, self] */
        Check_Type(m, T_ARRAY);
        VALUE name = rb_ary_entry(m, 0);
        ms[i] = (tg_report_method){
            .name = StringValueCStr(name),   /* Ruby replaced NUL bytes */
            .file = cstr_or_null(rb_ary_entry(m, 1)),
            .line = NIL_P(rb_ary_entry(m, 2)) ? 0 : NUM2INT(rb_ary_entry(m, 2)),
            .is_c = RTEST(rb_ary_entry(m, 3)),
            .calls = u64(rb_ary_entry(m, 4)),
            .total_time = u64(rb_ary_entry(m, 5)),
            .self_time = u64(rb_ary_entry(m, 6)),
        };
    }
    for (long i = 0; i < ne; i++) {
        VALUE e = rb_ary_entry(edges, i);     /* [caller, callee, calls, total, self] */
        Check_Type(e, T_ARRAY);
        long caller = NUM2LONG(rb_ary_entry(e, 0)), callee = NUM2LONG(rb_ary_entry(e, 1));
        if (caller < 0 || caller >= nm || callee < 0 || callee >= nm)
            rb_raise(rb_eArgError, "edge %ld points at a missing method", i);
        es[i] = (tg_report_edge){
            .caller = (uint32_t)caller,
            .callee = (uint32_t)callee,
            .calls = u64(rb_ary_entry(e, 2)),
            .total_time = u64(rb_ary_entry(e, 3)),
            .self_time = u64(rb_ary_entry(e, 4)),
        };
    }
    VALUE clock = rb_ary_entry(meta, 1);
    VALUE gc = rb_ary_entry(meta, 3);
    if (!NIL_P(gc)) {
        Check_Type(gc, T_ARRAY);
        *gc_out = (tg_report_gc){u64(rb_ary_entry(gc, 0)), u64(rb_ary_entry(gc, 1)), u64(rb_ary_entry(gc, 2)),
                                 u64(rb_ary_entry(gc, 3)), u64(rb_ary_entry(gc, 4))};
    }
    return (tg_report){
        .program = cstr_or_null(rb_ary_entry(meta, 0)),
        .clock = StringValueCStr(clock),
        .total_time = u64(rb_ary_entry(meta, 2)),
        .methods = ms,
        .method_count = (size_t)nm,
        .edges = es,
        .edge_count = (size_t)ne,
        .gc = NIL_P(gc) ? NULL : gc_out,
    };
}

typedef struct render_args {
    VALUE meta, methods, edges, options;
    report_buffers *buffers;
} render_args;

static VALUE render_dot(VALUE arg)
{
    render_args *a = (render_args *)arg;
    report_buffers *b = a->buffers;
    tg_report report = report_from_ruby(a->meta, a->methods, a->edges, &b->methods, &b->edges, &b->gc);
    long nm = (long)report.method_count;

    /* [node_fraction, edge_fraction, max_nodes, focus, ignore, cwd, waiting,
     *  [thread_count, threads_recorded, thread_names, wall_time, hidden_waiting],
     *  context (a line per method, or nil), notes (legend lines), short file names (per method, or nil),
     *  the number of methods the boxes stand for, or nil; folded chains (per edge, or nil),
     *  [self allocations, allocations (a count per method), total, allocations per edge,
     *   a tooltip line of types per method or nil] or nil,
     *  what sizes the graph: :time or :allocations (which needs the allocations)] */
    VALUE o = a->options;
    tg_dot_options opts;
    tg_dot_options_default(&opts);
    opts.node_fraction = NUM2DBL(rb_ary_entry(o, 0));
    opts.edge_fraction = NUM2DBL(rb_ary_entry(o, 1));
    opts.max_nodes = NUM2SIZET(rb_ary_entry(o, 2));
    b->focus = flags_from(rb_ary_entry(o, 3), nm);
    b->ignore = flags_from(rb_ary_entry(o, 4), nm);
    opts.focus = b->focus;
    opts.ignore = b->ignore;
    opts.cwd = cstr_or_null(rb_ary_entry(o, 5));
    b->waiting = flags_from(rb_ary_entry(o, 6), nm);
    opts.waiting = b->waiting;
    VALUE threads = rb_ary_entry(o, 7);
    if (!NIL_P(threads)) {
        Check_Type(threads, T_ARRAY);
        opts.thread_count = NUM2UINT(rb_ary_entry(threads, 0));
        opts.threads_recorded = NUM2UINT(rb_ary_entry(threads, 1));
        opts.thread_names = cstr_or_null(rb_ary_entry(threads, 2));
        opts.wall_time = NIL_P(rb_ary_entry(threads, 3)) ? 0 : u64(rb_ary_entry(threads, 3));
        opts.hidden_waiting = u64(rb_ary_entry(threads, 4));
    }
    b->context = strings_from(rb_ary_entry(o, 8), nm);
    opts.context = b->context;
    VALUE notes = rb_ary_entry(o, 9);
    b->notes = strings_from(notes, -1);
    opts.notes = b->notes;
    opts.note_count = NIL_P(notes) ? 0 : (size_t)RARRAY_LEN(notes);
    b->short_files = strings_from(rb_ary_entry(o, 10), nm);
    opts.short_files = b->short_files;
    opts.method_total = NIL_P(rb_ary_entry(o, 11)) ? 0 : NUM2SIZET(rb_ary_entry(o, 11));
    b->edge_via = strings_from(rb_ary_entry(o, 12), (long)report.edge_count);
    opts.edge_via = b->edge_via;
    VALUE allocations = rb_ary_entry(o, 13);
    if (!NIL_P(allocations)) {
        Check_Type(allocations, T_ARRAY);
        opts.self_allocations = counts_from(rb_ary_entry(allocations, 0), nm, &b->self_allocations);
        opts.allocations = counts_from(rb_ary_entry(allocations, 1), nm, &b->allocations);
        opts.total_allocations = u64(rb_ary_entry(allocations, 2));
        opts.edge_allocations = counts_from(rb_ary_entry(allocations, 3), (long)report.edge_count,
                                            &b->edge_allocations);
        b->allocation_types = strings_from(rb_ary_entry(allocations, 4), nm);
        opts.allocation_types = b->allocation_types;
    }
    VALUE metric = rb_ary_entry(o, 14);
    if (!NIL_P(metric)) Check_Type(metric, T_SYMBOL);
    if (!NIL_P(metric) && SYM2ID(metric) == rb_intern("allocations")) {
        if (NIL_P(allocations)) rb_raise(rb_eArgError, "size_by: :allocations needs allocation counts");
        opts.metric = TG_DOT_BY_ALLOCATIONS;
    }

    size_t len = 0;
    b->output = tg_dot_render(&report, &opts, &len);
    if (!b->output) rb_raise(rb_eNoMemError, "tracegraph: out of memory while rendering DOT");
    return rb_utf8_str_new(b->output, (long)len);
}

/* Tracegraph._render_dot(meta, methods, edges, options) -> String.
 * Lib code prepares plain arrays; see Tracegraph::DotGraph. */
static VALUE tg_render_dot(VALUE mod, VALUE meta, VALUE methods, VALUE edges, VALUE options)
{
    (void)mod;
    Check_Type(meta, T_ARRAY);
    Check_Type(methods, T_ARRAY);
    Check_Type(edges, T_ARRAY);
    Check_Type(options, T_ARRAY);
    report_buffers buffers = {0};
    render_args args = {meta, methods, edges, options, &buffers};
    int state = 0;
    VALUE dot = rb_protect(render_dot, (VALUE)&args, &state);
    report_buffers_free(&buffers);
    if (state) rb_jump_tag(state);
    RB_GC_GUARD(meta);
    RB_GC_GUARD(methods);
    RB_GC_GUARD(edges);
    return dot;
}

/* One report's allocation counts for the diff graph, from [self
 * allocations, allocations (a count per method), total, allocations per
 * edge] (as for _render_dot). The arrays go to *self, *total and *edges,
 * which the caller frees even when this raises. */
static tg_diff_dot_allocations diff_allocations_from(VALUE ary, const tg_report *r, uint64_t **self,
                                                     uint64_t **total, uint64_t **edges)
{
    Check_Type(ary, T_ARRAY);
    long nm = (long)r->method_count;
    tg_diff_dot_allocations a;
    a.self = counts_from(rb_ary_entry(ary, 0), nm, self);
    a.total = counts_from(rb_ary_entry(ary, 1), nm, total);
    a.whole = u64(rb_ary_entry(ary, 2));
    a.edges = counts_from(rb_ary_entry(ary, 3), (long)r->edge_count, edges);
    return a;
}

typedef struct diff_args {
    VALUE base[3], head[3];   /* meta, methods, edges of each profile */
    VALUE options;
    report_buffers *buffers;
} diff_args;

static VALUE render_diff_dot(VALUE arg)
{
    diff_args *a = (diff_args *)arg;
    report_buffers *b = a->buffers;
    tg_report base = report_from_ruby(a->base[0], a->base[1], a->base[2], &b->base_methods, &b->base_edges, &b->base_gc);
    tg_report head = report_from_ruby(a->head[0], a->head[1], a->head[2], &b->methods, &b->edges, &b->gc);

    /* [node_fraction, edge_fraction, max_nodes, normalize, cwd,
     *  base's and head's allocations (each as for _render_dot) or nil,
     *  what sizes the graph: :time or :allocations (which needs both)] */
    VALUE o = a->options;
    tg_diff_dot_options opts;
    tg_diff_dot_options_default(&opts);
    opts.node_fraction = NUM2DBL(rb_ary_entry(o, 0));
    opts.edge_fraction = NUM2DBL(rb_ary_entry(o, 1));
    opts.max_nodes = NUM2SIZET(rb_ary_entry(o, 2));
    opts.normalize = RTEST(rb_ary_entry(o, 3));
    opts.cwd = cstr_or_null(rb_ary_entry(o, 4));
    VALUE base_counts = rb_ary_entry(o, 5), head_counts = rb_ary_entry(o, 6);
    tg_diff_dot_allocations base_allocations, head_allocations;
    if (!NIL_P(base_counts) && !NIL_P(head_counts)) {
        base_allocations = diff_allocations_from(base_counts, &base, &b->base_self_allocations, &b->base_allocations,
                                                 &b->base_edge_allocations);
        head_allocations = diff_allocations_from(head_counts, &head, &b->self_allocations, &b->allocations,
                                                 &b->edge_allocations);
        opts.base_allocations = &base_allocations;
        opts.head_allocations = &head_allocations;
    }
    VALUE metric = rb_ary_entry(o, 7);
    if (!NIL_P(metric)) Check_Type(metric, T_SYMBOL);
    if (!NIL_P(metric) && SYM2ID(metric) == rb_intern("allocations")) {
        if (!opts.base_allocations) rb_raise(rb_eArgError, "size_by: :allocations needs both profiles' allocation counts");
        opts.metric = TG_DOT_BY_ALLOCATIONS;
    }

    size_t len = 0;
    b->output = tg_diff_dot_render(&base, &head, &opts, &len);
    if (!b->output) rb_raise(rb_eNoMemError, "tracegraph: out of memory while rendering the diff DOT");
    return rb_utf8_str_new(b->output, (long)len);
}

/* Tracegraph._render_diff_dot(base_meta, base_methods, base_edges,
 *                             head_meta, head_methods, head_edges, options) -> String.
 * Each profile's parts are as for _render_dot; see Tracegraph::ProfileDiff. */
static VALUE tg_render_diff_dot(VALUE mod, VALUE base_meta, VALUE base_methods, VALUE base_edges,
                                VALUE head_meta, VALUE head_methods, VALUE head_edges, VALUE options)
{
    (void)mod;
    Check_Type(options, T_ARRAY);
    report_buffers buffers = {0};
    diff_args args = {{base_meta, base_methods, base_edges}, {head_meta, head_methods, head_edges}, options, &buffers};
    int state = 0;
    VALUE dot = rb_protect(render_diff_dot, (VALUE)&args, &state);
    report_buffers_free(&buffers);
    if (state) rb_jump_tag(state);
    RB_GC_GUARD(base_meta);
    RB_GC_GUARD(base_methods);
    RB_GC_GUARD(base_edges);
    RB_GC_GUARD(head_meta);
    RB_GC_GUARD(head_methods);
    RB_GC_GUARD(head_edges);
    return dot;
}

/* ---- 8. the call tree after stop, and the stack outputs ---------------- */

/* A finished call tree: the core's nodes, owned by a Ruby object
 * (Tracegraph::NativeCallTree) so that stack outputs stream from them in
 * C and no Ruby object is made per node unless asked for. */

static void native_tree_free(void *ptr)
{
    native_tree *t = ptr;
    free(t->nodes);
    free(t->allocations);
    free(t);
}

static size_t native_tree_memsize(const void *ptr)
{
    const native_tree *t = ptr;
    return sizeof *t + (size_t)t->count * (sizeof *t->nodes + (t->allocations ? sizeof *t->allocations : 0));
}

static const rb_data_type_t native_tree_type = {
    .wrap_struct_name = "tracegraph_call_tree",
    .function = {.dfree = native_tree_free, .dsize = native_tree_memsize},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE cNativeCallTree;

/* Wraps `nodes` and, if `counted`, `allocations` (each malloc'd, or NULL
 * when count is 0), which it then owns. Counted, the tree's allocations
 * are never NULL: "counted" needs no flag of its own. */
VALUE native_tree_wrap(tg_calltree_node *nodes, tg_calltree_allocations *allocations, bool counted, uint32_t count)
{
    native_tree *t = malloc(sizeof *t);
    if (counted && !allocations) allocations = calloc(count ? count : 1, sizeof *allocations);   /* zeros */
    if (!t || (counted && !allocations)) {
        free(t);
        free(nodes);
        free(allocations);
        rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    }
    if (count) {   /* drop the growth slack */
        tg_calltree_node *fitted = realloc(nodes, (size_t)count * sizeof *nodes);
        if (fitted) nodes = fitted;
        if (counted) {
            tg_calltree_allocations *fitted_counts = realloc(allocations, (size_t)count * sizeof *allocations);
            if (fitted_counts) allocations = fitted_counts;
        }
    }
    *t = (native_tree){nodes, counted ? allocations : NULL, count};
    return TypedData_Wrap_Struct(cNativeCallTree, &native_tree_type, t);
}

native_tree *native_tree_of(VALUE self)
{
    return rb_check_typeddata(self, &native_tree_type);
}

/* NativeCallTree#size */
static VALUE native_tree_size(VALUE self)
{
    return UINT2NUM(native_tree_of(self)->count);
}

/* NativeCallTree#allocations? : whether the nodes have allocation counts. */
static VALUE native_tree_allocations_p(VALUE self)
{
    return native_tree_of(self)->allocations ? Qtrue : Qfalse;
}

/* NativeCallTree#_rows -> [[parent or -1, method, calls, total, self, thread(,
 * allocations, self allocations)], ...] where thread is the thread's index
 * for a bottom frame (parent -1), else nil; the allocation counts only if
 * the tree has them. */
static VALUE native_tree_rows(VALUE self)
{
    const native_tree *t = native_tree_of(self);
    VALUE rows = rb_ary_new_capa(t->count);
    for (uint32_t i = 0; i < t->count; i++) {
        const tg_calltree_node *n = &t->nodes[i];
        bool bottom = tg_calltree_is_root(n->parent);
        VALUE row = rb_ary_new_from_args(6, bottom ? INT2FIX(-1) : UINT2NUM(n->parent), UINT2NUM(n->method),
                                         ULL2NUM(n->calls), ULL2NUM(n->total_time), ULL2NUM(n->self_time),
                                         bottom ? UINT2NUM(tg_calltree_root_thread(n->parent)) : Qnil);
        if (t->allocations) {
            rb_ary_push(row, ULL2NUM(t->allocations[i].total));
            rb_ary_push(row, ULL2NUM(t->allocations[i].self));
        }
        rb_ary_push(rows, row);
    }
    return rows;
}

/* The packed column `s` (a String: "L*" for width 4, "Q*" for 8) of
 * `count` rows, or raises. */
static const char *column(VALUE s, long count, long width)
{
    if (RSTRING_LEN(s) != count * width) rb_raise(rb_eArgError, "call tree columns of different lengths");
    return RSTRING_PTR(s);
}

/* NativeCallTree._pack(parents, methods, calls, totals, selfs, allocations,
 * self_allocations): a tree from packed columns ("L*" for the first two,
 * "Q*" for the rest; the last two both nil for a tree without allocation
 * counts). A bottom frame's parent is 0xFFFFFFFE - its thread's index.
 * Checked when written. */
static VALUE native_tree_pack(VALUE klass, VALUE parents, VALUE methods, VALUE calls, VALUE totals, VALUE selfs,
                              VALUE allocations, VALUE self_allocations)
{
    (void)klass;
    /* Every conversion first: none may run Ruby once pointers are taken. */
    StringValue(parents);
    StringValue(methods);
    StringValue(calls);
    StringValue(totals);
    StringValue(selfs);
    bool counted = !NIL_P(allocations) || !NIL_P(self_allocations);
    if (counted) {
        StringValue(allocations);
        StringValue(self_allocations);
    }
    long count = RSTRING_LEN(parents) / 4;
    if (count > TG_CALLTREE_MAX_NODES) rb_raise(rb_eArgError, "call tree of more than %u nodes", TG_CALLTREE_MAX_NODES);
    const char *parent = column(parents, count, 4), *method = column(methods, count, 4);
    const char *call = column(calls, count, 8), *total = column(totals, count, 8), *self = column(selfs, count, 8);
    const char *allocated = counted ? column(allocations, count, 8) : NULL;
    const char *self_allocated = counted ? column(self_allocations, count, 8) : NULL;
    tg_calltree_node *nodes = count ? malloc((size_t)count * sizeof *nodes) : NULL;
    tg_calltree_allocations *counts = counted && count ? malloc((size_t)count * sizeof *counts) : NULL;
    if (count && (!nodes || (counted && !counts))) {
        free(nodes);
        free(counts);
        rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    }
    for (long i = 0; i < count; i++) {
        tg_calltree_node *n = &nodes[i];
        memcpy(&n->parent, parent + i * 4, 4);
        memcpy(&n->method, method + i * 4, 4);
        memcpy(&n->calls, call + i * 8, 8);
        memcpy(&n->total_time, total + i * 8, 8);
        memcpy(&n->self_time, self + i * 8, 8);
        if (!counted) continue;
        memcpy(&counts[i].total, allocated + i * 8, 8);
        memcpy(&counts[i].self, self_allocated + i * 8, 8);
    }
    return native_tree_wrap(nodes, counts, counted, (uint32_t)count);
}

/* What a stack output borrows while it is written: C copies of every
 * string, so that nothing points into Ruby objects while Ruby runs the
 * output's write method. Freed by stacks_cleanup, even on a raise. */
typedef struct stacks_job {
    tg_stacks_input in;
    tg_stacks_method *methods;
    char **threads;
    char *clock, *program, *exporter;
    VALUE self, format, io, method_rows, thread_names, meta;
    int write_state;   /* a raise in io.write, re-raised after cleanup */
} stacks_job;

static char *copy_cstr(VALUE s)
{
    const char *p = StringValueCStr(s);   /* raises on a NUL: names are cleaned */
    size_t n = strlen(p) + 1;
    char *copy = malloc(n);
    if (!copy) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    return memcpy(copy, p, n);
}

static VALUE stacks_io_write(VALUE arg)
{
    const VALUE *args = (const VALUE *)arg;
    return rb_funcall(args[0], rb_intern("write"), 1, args[1]);
}

/* The core's write function: one chunk to io.write, a raise caught. */
static bool stacks_sink(void *ctx, const char *bytes, size_t len)
{
    stacks_job *job = ctx;
    VALUE args[2] = {job->io, rb_str_new(bytes, (long)len)};
    rb_protect(stacks_io_write, (VALUE)args, &job->write_state);
    return job->write_state == 0;
}

static VALUE stacks_body(VALUE arg)
{
    stacks_job *job = (stacks_job *)arg;
    const native_tree *t = native_tree_of(job->self);
    Check_Type(job->method_rows, T_ARRAY);
    Check_Type(job->thread_names, T_ARRAY);
    Check_Type(job->meta, T_ARRAY);
    long nm = RARRAY_LEN(job->method_rows), nt = RARRAY_LEN(job->thread_names);
    if (nm >= UINT32_MAX || nt >= TG_CALLTREE_MAX_NODES) rb_raise(rb_eArgError, "too many methods or threads");
    job->methods = calloc((size_t)nm + 1, sizeof *job->methods);
    job->threads = calloc((size_t)nt + 1, sizeof *job->threads);
    if (!job->methods || !job->threads) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    job->in.methods = job->methods;
    for (long i = 0; i < nm; i++) {
        VALUE m = rb_ary_entry(job->method_rows, i);   /* [name, file or nil, line or nil] */
        Check_Type(m, T_ARRAY);
        job->methods[i].name = copy_cstr(rb_ary_entry(m, 0));
        job->in.method_count = (uint32_t)i + 1;   /* what cleanup frees */
        VALUE file = rb_ary_entry(m, 1), line = rb_ary_entry(m, 2);
        job->methods[i].file = NIL_P(file) ? NULL : copy_cstr(file);
        job->methods[i].line = NIL_P(line) ? 0 : NUM2UINT(line);
    }
    job->in.threads = (const char *const *)job->threads;
    for (long i = 0; i < nt; i++) {
        job->threads[i] = copy_cstr(rb_ary_entry(job->thread_names, i));
        job->in.thread_count = (uint32_t)i + 1;
    }
    VALUE m = job->meta;   /* [max_depth, folded_calls, clock, program or nil, exporter, complete] */
    job->in.max_depth = NUM2UINT(rb_ary_entry(m, 0));
    job->in.folded_calls = NUM2ULL(rb_ary_entry(m, 1));
    job->in.clock = job->clock = copy_cstr(rb_ary_entry(m, 2));
    job->in.program = job->program = NIL_P(rb_ary_entry(m, 3)) ? NULL : copy_cstr(rb_ary_entry(m, 3));
    job->in.exporter = job->exporter = copy_cstr(rb_ary_entry(m, 4));
    job->in.complete = RTEST(rb_ary_entry(m, 5));
    job->in.nodes = t->nodes;
    job->in.allocations = t->allocations;
    job->in.node_count = t->count;

    tg_stacks_status (*writer)(const tg_stacks_input *, tg_stacks_write_fn, void *) =
        job->format == ID2SYM(rb_intern("folded"))       ? tg_stacks_write_folded
        : job->format == ID2SYM(rb_intern("pprof"))      ? tg_stacks_write_pprof
        : job->format == ID2SYM(rb_intern("speedscope")) ? tg_stacks_write_speedscope
        : job->format == ID2SYM(rb_intern("firefox"))    ? tg_stacks_write_firefox
                                                         : NULL;
    if (!writer) rb_raise(rb_eArgError, "unknown stack format %+" PRIsVALUE, job->format);
    tg_stacks_status status = writer(&job->in, stacks_sink, job);
    if (job->write_state) return Qnil;   /* re-raised by the caller, after cleanup */
    if (status != TG_STACKS_OK) rb_raise(eError, "cannot write the %" PRIsVALUE " output: %s", job->format,
                                         tg_stacks_status_message(status));
    return Qnil;
}

static VALUE stacks_cleanup(VALUE arg)
{
    stacks_job *job = (stacks_job *)arg;
    for (uint32_t i = 0; i < job->in.method_count; i++) {
        free((char *)job->methods[i].name);
        free((char *)job->methods[i].file);
    }
    for (uint32_t i = 0; i < job->in.thread_count; i++) free(job->threads[i]);
    free(job->methods);
    free(job->threads);
    free(job->clock);
    free(job->program);
    free(job->exporter);
    return Qnil;
}

/* NativeCallTree#_write(format, io, methods, thread_names, meta): streams
 * the :folded, :pprof, :speedscope or :firefox output to io.write in chunks.
 *   methods      [[name, file or nil, line or nil], ...] by method index
 *   thread_names [name, ...] by thread index
 *   meta         [max_depth, folded_calls, clock, program or nil, exporter, complete] */
static VALUE native_tree_write(VALUE self, VALUE format, VALUE io, VALUE methods, VALUE thread_names, VALUE meta)
{
    stacks_job job = {.self = self, .format = format, .io = io, .method_rows = methods,
                      .thread_names = thread_names, .meta = meta};
    rb_ensure(stacks_body, (VALUE)&job, stacks_cleanup, (VALUE)&job);
    if (job.write_state) rb_jump_tag(job.write_state);
    RB_GC_GUARD(self);
    RB_GC_GUARD(io);
    RB_GC_GUARD(methods);
    RB_GC_GUARD(thread_names);
    RB_GC_GUARD(meta);
    return io;
}

/* For tests: the measured control frame size, 0 if positions are off. */
/* Tracegraph._hide_methods_of(mod): mod's methods are ours too (the
 * wrappers tracegraph/process_end prepends to exit! and exec), so they
 * are left out of every profile like Tracegraph's own. One module. */
static VALUE tg_hide_methods_of(VALUE mod, VALUE hidden)
{
    (void)mod;
    Check_Type(hidden, T_MODULE);
    hidden_module = hidden;
    return Qnil;
}

static VALUE tg_frame_size(VALUE mod)
{
    (void)mod;
    return ULL2NUM(vm.frame_size);
}

/* For tests: whether the allocation hook is installed now. */
static VALUE tg_allocation_hook_p(VALUE mod)
{
    (void)mod;
    return alloc_events_installed() ? Qtrue : Qfalse;
}

/* For tests: whether the probe trusted the VM reads (ruby_vm.h). */
static VALUE tg_vm_reads_p(VALUE mod)
{
    (void)mod;
    return vm.trusted ? Qtrue : Qfalse;
}

RUBY_FUNC_EXPORTED void Init_tracegraph(void)
{
    id_attached = rb_intern("__attached__");
    id_instance_method = rb_intern("instance_method");
    id_source_location = rb_intern("source_location");
    tg_block_frames_init(rb_define_module("Tracegraph"));

    mTracegraph = rb_define_module("Tracegraph");
    cTracegraphSelf = rb_singleton_class(mTracegraph);
    rb_gc_register_mark_object(cTracegraphSelf);
    eError = rb_define_class_under(mTracegraph, "Error", rb_eStandardError);

    session_keeper = TypedData_Wrap_Struct(rb_cObject, &session_type, &S);
    rb_gc_register_mark_object(session_keeper);
    rb_gc_register_address(&hidden_module);   /* pinned: compared by address in the hook */

    rb_define_singleton_method(mTracegraph, "_start", tg_start, -1);
    rb_define_singleton_method(mTracegraph, "_stop", tg_stop, 0);
    rb_define_singleton_method(mTracegraph, "_pause", tg_pause, 0);
    rb_define_singleton_method(mTracegraph, "_resume", tg_resume, 0);
    rb_define_singleton_method(mTracegraph, "running?", tg_running_p, 0);
    rb_define_singleton_method(mTracegraph, "paused?", tg_paused_p, 0);
    rb_define_singleton_method(mTracegraph, "_render_dot", tg_render_dot, 4);
    rb_define_singleton_method(mTracegraph, "_render_diff_dot", tg_render_diff_dot, 7);
    rb_define_singleton_method(mTracegraph, "_frame_size", tg_frame_size, 0);
    rb_define_singleton_method(mTracegraph, "_hide_methods_of", tg_hide_methods_of, 1);
    rb_define_singleton_method(mTracegraph, "_vm_reads?", tg_vm_reads_p, 0);
    rb_define_singleton_method(mTracegraph, "_allocation_hook?", tg_allocation_hook_p, 0);

    cNativeCallTree = rb_define_class_under(mTracegraph, "NativeCallTree", rb_cObject);
    rb_undef_alloc_func(cNativeCallTree);
    rb_define_singleton_method(cNativeCallTree, "_pack", native_tree_pack, 7);
    rb_define_method(cNativeCallTree, "size", native_tree_size, 0);
    rb_define_method(cNativeCallTree, "allocations?", native_tree_allocations_p, 0);
    rb_define_method(cNativeCallTree, "_rows", native_tree_rows, 0);
    native_tree_view_init(cNativeCallTree);
    rb_define_method(cNativeCallTree, "_write", native_tree_write, 5);
}

/*
 * session.c - the recording session's state (session.h) and its slower
 * paths: marking what it keeps, threads and fibers into shadow stacks
 * (contexts), method keys, and the clocks' set-up.
 *
 * Uses: session.h, ruby_vm.h (inline), block_frames.h (its key tag, a
 * constant), public_frames.h (a fiber switch without the VM reads), core tg_profiler.h, tg_pairmap.h, tg_calltree.h, tg_clock.h,
 * tg_tsc.h. Calls no other binding file.
 */
#include "session.h"

#include <stdlib.h>
#include <string.h>

#include "block_frames.h"
#include "public_frames.h"

struct session session;
ruby_vm_layout session_vm;
tg_tsc session_tsc;

/* ---- what the session keeps, marked ------------------------------------ */

static VALUE session_keeper;   /* a Ruby object whose mark function marks session */

static void session_mark(void *unused)
{
    (void)unused;
    /* rb_gc_mark pins: classes, threads and fibers are hash keys here, so
     * they must not move under GC.compact. */
    for (uint32_t i = 0; i < session.prof.method_count; i++) {
        rb_gc_mark(session.keys[i].klass);
        if (session.keys[i].owner) rb_gc_mark(session.keys[i].owner);
    }
    if (session.hidden_block_frame) rb_gc_mark(session.hidden_block_frame);
    for (uint32_t i = 0; i < session.prof.thread_count; i++) rb_gc_mark(session.threads[i].thread);
    for (uint32_t i = 0; i < session.context_count; i++) rb_gc_mark(session.contexts[i]->fiber);
    /* A cached method entry must not be freed and its slot reused by
     * another method while the cache still maps it. */
    for (uint32_t i = 0; i < METHOD_CACHE_SIZE; i++)
        if (session.method_cache[i].a) rb_gc_mark(session.method_cache[i].a);
}

static const rb_data_type_t session_type = {
    .wrap_struct_name = "tracegraph_session",
    .function = {.dmark = session_mark},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

/* Tracegraph._stack_methods: the method indexes on the calling thread's
 * shadow stack (its running fiber's), bottom first, as recorded so far:
 * what code that runs while recording (the Railtie's SQL subscriber)
 * reads to know which frames ran it. [] when not recording, paused, or
 * for a thread with no stack yet. The indexes are those of the stop's
 * method list (Profile#recorded_methods). Called from Ruby, never from
 * the hook; it reads the stack and changes nothing. */
static VALUE stack_methods(VALUE self)
{
    (void)self;
    if (!session.running || session.paused) return rb_ary_new();
    uint32_t i = tg_pairmap_find(&session.thread_index, (uint64_t)rb_thread_current(), 0);
    if (i == TG_PAIRMAP_NONE || !session.threads[i].current) return rb_ary_new();
    const tg_context *ctx = &session.threads[i].current->ctx;
    VALUE methods = rb_ary_new_capa(ctx->depth);
    for (uint32_t f = 0; f < ctx->depth; f++) rb_ary_push(methods, UINT2NUM(ctx->frames[f].method));
    return methods;
}

void session_init(VALUE mod)
{
    session_keeper = TypedData_Wrap_Struct(rb_cObject, &session_type, &session);
    rb_gc_register_mark_object(session_keeper);
    rb_define_singleton_method(mod, "_stack_methods", stack_methods, 0);
}

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

void session_free(void)
{
    for (uint32_t i = 0; i < session.context_count; i++) {
        tg_context_free(&session.contexts[i]->ctx);
        free(session.contexts[i]);
    }
    free(session.contexts);
    free(session.threads);
    free(session.keys);
    tg_pairmap_free(&session.thread_index);
    tg_pairmap_free(&session.fiber_index);
    tg_calltree_free(&session.tree);
    tg_profiler_free(&session.prof);
    memset(&session, 0, sizeof session);
}

/* ---- threads and fibers -> contexts ------------------------------------ */

/* A context is keyed by its fiber. A thread first seen inside the hook
 * gets an unresolved first context (fiber Qfalse, not in the fiber map):
 * finding out which Fiber object runs there would mean calling
 * rb_fiber_current(), which can allocate the thread's root Fiber, and the
 * hook must not allocate. It is resolved at the first switch back to it
 * (see returns_to). */
static context_rec *new_context(VALUE fiber, uint32_t thread)
{
    if (!grow_array((void **)&session.contexts, &session.context_capacity, session.context_count + 1, sizeof *session.contexts))
        return NULL;
    context_rec *rec = malloc(sizeof *rec);
    if (!rec) return NULL;
    if (fiber != Qfalse && !tg_pairmap_insert(&session.fiber_index, (uint64_t)fiber, 0, session.context_count)) {
        free(rec);
        return NULL;
    }
    tg_context_init(&rec->ctx, thread);
    rec->fiber = fiber;
    rec->index = session.context_count;
    session.contexts[session.context_count++] = rec;
    return rec;
}

/* Registers a thread seen for the first time. `fiber` is its current
 * Fiber if the caller may ask for it safely (outside the hook), else
 * Qfalse. */
static thread_rec *register_thread(VALUE thread, VALUE fiber)
{
    if (!grow_array((void **)&session.threads, &session.thread_capacity, session.prof.thread_count + 1, sizeof *session.threads))
        return NULL;
    uint32_t index = tg_profiler_add_thread(&session.prof);
    if (index == TG_NONE) return NULL;
    context_rec *ctx = new_context(fiber, index);
    if (!ctx || !tg_pairmap_insert(&session.thread_index, (uint64_t)thread, 0, index)) return NULL;
    thread_rec *th = &session.threads[index];
    *th = (thread_rec){.thread = thread, .current = ctx, .unresolved = fiber == Qfalse ? ctx : NULL};
    /* Its time line less tracing's cost starts at the clock, now. */
    th->raw_last = th->less_last = session_event_time(th);
    return th;
}

thread_rec *session_current_thread(VALUE fiber)
{
    VALUE thread = rb_thread_current();
    if (thread == session.cached_thread) return session.cached;
    if (session.cached) session.cached->clock.estimate_valid = false;   /* another thread ran */

    uint32_t i = tg_pairmap_find(&session.thread_index, (uint64_t)thread, 0);
    thread_rec *rec = i != TG_PAIRMAP_NONE ? &session.threads[i] : register_thread(thread, fiber);
    if (!rec) {
        session.dropped = true;
        return NULL;
    }
    session.cached_thread = thread;
    session.cached = rec;
    tg_profiler_activate(&session.prof, &rec->current->ctx);
    return rec;
}

TG_SLOW_PATH thread_rec *session_event_thread(rb_trace_arg_t *arg)
{
    thread_rec *th = session_current_thread(Qfalse);
    session.cached_ec = th && session_vm.trusted ? ruby_vm_trace_ec(arg) : NULL;
    return th;
}

tg_context *session_event_context(rb_trace_arg_t *arg, uint64_t *now)
{
    if (RTEST(session.only_thread) && rb_thread_current() != session.only_thread) return NULL;
    thread_rec *th = session_event_thread(arg);
    if (!th) return NULL;
    *now = th->last_now = session_event_time_less(th, 0, 0);
    return &th->current->ctx;
}

/* Does a switch that lands at `cfp` return to the suspended stack `c`?
 * A stack that switched away sits in Fiber#resume, Fiber.yield or the
 * like, a few frames below its top shadow frame, and that memory is its
 * own VM stack: another fiber's frames cannot be there. */
static bool returns_to(const tg_context *c, uint64_t cfp)
{
    if (c->depth == 0 || !cfp) return false;
    uint64_t top = c->frames[c->depth - 1].position;
    return top && cfp <= top && top - cfp <= 16 * session_vm.frame_size;
}

/* The same through the public API, where a position is a depth on the
 * running fiber's stack (public_frames.h), `top` the walk's at the switch.
 * Another fiber's depths can be anything, but a fiber run for the first
 * time starts with no Ruby frame (a walk of 0), and a stack that switched
 * away sits a few frames above its top shadow frame. */
static bool returns_to_public(const tg_context *c, uint64_t top_now)
{
    if (c->depth == 0 || !top_now) return false;
    uint64_t top = c->frames[c->depth - 1].position;
    return top && top_now <= top && top - top_now <= 16;
}

/* rb_fiber_current() cannot allocate here: switching already made the
 * Fiber objects of both sides. */
void session_switch_fiber(thread_rec *th, rb_trace_arg_t *arg, uint64_t now)
{
    VALUE fiber = rb_fiber_current();
    uint32_t i = tg_pairmap_find(&session.fiber_index, (uint64_t)fiber, 0);
    context_rec *next = i != TG_PAIRMAP_NONE ? session.contexts[i] : NULL;
    if (!next) {
        context_rec *first = th->unresolved;
        if (first && first != th->current &&
            (session_vm.trusted ? returns_to(&first->ctx, ruby_vm_trace_cfp(arg))
                                : returns_to_public(&first->ctx, public_frames_walk())) &&
            tg_pairmap_insert(&session.fiber_index, (uint64_t)fiber, 0, first->index)) {
            first->fiber = fiber;
            th->unresolved = NULL;
            next = first;
        } else {
            /* A new fiber, or an unresolved first stack with no frames,
             * which loses nothing by starting afresh. */
            next = new_context(fiber, (uint32_t)(th - session.threads));
        }
    }
    if (!next) {
        session.dropped = true;
        return;
    }
    if (next == th->current) return;
    tg_context_suspend(&th->current->ctx, now);
    /* While paused every clock stays stopped; resume restarts this one. */
    if (!session.paused) tg_context_resume(&next->ctx, now);
    th->current = next;
    tg_profiler_activate(&session.prof, &next->ctx);
}

void session_end_thread(thread_rec *th, uint64_t now)
{
    uint32_t index = (uint32_t)(th - session.threads);
    for (uint32_t i = 0; i < session.context_count; i++)
        if (session.contexts[i]->ctx.thread == index) tg_profiler_close_all(&session.prof, &session.contexts[i]->ctx, now);
    tg_profiler_activate(&session.prof, &th->current->ctx);
}

/* ---- method keys -------------------------------------------------------- */

uint32_t session_method_for_call(VALUE klass, ID mid, bool is_c)
{
    /* Room for a new method's key first, so keys and methods stay parallel
     * even when memory runs out. */
    if (!grow_array((void **)&session.keys, &session.key_capacity, session.prof.method_count + 1, sizeof *session.keys)) {
        session.dropped = true;
        return TG_NONE;
    }
    uint32_t before = session.prof.method_count;
    uint32_t m = tg_profiler_method(&session.prof, (uint64_t)klass, (uint64_t)mid);
    if (m == before) session.keys[m] = (method_key){.klass = klass, .mid = mid, .is_c = is_c};   /* a new method */
    return m;
}

uint32_t session_block_for_call(VALUE frame, int line, VALUE owner, ID owner_mid)
{
    if (!grow_array((void **)&session.keys, &session.key_capacity, session.prof.method_count + 1, sizeof *session.keys)) {
        session.dropped = true;
        return TG_NONE;
    }
    uint32_t before = session.prof.method_count;
    uint32_t m = tg_profiler_method(&session.prof, (uint64_t)frame, BLOCK_FRAMES_KEY_TAG | (uint32_t)line);
    if (m == before)
        session.keys[m] = (method_key){.klass = frame, .is_block = true, .line = line,
                                 .owner = NIL_P(owner) ? 0 : owner, .owner_mid = owner_mid};
    return m;
}

uint32_t session_gc_method(uint32_t node)
{
    return session_method_for_call(Qnil, (ID)node, false);
}

/* ---- clocks ------------------------------------------------------------- */

uint64_t session_clock_read(void)
{
    return session.clock == TG_CLOCK_WALL ? session_monotonic_now() : tg_clock_read(session.clock_id);
}

/* The kernel may stop keeping time with the TSC when it finds the counter
 * unreliable, which a VM moved to another host can cause: checked at
 * every start after the first. */
bool session_tsc_ready(void)
{
    static int state;   /* 0: not tried yet, 1: calibrated, -1: not usable */
    if (state == 0) return (state = tg_tsc_calibrate(&session_tsc, 2000000) ? 1 : -1) == 1;
    if (state == -1 || !tg_tsc_usable(TG_TSC_CLOCKSOURCE_PATH)) return false;
    tg_tsc_refine(&session_tsc);
    return true;
}

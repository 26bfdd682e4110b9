/*
 * session.c - the recording session's state (session.h) and its slower
 * paths: marking what it keeps, threads and fibers into shadow stacks
 * (contexts), method keys, and the clocks' set-up.
 *
 * Uses: session.h, ruby_vm.h (inline), core tg_profiler.h, tg_pairmap.h,
 * tg_calltree.h, tg_clock.h, tg_tsc.h. Calls no other binding file.
 */
#include "session.h"

#include <stdlib.h>
#include <string.h>

#include "block_frames.h"

struct session S;
ruby_vm_layout session_vm;
tg_tsc session_tsc;

/* ---- what the session keeps, marked ------------------------------------ */

static VALUE session_keeper;   /* a Ruby object whose mark function marks S */

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

void session_init(void)
{
    session_keeper = TypedData_Wrap_Struct(rb_cObject, &session_type, &S);
    rb_gc_register_mark_object(session_keeper);
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

/* ---- threads and fibers -> contexts ------------------------------------ */

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
    thread_rec *th = &S.threads[index];
    *th = (thread_rec){.thread = thread, .current = ctx, .unresolved = fiber == Qfalse ? ctx : NULL};
    /* Its time line less tracing's cost starts at the clock, now. */
    th->raw_last = th->less_last = session_event_time(th);
    return th;
}

thread_rec *session_current_thread(VALUE fiber)
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

TG_SLOW_PATH thread_rec *session_event_thread(rb_trace_arg_t *arg)
{
    thread_rec *th = session_current_thread(Qfalse);
    S.cached_ec = th && session_vm.trusted ? ruby_vm_trace_ec(arg) : NULL;
    return th;
}

tg_context *session_event_context(rb_trace_arg_t *arg, uint64_t *now)
{
    if (RTEST(S.only_thread) && rb_thread_current() != S.only_thread) return NULL;
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

/* rb_fiber_current() cannot allocate here: switching already made the
 * Fiber objects of both sides. */
void session_switch_fiber(thread_rec *th, rb_trace_arg_t *arg, uint64_t now)
{
    VALUE fiber = rb_fiber_current();
    uint32_t i = tg_pairmap_find(&S.fiber_index, (uint64_t)fiber, 0);
    context_rec *next = i != TG_PAIRMAP_NONE ? S.contexts[i] : NULL;
    if (!next) {
        context_rec *first = th->unresolved;
        if (first && first != th->current &&
            returns_to(&first->ctx, session_vm.trusted ? ruby_vm_trace_cfp(arg) : 0) &&
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

void session_end_thread(thread_rec *th, uint64_t now)
{
    uint32_t index = (uint32_t)(th - S.threads);
    for (uint32_t i = 0; i < S.context_count; i++)
        if (S.contexts[i]->ctx.thread == index) tg_profiler_close_all(&S.prof, &S.contexts[i]->ctx, now);
    tg_profiler_activate(&S.prof, &th->current->ctx);
}

/* ---- method keys -------------------------------------------------------- */

uint32_t session_method_for_call(VALUE klass, ID mid, bool is_c)
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

uint32_t session_block_for_call(VALUE frame, int line, VALUE owner, ID owner_mid)
{
    if (!grow_array((void **)&S.keys, &S.key_capacity, S.prof.method_count + 1, sizeof *S.keys)) {
        S.dropped = true;
        return TG_NONE;
    }
    uint32_t before = S.prof.method_count;
    uint32_t m = tg_profiler_method(&S.prof, (uint64_t)frame, BLOCK_FRAMES_KEY_TAG | (uint32_t)line);
    if (m == before)
        S.keys[m] = (method_key){.klass = frame, .is_block = true, .line = line,
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
    return S.clock == TG_CLOCK_WALL ? session_monotonic_now() : tg_clock_read(S.clock_id);
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

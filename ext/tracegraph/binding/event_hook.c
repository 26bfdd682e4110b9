/*
 * event_hook.c - the event hook: Ruby's call, return, block, fiber-switch
 * and thread-end events into the core's shadow stacks (tg_profiler).
 *
 * The hot path is call_event and return_event (and block_event with
 * blocks: true), near the end: find the method (a direct-mapped cache),
 * find the thread (the execution context of the last event), read the
 * clock, push or pop. Everything rare is a TG_SLOW_PATH function above
 * them, kept out of their registers.
 *
 * Three hooks, installed by start_stop.c: while recording, one that reads
 * the VM internals the probe trusted (ruby_vm.h), or one that uses Ruby's
 * public API only, which finds frame positions by walking the stack
 * (public_frames.h) and so keeps stacks exact the same way, at a cost;
 * while paused, one that sees returns only.
 *
 * Uses: event_hook.h, session.h (state, contexts, clocks), ruby_vm.h
 * (inline), block_frames.h, public_frames.h (frame positions without the
 * VM reads), core tg_profiler.h. Calls no file that calls it.
 *
 * Rules: no Ruby allocation, no Ruby method calls, no raise, no locks.
 */
#include "event_hook.h"

#include "block_frames.h"
#include "public_frames.h"
#include "session.h"

static VALUE cTracegraphSelf;        /* Tracegraph's singleton class: its methods are ours */
static VALUE hidden_module = Qnil;   /* Tracegraph._hide_methods_of: our wrappers of exit! and exec */

/* ---- frames Ruby unwound without telling ------------------------------- */

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
    uint64_t end = ruby_vm_stack_end(ruby_vm_trace_ec(arg));
    if (position < ruby_vm_trace_cfp(arg) || position >= end || !tg_stride_divides(&session_vm.frames, end - position))
        return false;
    const method_key *k = &session.keys[m];
    if (k->is_block)
        return ruby_vm_frame_kind_at(position) == VM_FRAME_BLOCK && ruby_vm_frame_iseq(position) == k->klass;
    return ruby_vm_frame_kind_at(position) == (k->is_c ? VM_FRAME_C_METHOD : VM_FRAME_RUBY_METHOD);
}

/* The same through the public API (public_frames.h): the slot holds a
 * frame of the shadow frame's block, or of a method of its name. */
static bool frame_is_live_public(uint64_t position, uint32_t m)
{
    VALUE frame = public_frames_at(position);
    if (frame == Qundef) return false;
    const method_key *k = &session.keys[m];
    if (k->is_block) return frame == k->klass;
    return public_frames_is_method(frame, k->mid);
}

/* The position of the event's frame without the VM reads: the top
 * frame's, or `below` slots deeper (a C method's, whose frame is not
 * pushed yet at its call and popped already at its normal return). 0
 * (unknown) without a walk when the shadow stack `ctx` alone is deeper
 * than a walk goes: the real one is at least as deep. */
static TG_SLOW_PATH uint64_t public_frame_position(unsigned below, const tg_context *ctx)
{
    if (ctx->depth >= PUBLIC_FRAMES_MAX_DEPTH) return 0;
    uint64_t top = public_frames_walk();
    /* The walk is tracing's cost: it must stay on its side of the clock
     * reading (before a call's, after a return's), not be moved across. */
    __asm__ __volatile__("" ::: "memory");
    return top ? top - below : 0;
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
static TG_SLOW_PATH void close_dead_frames(tg_context *ctx, rb_trace_arg_t *arg, uint64_t now, bool vm_reads)
{
    for (;;) {
        tg_profiler_settle_leaf(&session.prof, ctx);
        if (ctx->depth == 0) break;
        const tg_frame *top = &ctx->frames[ctx->depth - 1];
        if (vm_reads ? frame_is_live(arg, top->position, top->method) : frame_is_live_public(top->position, top->method))
            break;
        tg_profiler_pop(&session.prof, ctx, now);
    }
    ctx->resync = stack_overflow_in_flight();
}

/* ---- which method an event is for ------------------------------------- */

#define CALL_EVENTS (RUBY_EVENT_CALL | RUBY_EVENT_C_CALL)
#define BLOCK_EVENTS (RUBY_EVENT_B_CALL | RUBY_EVENT_B_RETURN)

static inline uint32_t method_cache_index(VALUE a, ID b)
{
    return (uint32_t)(((((uint64_t)a >> 3) ^ (uint64_t)b) * 0x9E3779B97F4A7C15ull) >> (64 - METHOD_CACHE_BITS));
}

/* The defining class and original name of the event's method (aliases
 * collapse). For Ruby methods Ruby finds them from the frame, without
 * allocating. */
static VALUE event_class(rb_trace_arg_t *arg, ID *mid)
{
    if (!session_vm.trusted) {
        *mid = ruby_vm_symbol_id(rb_tracearg_method_id(arg));
        return rb_tracearg_defined_class(arg);
    }
    const struct ruby_vm_trace_arg *head = ruby_vm_trace_arg(arg);
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
    session.slow_lookups++;
    ID mid;
    VALUE klass = event_class(arg, &mid);
    uint32_t m = ignored_class(klass) ? METHOD_IGNORED
                 : call               ? session_method_for_call(klass, mid, c_method)
                                      : tg_profiler_find_method(&session.prof, (uint64_t)klass, (uint64_t)mid);
    if (a && m != TG_NONE) *slot = (method_cache_entry){.a = a, .b = b, .method = m};
    return m;
}

/* ---- blocks (block_frames.h) ------------------------------------------- */

/* Tracegraph's own blocks are not part of the program either. */
static bool ignored_block_owner(VALUE owner)
{
    return owner == cTracegraphSelf || (owner == hidden_module && !NIL_P(owner));
}

/* A block the cache does not know (VM reads trusted), by its iseq. A
 * b_return never creates one: its b_call was before the start. */
static TG_SLOW_PATH uint32_t block_slow(rb_trace_arg_t *arg, method_cache_entry *slot, VALUE iseq, bool call)
{
    session.slow_lookups++;
    VALUE owner = rb_tracearg_defined_class(arg);
    uint32_t m;
    if (ignored_block_owner(owner)) m = METHOD_IGNORED;
    else if (!call) m = tg_profiler_find_method(&session.prof, (uint64_t)iseq, BLOCK_FRAMES_KEY_TAG);
    else m = session_block_for_call(iseq, 0, owner, NIL_P(owner) ? 0 : ruby_vm_symbol_id(rb_tracearg_method_id(arg)));
    if (m != TG_NONE) *slot = (method_cache_entry){.a = iseq, .b = 0, .method = m};
    return m;
}

/* The block of a b_call or b_return, from its frame: cached by iseq (a
 * Ruby method's entry or a C method's class is never an iseq). A
 * define_method method's body is the method's: METHOD_BODY. */
static TG_ALWAYS_INLINE uint32_t block_method_vm(rb_trace_arg_t *arg, bool call)
{
    uint64_t cfp = ruby_vm_trace_cfp(arg);
    if (ruby_vm_frame_is_bmethod(cfp)) return METHOD_BODY;
    VALUE iseq = ruby_vm_frame_iseq(cfp);
    method_cache_entry *slot = &session.method_cache[method_cache_index(iseq, 0)];
    return slot->a == iseq && slot->b == 0 ? slot->method : block_slow(arg, slot, iseq, call);
}

/* The same through the public API (block_frames.h): `last_call` is the
 * method whose call was the event just before (define_method bodies),
 * and a b_return closes the nearest open block with its frame object. */
static TG_SLOW_PATH uint32_t block_public(rb_trace_arg_t *arg, bool call, uint32_t last_call, tg_context *ctx)
{
    VALUE frame;
    int line;
    if (!block_frames_public_frame(arg, &frame, &line)) return TG_NONE;
    VALUE owner = rb_tracearg_defined_class(arg);
    if (ignored_block_owner(owner)) return METHOD_IGNORED;
    ID mid = NIL_P(owner) ? 0 : ruby_vm_symbol_id(rb_tracearg_method_id(arg));
    uint32_t method = NIL_P(owner) || !mid ? TG_NONE : tg_profiler_find_method(&session.prof, (uint64_t)owner, mid);
    if (call) {
        if (method != TG_NONE && method == last_call && !session.keys[method].is_c && block_frames_public_is_block(frame)) {
            session.keys[method].owner = frame;   /* a define_method method's body */
            return METHOD_BODY;
        }
        uint32_t m = session_block_for_call(frame, line, owner, mid);
        if (m < METHOD_IGNORED && frame == session.hidden_block_frame && line == session.hidden_block_line)
            session.keys[m].in_line_block = true;
        return m;
    }
    if (method != TG_NONE && session.keys[method].owner == frame) return METHOD_BODY;
    tg_profiler_settle_leaf(&session.prof, ctx);
    for (uint32_t i = ctx->depth; i-- > 0;) {
        uint32_t m = ctx->frames[i].method;
        if (session.keys[m].is_block && session.keys[m].klass == frame) return m;
    }
    return TG_NONE;
}

/* Tracegraph.profile's own block (the first b_call on its thread after
 * the start) is not pushed, as the CLI's load of a script is not: what
 * it calls are the roots. Its b_return then matches nothing. */
static TG_SLOW_PATH bool hide_block(void)
{
    if (rb_thread_current() != session.hide_block_thread) return false;
    session.hide_next_block = false;
    return true;
}

/* The same through the public API, which also notes the hidden block's
 * frame object and line: a block of that method that starts on that line
 * and runs while recording runs inside it, and is not the outermost block
 * on its line, which the public API cannot tell from it (block_frames.h). */
static TG_SLOW_PATH bool hide_block_public(rb_trace_arg_t *arg)
{
    if (!hide_block()) return false;
    VALUE frame;
    int line;
    if (block_frames_public_frame(arg, &frame, &line)) {
        session.hidden_block_frame = frame;
        session.hidden_block_line = line;
    }
    return true;
}

/* The CLI's load of the script: not pushed, so its return is unmatched
 * and ignored, and the calls it makes become bottom frames. Our own
 * methods do not count as that call. */
static TG_SLOW_PATH void hide_call(rb_trace_arg_t *arg)
{
    ID mid;
    if (!ignored_class(event_class(arg, &mid))) session.hide_next_call = false;
}

/* Thread and fiber events: rare, so out of the hot path. */
static TG_SLOW_PATH void on_thread_event(rb_trace_arg_t *arg, rb_event_flag_t event)
{
    thread_rec *th = session_event_thread(arg);
    if (!th) return;
    uint64_t now = session_event_time_less(th, 0, 0);
    if (event & RUBY_EVENT_FIBER_SWITCH) {
        session_switch_fiber(th, arg, now);
        th->last_now = now;
    } else if (event & RUBY_EVENT_THREAD_END) {
        session_end_thread(th, now);
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
    const struct ruby_vm_trace_arg *head = ruby_vm_trace_arg(arg);
    VALUE a = head->klass;
    ID b = head->id;
    if (!a || !b) {
        /* Only a Ruby method's own frame holds its entry: at a C event
         * cfp is the caller's frame. */
        a = c_method ? 0 : ruby_vm_frame_method_entry(head->cfp);
        b = 0;
    }
    method_cache_entry *slot = &session.method_cache[method_cache_index(a, b)];
    return a && slot->a == a && slot->b == b ? slot->method : method_slow(arg, slot, a, b, call, c_method);
}

/* ---- the hot path: a call, a return, a block ---------------------------- */

/* Calls and returns each get their own function, so each keeps only the
 * registers it needs. No stack protector: nothing here writes through a
 * local buffer, and the canary check would cost every event. Hot: side by
 * side with the core's per-event code (TG_HOT_PATH, tg_profiler.h). */
#define TG_HOOK_PATH __attribute__((noinline, no_stack_protector)) TG_HOT_PATH

static TG_ALWAYS_INLINE void call_event(rb_trace_arg_t *arg, bool c_method, bool vm_reads)
{
    if (RB_UNLIKELY(session.hide_next_call)) {
        hide_call(arg);
        return;
    }
    uint32_t m = event_method(arg, true, c_method, vm_reads);
    if (!vm_reads && !c_method) session.last_call = m;   /* see block_public */
    if (m >= METHOD_IGNORED) return;   /* ours, or out of memory */
    thread_rec *th = session_event_thread_cached(arg, vm_reads);
    if (!th) return;
    tg_context *ctx = &th->current->ctx;
    uint64_t position = vm_reads ? session_frame_position(arg, c_method) : public_frame_position(c_method, ctx);
    int kind = c_method ? SESSION_COST_C : SESSION_COST_RUBY;
    uint64_t now = session_event_time_less(th, session.outside_cost[kind][SESSION_HOOK_CALL],
                                           session.inside_cost[kind][SESSION_HOOK_CALL]);   /* after our bookkeeping */
    tg_profiler_drop_stale(&session.prof, ctx, position, now);
    if (RB_UNLIKELY(ctx->resync)) close_dead_frames(ctx, arg, now, vm_reads);
    /* Most C methods return before they call anything: no frame for them
     * unless they do. */
    if (c_method) tg_profiler_push_leaf(&session.prof, ctx, m, position, now);
    else tg_profiler_push(&session.prof, ctx, m, position, now);
    th->last_now = now;
}

/* A C frame unwound by an exception, throw or break returns from its own
 * slot, one below where a normal return happens: tried when the normal
 * slot holds nothing. (The normal slot cannot hold a frame then, and the
 * C frame's own slot can hold no other method: its callers are above.) */
static TG_SLOW_PATH void return_from_own_slot(tg_context *ctx, uint32_t m, rb_trace_arg_t *arg, uint64_t now)
{
    tg_profiler_return_rare(&session.prof, ctx, m, ruby_vm_trace_cfp(arg), now);
}

/* The clock is read before the method is looked up: a lookup that misses
 * the cache (the slow way, several hundred ns) then falls after the
 * reading, in the caller's time, where the hook's sampled excess over the
 * calibration is taken out (sampled_hook_end), and not inside the method
 * returning, where nothing took it out. The estimated CPU clocks need the
 * thread for their reading, so they read it after, as before; no thread
 * is looked up before the method is known to be recorded. */
static TG_ALWAYS_INLINE void return_event(rb_trace_arg_t *arg, bool c_method, bool vm_reads)
{
    uint64_t early = session.estimate_cpu ? 0 : session_event_time(NULL);
    uint32_t m = event_method(arg, false, c_method, vm_reads);
    if (m >= METHOD_IGNORED) return;   /* ours, or a return from before the start */
    thread_rec *th = session_event_thread_cached(arg, vm_reads);
    if (!th) return;
    uint64_t raw = session.estimate_cpu ? session_event_time(th) : early;
    int kind = c_method ? SESSION_COST_C : SESSION_COST_RUBY;
    uint64_t now = session_time_less(th, raw, session.inside_cost[kind][SESSION_HOOK_RETURN],
                                     session.outside_cost[kind][SESSION_HOOK_RETURN]);   /* before our bookkeeping */
    tg_context *ctx = &th->current->ctx;
    if (!vm_reads) {
        /* As below; a C frame's own slot is one shallower (larger) than the normal one. */
        uint64_t position = public_frame_position(c_method, ctx);
        if (!tg_profiler_return_rare(&session.prof, ctx, m, position, now) && c_method && position)
            tg_profiler_return_rare(&session.prof, ctx, m, position + 1, now);
    } else {
        uint64_t position = session_frame_position(arg, c_method);
        if (!tg_profiler_return(&session.prof, ctx, m, position, now) && c_method && position)
            return_from_own_slot(ctx, m, arg, now);
    }
    th->last_now = now;
}

/* b_call and b_return: a block is a frame like a Ruby method's, at its
 * own block frame (cfp at both events). */
static TG_ALWAYS_INLINE void block_event(rb_trace_arg_t *arg, bool call, bool vm_reads, uint32_t last_call)
{
    thread_rec *th = session_event_thread_cached(arg, vm_reads);
    if (!th) return;
    tg_context *ctx = &th->current->ctx;
    if (call && RB_UNLIKELY(session.hide_next_block) && (vm_reads ? hide_block() : hide_block_public(arg))) return;
    uint64_t now = call ? 0 : session_event_time_less(th, session.inside_cost[SESSION_COST_BLOCK][SESSION_HOOK_RETURN],
                                                      session.outside_cost[SESSION_COST_BLOCK][SESSION_HOOK_RETURN]);   /* a return: before our bookkeeping */
    uint32_t m = vm_reads ? block_method_vm(arg, call) : block_public(arg, call, last_call, ctx);
    if (m >= METHOD_BODY) {
        /* A define_method body pushes no frame, but its b_call cost the
         * program a block's call (a b_return's cost is out already): left
         * in, such a method read 40 ns a call too long. */
        if (m == METHOD_BODY && call)
            th->last_now = session_event_time_less(th, session.outside_cost[SESSION_COST_BLOCK][SESSION_HOOK_CALL],
                                                   session.inside_cost[SESSION_COST_BLOCK][SESSION_HOOK_CALL]);
        return;
    }
    uint64_t position = vm_reads ? session_frame_position(arg, false) : public_frame_position(0, ctx);
    if (call) {
        now = session_event_time_less(th, session.outside_cost[SESSION_COST_BLOCK][SESSION_HOOK_CALL],
                                      session.inside_cost[SESSION_COST_BLOCK][SESSION_HOOK_CALL]);   /* a call: after it */
        tg_profiler_drop_stale(&session.prof, ctx, position, now);
        if (RB_UNLIKELY(ctx->resync)) close_dead_frames(ctx, arg, now, vm_reads);
        tg_profiler_push(&session.prof, ctx, m, position, now);
    } else {
        /* Not tg_profiler_return: a second call of it would keep link-time
         * optimisation from inlining it into on_return, and cost every
         * method's return (callgrind: +6% on fib with blocks: false). */
        tg_profiler_return_rare(&session.prof, ctx, m, position, now);
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

/* One event of `kind` and `direction`, timed from the hook's entry
 * (`start`, TSC ticks) to now: its running mean against the calibration's
 * (hook_base) moves the costs taken out (session.inside_cost, outside_cost).
 * - Above it: the hook costs this program more than the calibration's tight
 *   loops (a big program's tables miss the caches), and the excess is taken
 *   out too, outside the frame, where the hook's time falls.
 * - Below it: the calibration's loops ran while the machine was slower than
 *   it is for the program (another job on the other core for those 30 ms),
 *   and every part it measured is as much too large: both parts are scaled
 *   by mean / base. Left as they were, a process calibrated then took half
 *   as much again out of every event as others did. */
static TG_SLOW_PATH void sampled_hook_end(int kind, int direction, uint64_t start)
{
    uint64_t ticks = tg_tsc_ticks() - start;
    if (tg_tsc_ticks_to_ns(&session_tsc, ticks) > SESSION_HOOK_SAMPLE_MAX_NS) return;
    session.hook_ticks[kind][direction] += ticks;
    uint64_t n = ++session.hook_samples[kind][direction];
    uint64_t mean = tg_tsc_ticks_to_ns(&session_tsc, session.hook_ticks[kind][direction] / n);
    uint64_t base = session.hook_base[kind][direction];
    const uint64_t *cost = session.event_cost[kind];
    if (mean >= base) {
        session.inside_cost[kind][direction] = cost[SESSION_COST_INSIDE];
        session.outside_cost[kind][direction] = cost[SESSION_COST_OUTSIDE] + (mean - base);
    } else {
        session.inside_cost[kind][direction] = cost[SESSION_COST_INSIDE] * mean / base;
        session.outside_cost[kind][direction] = cost[SESSION_COST_OUTSIDE] * mean / base;
    }
}

/* The next sampled event, 16 to 47 events on (xorshift): a fixed step
 * would see only one kind of event in a loop whose events repeat in step. */
static TG_SLOW_PATH void next_sample_countdown(void)
{
    uint32_t x = session.sample_random;
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    session.sample_random = x;
    session.sample_countdown = SESSION_HOOK_SAMPLE_EVERY / 2 + (x & (SESSION_HOOK_SAMPLE_EVERY - 1));
}

/* Every SESSION_HOOK_SAMPLE_EVERY-th event, timed (sampled_hook_end). */
static TG_SLOW_PATH void on_event_sampled(rb_trace_arg_t *arg, rb_event_flag_t event)
{
    next_sample_countdown();
    uint64_t start = tg_tsc_ticks();
    if (event & CALL_EVENTS) {
        on_call(arg, event & RUBY_EVENT_C_CALL);
        sampled_hook_end((event & RUBY_EVENT_C_CALL) ? SESSION_COST_C : SESSION_COST_RUBY, SESSION_HOOK_CALL, start);
    } else if (event & (RUBY_EVENT_RETURN | RUBY_EVENT_C_RETURN)) {
        on_return(arg, event & RUBY_EVENT_C_RETURN);
        sampled_hook_end((event & RUBY_EVENT_C_RETURN) ? SESSION_COST_C : SESSION_COST_RUBY, SESSION_HOOK_RETURN, start);
    } else if (event & BLOCK_EVENTS) {
        on_block(arg, event & RUBY_EVENT_B_CALL);
        sampled_hook_end(SESSION_COST_BLOCK, (event & RUBY_EVENT_B_CALL) ? SESSION_HOOK_CALL : SESSION_HOOK_RETURN, start);
    } else {
        on_thread_event(arg, event);
    }
}

static TG_HOT_PATH void on_event(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    rb_event_flag_t event = ruby_vm_trace_arg(arg)->event;
    if (RB_UNLIKELY(--session.sample_countdown == 0) && session.sample_hooks) {
        on_event_sampled(arg, event);
        return;
    }
    if (event & CALL_EVENTS) on_call(arg, event & RUBY_EVENT_C_CALL);
    else if (event & (RUBY_EVENT_RETURN | RUBY_EVENT_C_RETURN)) on_return(arg, event & RUBY_EVENT_C_RETURN);
    else if (event & BLOCK_EVENTS) on_block(arg, event & RUBY_EVENT_B_CALL);
    else on_thread_event(arg, event);
}

/* on_event_sampled for the public-API hook. Its stack walk costs more the
 * deeper the stack (public_frames.h), far beyond the calibration's
 * shallow loops: timing it is what takes that out of the times. */
static TG_SLOW_PATH void on_event_public_sampled(rb_trace_arg_t *arg, rb_event_flag_t event, uint32_t last_call)
{
    next_sample_countdown();
    uint64_t start = tg_tsc_ticks();
    if (event & CALL_EVENTS) {
        call_event(arg, event & RUBY_EVENT_C_CALL, false);
        sampled_hook_end((event & RUBY_EVENT_C_CALL) ? SESSION_COST_C : SESSION_COST_RUBY, SESSION_HOOK_CALL, start);
    } else if (event & (RUBY_EVENT_RETURN | RUBY_EVENT_C_RETURN)) {
        return_event(arg, event & RUBY_EVENT_C_RETURN, false);
        sampled_hook_end((event & RUBY_EVENT_C_RETURN) ? SESSION_COST_C : SESSION_COST_RUBY, SESSION_HOOK_RETURN, start);
    } else if (event & BLOCK_EVENTS) {
        block_event(arg, event & RUBY_EVENT_B_CALL, false, last_call);
        sampled_hook_end(SESSION_COST_BLOCK, (event & RUBY_EVENT_B_CALL) ? SESSION_HOOK_CALL : SESSION_HOOK_RETURN, start);
    } else {
        on_thread_event(arg, event);
    }
}

/* The hook when the probe did not trust the VM reads: frame positions
 * from a walk of the stack, every method looked up through rb_tracearg_*. */
static TG_HOT_PATH void on_event_public(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    rb_event_flag_t event = rb_tracearg_event_flag(arg);
    uint32_t last_call = session.last_call;
    session.last_call = TG_NONE;
    if (RB_UNLIKELY(--session.sample_countdown == 0) && session.sample_hooks) {
        on_event_public_sampled(arg, event, last_call);
        return;
    }
    if (event & CALL_EVENTS) call_event(arg, event & RUBY_EVENT_C_CALL, false);
    else if (event & (RUBY_EVENT_RETURN | RUBY_EVENT_C_RETURN)) return_event(arg, event & RUBY_EVENT_C_RETURN, false);
    else if (event & BLOCK_EVENTS) block_event(arg, event & RUBY_EVENT_B_CALL, false, last_call);
    else on_thread_event(arg, event);
}

/* ---- while paused ------------------------------------------------------- */

/* A return while paused: the call it ends was made either during the
 * pause (not recorded, so no frame matches) or before it. A frame open at
 * the pause is closed here, at the moment the pause began (its clock is
 * stopped), so a call made after resume gets its real caller, not a
 * frame that is gone. Rare and off the hot path: its own hook. */
static TG_SLOW_PATH void paused_return(rb_trace_arg_t *arg, bool c_method)
{
    uint32_t m = method_slow(arg, NULL, 0, 0, false, c_method);
    if (m >= METHOD_IGNORED) return;
    thread_rec *th = session_event_thread(arg);
    if (!th) return;
    th->last_now = session_event_time_less(th, 0, 0);
    tg_context *ctx = &th->current->ctx;
    if (!ctx->suspended) return;   /* a stack first seen during the pause: no frames */
    uint64_t at = ctx->suspended_at;
    uint64_t position = session_vm.trusted ? session_frame_position(arg, c_method) : 0;
    if (!tg_profiler_return_rare(&session.prof, ctx, m, position, at) && c_method && position)
        return_from_own_slot(ctx, m, arg, at);
}

/* A block's return while paused, as paused_return. */
static TG_SLOW_PATH void paused_block_return(rb_trace_arg_t *arg)
{
    thread_rec *th = session_event_thread(arg);
    if (!th) return;
    th->last_now = session_event_time_less(th, 0, 0);
    tg_context *ctx = &th->current->ctx;
    if (!ctx->suspended) return;
    uint32_t m = session_vm.trusted ? block_method_vm(arg, false) : block_public(arg, false, TG_NONE, ctx);
    if (m >= METHOD_BODY) return;
    uint64_t position = session_vm.trusted ? session_frame_position(arg, false) : 0;
    tg_profiler_return_rare(&session.prof, ctx, m, position, ctx->suspended_at);
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

/* ---- for start_stop.c and Init ----------------------------------------- */

rb_event_hook_func_t event_hook_recording(void)
{
    return (rb_event_hook_func_t)(void (*)(void))(session_vm.trusted ? on_event : on_event_public);
}

rb_event_hook_func_t event_hook_paused(void)
{
    return (rb_event_hook_func_t)(void (*)(void))on_event_paused;
}

/* Tracegraph._hide_methods_of(mod): mod's methods are ours too (the
 * wrappers tracegraph/cli/process_end prepends to exit! and exec), so they
 * are left out of every profile like Tracegraph's own. One module. */
static VALUE hide_methods_of(VALUE mod, VALUE hidden)
{
    (void)mod;
    Check_Type(hidden, T_MODULE);
    hidden_module = hidden;
    return Qnil;
}

void event_hook_init(VALUE mTracegraph)
{
    cTracegraphSelf = rb_singleton_class(mTracegraph);
    rb_gc_register_mark_object(cTracegraphSelf);
    rb_gc_register_address(&hidden_module);   /* pinned: compared by address in the hook */
    rb_define_singleton_method(mTracegraph, "_hide_methods_of", hide_methods_of, 1);
}

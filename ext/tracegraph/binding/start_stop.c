/*
 * start_stop.c - Tracegraph._start, _stop, _pause, _resume, running? and
 * paused?: the one file that knows every hook. It sets up the session
 * (session.h), installs and removes the event hook (event_hook.h), the
 * garbage-collection hook (gc_events.h) and the allocation hook
 * (alloc_events.h) in their order, and at stop builds the result that
 * Tracegraph::Profile wraps, naming each method (naming.h) and handing
 * the call tree to a NativeCallTree (native_call_tree.h).
 *
 * Once every hook is gone, _untrace puts Ruby's instructions back
 * untraced (iseq_untrace.h) and clears Ruby's record that their events
 * were ever wanted (vm_event_flags.h), where no one else's hook wants them.
 *
 * Uses: start_stop.h, session.h, event_hook.h, gc_events.h,
 * alloc_events.h, iseq_untrace.h, named_options.h, naming.h, native_call_tree.h,
 * newobj_fast_path.h, ruby_vm_probe.h, vm_event_flags.h, core tg_profiler.h, tg_calltree.h,
 * tg_clock.h. None of them calls back.
 */
#include "start_stop.h"

#include <string.h>

#include "alloc_events.h"
#include "event_hook.h"
#include "gc_events.h"
#include "iseq_untrace.h"
#include "named_options.h"
#include "naming.h"
#include "native_call_tree.h"
#include "newobj_fast_path.h"
#include "ruby_vm_probe.h"
#include "session.h"
#include "vm_event_flags.h"

static VALUE mTracegraph, eError;

/* ---- the hooks ---------------------------------------------------------- */

static void add_hook(rb_event_hook_func_t func, rb_event_flag_t events)
{
    rb_event_hook_flag_t flags = RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG;
    if (RTEST(session.hook_thread)) rb_thread_add_event_hook2(session.hook_thread, func, events, Qnil, flags);
    else rb_add_event_hook2(func, events, Qnil, flags);
}

/* ---- C calls without rewriting Ruby's operators (vm_event_flags.h) ------
 *
 * With c_calls: true, Ruby's "ever enabled" record must say C events were
 * on whenever hooks change while our C hook is live: else Ruby sees them
 * as new and rewrites every operator into a call. And it must say they
 * were never on the rest of the time, or Ruby rewrites every instruction
 * sequence it compiles meanwhile (a profiled script's whole code). So it
 * is held around each change of our hooks, and put back right after. A
 * change by someone else (a program's TracePoint) while we record cannot
 * be held: Ruby then rewrites, and the record gains the C bits, which the
 * next hold sees (session.c_rewritten, said in the profile). */
static void c_ever_hold(void)
{
    if (!session.c_calls_called_only || session.c_held) return;
    if (vm_event_flags_c_ever() != session.c_ever_before) session.c_rewritten = true;
    vm_event_flags_set_c_ever(VM_EVENT_FLAGS_C);
    session.c_held = true;
}

static void c_ever_release(void)
{
    if (!session.c_held) return;
    vm_event_flags_set_c_ever(session.c_ever_before);
    session.c_held = false;
}

/* Installs `func` for `events`: for every thread, or with threads:
 * :current for the one thread, whose filter Ruby applies before calling
 * us, so other threads never reach the hook. With c_calls: true the C
 * events are a second hook of the same function, added while held (the
 * caller releases); the others go first, unheld, so that events new to
 * Ruby rewrite the instructions for themselves only. */
static void install_hook(rb_event_hook_func_t func, rb_event_flag_t events)
{
    session.hook = func;
    if (!session.c_calls_called_only || !(events & VM_EVENT_FLAGS_C)) {
        add_hook(func, events);
        return;
    }
    add_hook(func, events & ~(rb_event_flag_t)VM_EVENT_FLAGS_C);
    c_ever_hold();
    add_hook(func, events & VM_EVENT_FLAGS_C);
}

/* Removes every hook of the function installed now (both halves). */
static void remove_hook(void)
{
    if (RTEST(session.hook_thread)) rb_thread_remove_event_hook(session.hook_thread, session.hook);
    else rb_remove_event_hook(session.hook);
}

/* Measured once, at the first start, when profiling is about to
 * instrument calls anyway. */
static void measure_vm_layout(void)
{
    static bool measured;
    if (measured) return;
    measured = true;
    if (!rb_const_defined_at(mTracegraph, rb_intern("FrameProbe"))) return;
    session_vm = ruby_vm_probe_layout(rb_const_get_at(mTracegraph, rb_intern("FrameProbe")));
}

/* ---- start -------------------------------------------------------------- */

/* The clock a Symbol names (tg_clock_name's names, which must be
 * Tracegraph::CLOCKS: test_recording_options.rb reads this error). */
static tg_clock_kind clock_from_symbol(VALUE sym)
{
    static const tg_clock_kind kinds[] = {TG_CLOCK_WALL, TG_CLOCK_CPU, TG_CLOCK_THREAD_CPU};
    enum { KINDS = sizeof kinds / sizeof *kinds };
    for (size_t i = 0; i < KINDS; i++)
        if (sym == ID2SYM(rb_intern(tg_clock_name(kinds[i])))) return kinds[i];
    VALUE allowed = rb_str_new_cstr("");
    for (size_t i = 0; i < KINDS; i++) rb_str_catf(allowed, "%s:%s", i ? ", " : "", tg_clock_name(kinds[i]));
    rb_raise(rb_eArgError, "unknown clock %+" PRIsVALUE " (allowed: %" PRIsVALUE ")", sym, allowed);
}

/* True while Tracegraph._stop builds the profile. That calls Ruby (naming,
 * the thread's priority), so another thread may run and call _start,
 * whose memset of the session would pull the tables from under the stop
 * (and the stop's session_free would then free the new session's, with
 * its hook installed). A flag of its own: session is what _start clears. */
static bool stopping;

static const char *const START_KEYS[] = {
    "clock", "c_calls", "hide_next_call", "call_tree_nodes", "exact_clock", "current_thread_only", "gc", "blocks",
    "allocations", "hide_next_block", "event_costs", "calibrating", NULL};
static const char *const COST_KINDS[SESSION_COST_KINDS] = {"ruby", "block", "c"};
static const char *const COST_PARTS[] = {"inside", "outside", "hook_call", "hook_return", NULL};

/* event_costs: nil (raw times); :sample (raw times, but the hook's own
 * time is sampled: the calibration's recording); or, per kind, ns per
 * event: {ruby: {inside:, outside:, hook_call:, hook_return:}, block:
 * {...}, c: {...}} (Tracegraph::Calibration::Result#named): the parts
 * inside and outside the frame, and the hook's own time at a call and at
 * a return in the calibration's loops. */
static void read_event_costs(VALUE costs, session_options *o)
{
    if (NIL_P(costs)) return;
    if (costs != ID2SYM(rb_intern("sample"))) {
        static const char *const kinds[] = {"ruby", "block", "c", NULL};
        named_options_check(costs, "event_costs", kinds);
        for (int k = 0; k < SESSION_COST_KINDS; k++) {
            VALUE parts = named_options_get(costs, COST_KINDS[k]);
            named_options_check(parts, "event_costs", COST_PARTS);
            o->event_cost[k][SESSION_COST_INSIDE] = NUM2ULL(named_options_get(parts, "inside"));
            o->event_cost[k][SESSION_COST_OUTSIDE] = NUM2ULL(named_options_get(parts, "outside"));
            o->hook_base[k][SESSION_HOOK_CALL] = NUM2ULL(named_options_get(parts, "hook_call"));
            o->hook_base[k][SESSION_HOOK_RETURN] = NUM2ULL(named_options_get(parts, "hook_return"));
        }
    }
    o->sample_hooks = session_tsc_ready();
}

/* Tracegraph._start's Hash (Tracegraph.parse_start_options, and the
 * caller's hide_next_block and event_costs), each key read by its name
 * (named_options.h) into what the session is started with. The Ruby side
 * checks each option first; what reaches here otherwise raises. */
static session_options read_options(VALUE hash)
{
    named_options_check(hash, "_start", START_KEYS);
    session_options o = {0};
    o.clock = clock_from_symbol(named_options_get(hash, "clock"));
    VALUE c_calls = named_options_get(hash, "c_calls");
    if (c_calls == ID2SYM(rb_intern("all"))) o.c_calls = o.c_calls_all = true;
    else if (c_calls == Qtrue || c_calls == Qfalse) o.c_calls = c_calls == Qtrue;
    else rb_raise(rb_eArgError, "_start: c_calls must be true, false or :all, not %+" PRIsVALUE, c_calls);
    o.hide_next_call = RTEST(named_options_get(hash, "hide_next_call"));
    o.hide_next_block = RTEST(named_options_get(hash, "hide_next_block"));
    o.call_tree_nodes = NUM2UINT(named_options_get(hash, "call_tree_nodes"));
    o.exact_clock = RTEST(named_options_get(hash, "exact_clock"));
    o.current_thread_only = RTEST(named_options_get(hash, "current_thread_only"));
    o.calibrating = RTEST(named_options_get(hash, "calibrating"));
    o.gc = RTEST(named_options_get(hash, "gc"));
    o.blocks = RTEST(named_options_get(hash, "blocks"));
    o.allocations = RTEST(named_options_get(hash, "allocations"));
    read_event_costs(named_options_get(hash, "event_costs"), &o);
    return o;
}

/* Clears the session and sets it up for o: its tables, its clock, the
 * events it hooks, the costs it takes out. Raises NoMemError (the session
 * freed) if a table cannot be allocated. */
static void session_setup(const session_options *o, bool c_calls, bool called_only)
{
    memset(&session, 0, sizeof session);
    uint32_t tree_nodes = o->call_tree_nodes;
    if (!tg_profiler_init(&session.prof) || !tg_pairmap_init(&session.thread_index, 64) ||
        !tg_pairmap_init(&session.fiber_index, 64) || (tree_nodes && !tg_calltree_init(&session.tree, tree_nodes))) {
        session_free();
        rb_raise(rb_eNoMemError, "tracegraph: cannot allocate the profiler's tables");
    }
    if (tree_nodes) session.prof.tree = &session.tree;
    if (o->allocations) {
        tg_profiler_count_allocations(&session.prof);
        if (tree_nodes) tg_calltree_count_allocations(&session.tree);
    }
    session.clock = o->clock;
    session.clock_id = tg_clock_id(o->clock);
    session.estimate_cpu = o->clock != TG_CLOCK_WALL && !o->exact_clock;
    /* exact_clock keeps the wall clock on CLOCK_MONOTONIC itself; with the
     * CPU clocks it only matters between real CPU readings. */
    session.use_tsc = (o->clock == TG_CLOCK_WALL ? !o->exact_clock : session.estimate_cpu) && session_tsc_ready();
    session.events = RUBY_EVENT_CALL | RUBY_EVENT_RETURN | RUBY_EVENT_FIBER_SWITCH | RUBY_EVENT_THREAD_END;
    if (c_calls) session.events |= RUBY_EVENT_C_CALL | RUBY_EVENT_C_RETURN;
    session.c_calls_called_only = called_only && c_calls;
    session.c_ever_before = vm_event_flags_c_ever();
    memcpy(session.event_cost, o->event_cost, sizeof session.event_cost);
    memcpy(session.hook_base, o->hook_base, sizeof session.hook_base);
    for (int k = 0; k < SESSION_COST_KINDS; k++)
        for (int d = 0; d < 2; d++) {
            session.inside_cost[k][d] = o->event_cost[k][SESSION_COST_INSIDE];
            session.outside_cost[k][d] = o->event_cost[k][SESSION_COST_OUTSIDE];
        }
    session.sample_hooks = o->sample_hooks;
    session.sample_countdown = SESSION_HOOK_SAMPLE_EVERY;
    session.sample_random = 0x9E3779B9u;
    session.blocks = o->blocks;
    if (session.blocks) session.events |= RUBY_EVENT_B_CALL | RUBY_EVENT_B_RETURN;
    session.last_call = TG_NONE;
    session.cached_thread = Qundef;
    /* Without C calls the load/eval to hide is a C call: not traced. */
    session.hide_next_call = o->hide_next_call && c_calls;
    /* Resolve the calling thread here, outside the hook, where allocating
     * its root Fiber object is harmless. */
    if (!session_current_thread(rb_fiber_current())) {
        session_free();
        rb_raise(rb_eNoMemError, "tracegraph: cannot allocate the profiler's tables");
    }
    session.only_thread = o->current_thread_only ? rb_thread_current() : Qfalse;
    /* The calibration times its own loops: other threads' calls would
     * land in its recording and their time in its loops. Ruby's filter of
     * a thread's hooks costs each event one comparison, in the same list. */
    session.calibrating = o->calibrating;
    session.hook_thread = o->current_thread_only || o->calibrating ? rb_thread_current() : Qfalse;
    session.gc = o->gc;
    session.hide_next_block = session.blocks && o->hide_next_block;
    session.hide_block_thread = rb_thread_current();
    session.hidden_block_frame = 0;
    session.hidden_block_line = 0;
    session.allocations = o->allocations;
}

/* Tracegraph._start(options): reads the options (read_options), sets the
 * session up (session_setup) and installs the hooks in their order.
 * hide_next_call leaves out the first call made after start: the CLI's
 * `load` of the script, so the script's methods are the roots of the
 * graph. call_tree_nodes > 0 keeps a call tree of at most that many nodes.
 * exact_clock reads a CPU clock on every event instead of estimating it
 * between readings. current_thread_only records the calling thread (and
 * its fibers) only. gc records garbage collection (gc_events.h). blocks
 * records blocks as frames (block_frames.h); allocations counts the
 * objects allocated in each method (alloc_events.h); hide_next_block
 * leaves out the block the calling thread runs next (Tracegraph.profile's). */
static VALUE start_method(VALUE mod, VALUE hash)
{
    (void)mod;
    session_options options = read_options(hash);
    if (session.running) rb_raise(eError, "already started: call Tracegraph.stop first");
    if (stopping) rb_raise(eError, "another thread is stopping the profiler: start again once its Tracegraph.stop returns");
    /* c_calls: true traces the C methods called, without rewriting Ruby's
     * inlined operators into calls, where this Ruby lets us (the probe,
     * vm_event_flags.c); :all traces those as well. Before any hook. */
    bool called_only = options.c_calls && !options.c_calls_all;
    bool c_calls = options.c_calls && (!called_only || vm_event_flags_found());
    measure_vm_layout();
    /* Its probe, once per process, must run while no hook of ours is
     * on: here, before any is installed (newobj_fast_path_keep uses it). */
    newobj_fast_path_found();

    session_setup(&options, c_calls, called_only);
    session.running = true;
    iseq_untrace_hold_jit();
    session.wall_started = tg_clock_read(CLOCK_MONOTONIC);
    install_hook(event_hook_recording(), session.events);
    /* After the main hook: see pause_method. */
    if (session.gc) gc_events_start(&session.prof);
    /* Last of all: from here to the return nothing allocates. */
    if (session.allocations) alloc_events_start(&session.prof);
    c_ever_release();
    newobj_fast_path_keep();
    return Qnil;
}

/* ---- the result --------------------------------------------------------- */

/* nil, or [folded_calls, NativeCallTree]: the nodes move to the Ruby
 * object as they are (no copy, no Ruby object per node); the session's
 * index of them is freed at stop. */
static VALUE build_call_tree(void)
{
    if (!session.prof.tree) return Qnil;
    tg_calltree_node *nodes = session.tree.nodes;
    tg_calltree_allocations *allocations = session.tree.allocations;
    bool counted = session.tree.count_allocations;
    uint32_t count = session.tree.count;
    VALUE folded_calls = ULL2NUM(session.tree.folded_calls);
    session.tree.nodes = NULL;   /* the tree's now, even if wrapping fails */
    session.tree.allocations = NULL;
    session.tree.count = session.tree.capacity = 0;
    tg_calltree_free(&session.tree);   /* its index: not needed after stop */
    VALUE tree = native_call_tree_wrap(nodes, allocations, counted, count);
    return rb_ary_new_from_args(2, folded_calls, tree);
}

/* Builds the plain-data result that Tracegraph::Profile wraps, a Hash:
 *   clock:       the clock's Symbol
 *   threads:     [[thread, time], ...]
 *   methods:     [[name, file, line, is_c, calls, total, self(, allocations, self allocations,
 *                  {type => self allocations})], ...] (rows: the columns in this order)
 *   edges:       [[caller, callee, calls, total, self(, allocations, self allocations)], ...]
 *   complete:    whether nothing was dropped
 *   call_tree:   nil or [folded_calls, NativeCallTree]
 *   gc:          nil or [gc runs, gc step, marking and sweeping method indexes]
 *   wall_time:   ns
 *   allocations: whether allocations were counted (the rows' allocation columns)
 *   tracing:     {removed: ns of tracing's cost taken out, c_calls: true, :all, :rewritten or false,
 *                 hook_means: the hook's mean ns per event, {ruby: {call:, return:}, block:, c:},
 *                 each nil where not sampled,
 *                 slow_lookups: events whose method the hook's cache did not hold} */
static void result_set(VALUE hash, const char *key, VALUE value)
{
    rb_hash_aset(hash, ID2SYM(rb_intern(key)), value);
}

static VALUE build_result(void)
{
    /* First: it frees the call tree's index before the Ruby arrays grow. */
    VALUE call_tree = build_call_tree();
    VALUE threads = rb_ary_new_capa(session.prof.thread_count);
    for (uint32_t i = 0; i < session.prof.thread_count; i++)
        rb_ary_push(threads, rb_ary_new_from_args(2, session.threads[i].thread, ULL2NUM(session.prof.thread_time[i])));

    VALUE methods = rb_ary_new_capa(session.prof.method_count);
    VALUE pass = naming_pass_new();
    for (uint32_t i = 0; i < session.prof.method_count; i++) {
        const tg_method_stats *m = &session.prof.methods[i];
        VALUE loc = naming_location(&session.keys[i]);
        VALUE row = rb_ary_new_from_args(
            7, naming_name(&session.keys[i], pass), rb_ary_entry(loc, 0),
            rb_ary_entry(loc, 1),
            session.keys[i].is_c ? Qtrue : Qfalse, ULL2NUM(m->calls), ULL2NUM(m->total_time), ULL2NUM(m->self_time));
        if (session.allocations) {
            rb_ary_push(row, ULL2NUM(session.prof.method_allocations[i].total));
            rb_ary_push(row, ULL2NUM(session.prof.method_allocations[i].self));
            rb_ary_push(row, alloc_events_by_type(&session.prof.method_allocation_types[i]));
        }
        rb_ary_push(methods, row);
    }
    naming_tell_blocks_apart(methods, session.keys, session.prof.method_count);
    RB_GC_GUARD(pass);

    VALUE edges = rb_ary_new_capa(session.prof.edge_count);
    for (uint32_t i = 0; i < session.prof.edge_count; i++) {
        const tg_edge_stats *e = &session.prof.edges[i];
        VALUE row = rb_ary_new_from_args(5, UINT2NUM(e->caller), UINT2NUM(e->callee), ULL2NUM(e->calls),
                                         ULL2NUM(e->total_time), ULL2NUM(e->self_time));
        if (session.allocations) {
            rb_ary_push(row, ULL2NUM(session.prof.edge_allocations[i].total));
            rb_ary_push(row, ULL2NUM(session.prof.edge_allocations[i].self));
        }
        rb_ary_push(edges, row);
    }
    VALUE c_calls = session.c_calls_called_only          ? (session.c_rewritten ? ID2SYM(rb_intern("rewritten")) : Qtrue)
                    : (session.events & RUBY_EVENT_C_CALL) ? ID2SYM(rb_intern("all"))
                                                     : Qfalse;
    /* The hook's mean time per event (ns) by kind and direction, where
     * sampled: the calibration keeps it (hook_base of later recordings). */
    VALUE hook_means = rb_hash_new();
    for (int k = 0; k < SESSION_COST_KINDS; k++) {
        VALUE means = rb_hash_new();
        for (int d = 0; d < 2; d++)
            result_set(means, d == SESSION_HOOK_CALL ? "call" : "return",
                       session.hook_samples[k][d]
                           ? ULL2NUM(tg_tsc_ticks_to_ns(&session_tsc, session.hook_ticks[k][d] / session.hook_samples[k][d]))
                           : Qnil);
        result_set(hook_means, COST_KINDS[k], means);
    }
    VALUE tracing = rb_hash_new();
    result_set(tracing, "removed", ULL2NUM(session.cost_removed));
    result_set(tracing, "c_calls", c_calls);
    result_set(tracing, "hook_means", hook_means);
    result_set(tracing, "slow_lookups", ULL2NUM(session.slow_lookups));
    VALUE result = rb_hash_new();
    result_set(result, "clock", ID2SYM(rb_intern(tg_clock_name(session.clock))));
    result_set(result, "threads", threads);
    result_set(result, "methods", methods);
    result_set(result, "edges", edges);
    result_set(result, "complete", (session.dropped || session.prof.out_of_memory) ? Qfalse : Qtrue);
    result_set(result, "call_tree", call_tree);
    result_set(result, "gc", session.gc ? gc_events_result() : Qnil);
    result_set(result, "wall_time", ULL2NUM(session.wall_time));
    result_set(result, "allocations", session.allocations ? Qtrue : Qfalse);
    result_set(result, "tracing", tracing);
    return result;
}

static VALUE build_result_protected(VALUE unused)
{
    (void)unused;
    return build_result();
}

/* ---- pause, resume, stop ------------------------------------------------ */

/* Thread `th`'s clock now, on its own time line, from the calling thread
 * `me` (outside the hook), given `now` = session_clock_read(): the calling
 * thread's is read; on the CPU clocks, which are each thread's own,
 * another thread's cannot be read from here, and its time at its last
 * event stands in (a thread that is not running has used no CPU since,
 * unless it ran without events, in C). */
static uint64_t thread_clock_now(thread_rec *th, VALUE me, uint64_t now)
{
    return th->thread == me           ? session_event_time_less(th, 0, 0)
           : session.clock != TG_CLOCK_WALL ? th->last_now
                                      : session_time_at(th, now);
}

/* Whether there is a recording the calling thread may pause, resume or
 * stop. The calibration's, made inside Tracegraph.start on the starting
 * thread, is not the profile: to every other thread nothing is recording
 * yet (running? says false to all); Tracegraph::Calibration stops it. */
static bool recording_for_caller(void)
{
    return session.running && (!session.calibrating || rb_thread_current() == session.hook_thread);
}

/* Tracegraph._pause: stops every running stack's clock and stops
 * recording calls; the stacks stay open (see event_hook_paused). */
static VALUE pause_method(VALUE mod)
{
    (void)mod;
    if (!recording_for_caller()) rb_raise(eError, "not started: call Tracegraph.start before Tracegraph.pause");
    if (session.paused) rb_raise(eError, "already paused: call Tracegraph.resume first");
    /* The GC and allocation hooks go first and come back last (resume_method,
     * start_method): they are never on without the main hook, and nothing
     * allocated here or in the Ruby that pauses is counted. */
    c_ever_hold();
    if (session.allocations) alloc_events_stop();
    if (session.gc) gc_events_pause();
    remove_hook();
    /* A pending C leaf becomes a frame, so a return during the pause
     * closes it like any other. */
    if (session.prof.running) tg_profiler_settle_leaf(&session.prof, session.prof.running);
    uint64_t now = session_clock_read();
    VALUE me = rb_thread_current();
    for (uint32_t i = 0; i < session.prof.thread_count; i++) {
        thread_rec *th = &session.threads[i];
        tg_context_suspend(&th->current->ctx, thread_clock_now(th, me, now));
        th->clock.estimate_valid = false;
    }
    session.paused = true;
    session.wall_paused_at = tg_clock_read(CLOCK_MONOTONIC);
    rb_event_flag_t events = RUBY_EVENT_RETURN | RUBY_EVENT_FIBER_SWITCH | RUBY_EVENT_THREAD_END;
    events |= session.events & (RUBY_EVENT_C_RETURN | RUBY_EVENT_B_RETURN);
    install_hook(event_hook_paused(), events);
    c_ever_release();
    return Qnil;
}

/* Tracegraph._resume: restarts the clock of each thread's running stack
 * (stacks switched out stay stopped until switched in) and records calls
 * again. */
static VALUE resume_method(VALUE mod)
{
    (void)mod;
    if (!recording_for_caller()) rb_raise(eError, "not started: call Tracegraph.start and Tracegraph.pause first");
    if (!session.paused) rb_raise(eError, "not paused: call Tracegraph.pause first");
    c_ever_hold();
    remove_hook();
    uint64_t now = session_clock_read();
    VALUE me = rb_thread_current();
    for (uint32_t i = 0; i < session.prof.thread_count; i++) {
        thread_rec *th = &session.threads[i];
        tg_context_resume(&th->current->ctx, thread_clock_now(th, me, now));
        th->clock.estimate_valid = false;
    }
    session.paused = false;
    session.wall_paused += tg_clock_read(CLOCK_MONOTONIC) - session.wall_paused_at;
    install_hook(event_hook_recording(), session.events);
    if (session.gc) gc_events_resume();
    if (session.allocations) alloc_events_start(&session.prof);
    c_ever_release();
    newobj_fast_path_keep();
    return Qnil;
}

/* The stopping thread runs at the highest priority while it builds the
 * result, which makes Ruby's time slice 8 times as long (100 ms << 3):
 * each time it hands the lock to a waiting thread, that thread may
 * compact the whole heap (issue 30: a thread running GC.compact made a
 * 1.7 s stop take 56 s). Tracegraph.stop does the same around
 * Profile.from_native. Under rb_protect: a failure costs only the speed. */
static VALUE set_priority(VALUE priority)
{
    return rb_funcall(rb_thread_current(), rb_intern("priority="), 1, priority);
}

static VALUE get_priority(VALUE unused)
{
    (void)unused;
    return rb_funcall(rb_thread_current(), rb_intern("priority"), 0);
}

static VALUE protected_priority(VALUE (*call)(VALUE), VALUE arg)
{
    int state = 0;
    VALUE result = rb_protect(call, arg, &state);
    if (state) rb_set_errinfo(Qnil);
    return state ? Qnil : result;
}

/* Tracegraph._stop: removes the hook, closes open frames, returns the data. */
static VALUE stop_method(VALUE mod)
{
    (void)mod;
    if (!recording_for_caller()) rb_raise(eError, "not started: call Tracegraph.start first");
    c_ever_hold();
    if (session.allocations) alloc_events_stop();   /* first, as in pause_method */
    if (session.gc) gc_events_stop();
    remove_hook();
    /* As before the start; unless Ruby rewrote the operators for someone
     * else's hook meanwhile, which may still want C events. */
    if (session.c_rewritten) session.c_held = false;
    c_ever_release();
    iseq_untrace_release_jit();
    session.running = false;
    uint64_t wall_end = session.paused ? session.wall_paused_at : tg_clock_read(CLOCK_MONOTONIC);
    session.wall_time = wall_end - session.wall_started - session.wall_paused;

    uint64_t now = session_clock_read();
    VALUE me = rb_thread_current();
    for (uint32_t i = 0; i < session.prof.thread_count; i++) {
        thread_rec *th = &session.threads[i];
        /* Close each thread's frames on that thread's own time line
         * (stacks stopped by a pause or a fiber switch at that moment). */
        uint64_t at = thread_clock_now(th, me, now);
        for (uint32_t c = 0; c < session.context_count; c++)
            if (session.contexts[c]->ctx.thread == i) tg_profiler_close_all(&session.prof, &session.contexts[c]->ctx, at);
        session.cost_removed += th->cost_removed;
    }

    stopping = true;
    VALUE priority = protected_priority(get_priority, Qnil);
    if (FIXNUM_P(priority)) protected_priority(set_priority, INT2FIX(3));
    int state = 0;
    VALUE result = rb_protect(build_result_protected, Qnil, &state);
    if (FIXNUM_P(priority)) protected_priority(set_priority, priority);
    session_free();
    stopping = false;
    if (state) rb_jump_tag(state);
    return result;
}

/* ---- untracing ----------------------------------------------------------- */

/* The names of the instruction events in `events`, for a message. */
static VALUE event_names(rb_event_flag_t events)
{
    static const struct { rb_event_flag_t flag; const char *name; } names[] = {
        {RUBY_EVENT_LINE, "line"}, {RUBY_EVENT_CLASS, "class"}, {RUBY_EVENT_END, "end"},
        {RUBY_EVENT_CALL, "call"}, {RUBY_EVENT_RETURN, "return"}, {RUBY_EVENT_C_CALL, "c_call"},
        {RUBY_EVENT_C_RETURN, "c_return"}, {RUBY_EVENT_B_CALL, "b_call"}, {RUBY_EVENT_B_RETURN, "b_return"},
        {VM_EVENT_RESCUE, "rescue"}, {VM_EVENT_FLAGS_COVERAGE, "coverage"}};
    VALUE text = rb_str_new_cstr("");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        if (!names[i].flag || !(events & names[i].flag)) continue;
        if (RSTRING_LEN(text)) rb_str_cat_cstr(text, ", ");
        rb_str_cat_cstr(text, names[i].name);
    }
    return text;
}

/* Tracegraph._untrace, called by Tracegraph.stop once the profile's hooks
 * (and its Rails watch) are gone: makes Ruby's instructions plain again
 * (iseq_untrace.h) and has Ruby forget that their events were ever
 * wanted, so that code compiled later is plain too. Returns
 * {iseqs:, instructions:, kept:, kept_instructions:, yjit_invalidated:}, or a String saying
 * why it left them traced, as Ruby leaves them: another hook wants their
 * events (a TracePoint, a debugger, coverage), or this Ruby is not as
 * iseq_untrace.c reads it. */
static VALUE untrace_method(VALUE mod)
{
    (void)mod;
    if (session.running) return rb_str_new_cstr("the profiler is running");
    rb_event_flag_t ever = 0, live = 0;
    if (!vm_event_flags_found() || !vm_event_flags_now(&ever, &live))
        return rb_str_new_cstr("this Ruby's record of the events hooks want was not found");
    if (live & VM_EVENT_FLAGS_ISEQ)
        return rb_sprintf("another event hook wants %" PRIsVALUE " events (a TracePoint, a debugger or coverage)",
                          event_names(live & VM_EVENT_FLAGS_ISEQ));
    if (ever & VM_EVENT_FLAGS_COVERAGE) return rb_str_new_cstr("coverage was measured in this process");
    iseq_untrace_counts counts = {0};
    const char *why = iseq_untrace_unsure();
    if (!why && (ever & VM_EVENT_FLAGS_ISEQ)) {
        why = iseq_untrace_all(&counts);
        /* Even after a failure part way: a sequence made plain must be
         * traced again by the next hook, which Ruby does only for events
         * it has not seen. */
        vm_event_flags_clear_traced();
    }
    if (why) return rb_str_new_cstr(why);
    VALUE result = rb_hash_new();
    result_set(result, "iseqs", SIZET2NUM(counts.iseqs));
    result_set(result, "instructions", SIZET2NUM(counts.instructions));
    result_set(result, "kept", SIZET2NUM(counts.kept));
    result_set(result, "kept_instructions", SIZET2NUM(counts.kept_instructions));
    result_set(result, "yjit_invalidated", counts.yjit_invalidated ? Qtrue : Qfalse);
    return result;
}

/* The calibration's recording, made inside Tracegraph.start, is not the
 * profile: to the program nothing runs until start returns. */
static VALUE running_p_method(VALUE mod)
{
    (void)mod;
    return session.running && !session.calibrating ? Qtrue : Qfalse;
}

static VALUE paused_p_method(VALUE mod)
{
    (void)mod;
    return session.running && !session.calibrating && session.paused ? Qtrue : Qfalse;
}

/* For tests: the measured control frame size, 0 if positions are off. */
static VALUE frame_size_method(VALUE mod)
{
    (void)mod;
    return ULL2NUM(session_vm.frame_size);
}

/* For tests: whether the probe trusted the VM reads (ruby_vm.h). */
static VALUE vm_reads_p_method(VALUE mod)
{
    (void)mod;
    return session_vm.trusted ? Qtrue : Qfalse;
}

/* For tests: whether the allocation hook is installed now. */
static VALUE allocation_hook_p_method(VALUE mod)
{
    (void)mod;
    return alloc_events_installed() ? Qtrue : Qfalse;
}

void start_stop_init(VALUE mod, VALUE error)
{
    mTracegraph = mod;
    eError = error;
    rb_define_singleton_method(mTracegraph, "_start", start_method, 1);
    rb_define_singleton_method(mTracegraph, "_stop", stop_method, 0);
    rb_define_singleton_method(mTracegraph, "_pause", pause_method, 0);
    rb_define_singleton_method(mTracegraph, "_resume", resume_method, 0);
    rb_define_singleton_method(mTracegraph, "_untrace", untrace_method, 0);
    rb_define_singleton_method(mTracegraph, "running?", running_p_method, 0);
    rb_define_singleton_method(mTracegraph, "paused?", paused_p_method, 0);
    rb_define_singleton_method(mTracegraph, "_frame_size", frame_size_method, 0);
    rb_define_singleton_method(mTracegraph, "_vm_reads?", vm_reads_p_method, 0);
    rb_define_singleton_method(mTracegraph, "_allocation_hook?", allocation_hook_p_method, 0);
}

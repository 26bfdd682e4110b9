/*
 * gc_events.c - garbage collection in the profile: Ruby's internal GC
 * events into the core's tg_gc (see tg_gc.h for what each event means and
 * how steps become frames, gc_events.h for the rules of this hook).
 *
 * The events mean the same on 3.1, 3.3 and 3.4 (gc.c; gc/default.c in
 * 3.4): gc_enter() fires GC_ENTER and gc_exit() GC_EXIT around a whole
 * collection (gc_start: START, then marking, END_MARK, then sweeping,
 * lazily unless immediate), around each increment of incremental marking
 * or lazy sweeping (3.1 "mark_continue"/"sweep_continue", 3.3+
 * "continue"), and around gc_rest, which finishes an unfinished one before
 * the next collection or GC.disable; END_SWEEP fires when the last page is
 * swept (gc_sweep_finish). Runs on 3.1 here show the orders tg_gc's tests
 * replay: ESMWX for GC.start, ESMX then EX... then EWX for a minor GC
 * swept lazily, ESX... EMX... for incremental marking. Ruby allows no hook
 * that mixes internal and normal events (alloc_event_hook raises), hence
 * this second hook.
 *
 * Uses: gc_events.h, session.h (the running context, the pseudo-methods'
 * keys), core tg_gc.h, tg_profiler.h. Calls no file that calls it.
 */
#include "gc_events.h"

#include "session.h"
#include "tg_gc.h"

#define GC_EVENTS                                                                                       \
    (RUBY_INTERNAL_EVENT_GC_ENTER | RUBY_INTERNAL_EVENT_GC_EXIT | RUBY_INTERNAL_EVENT_GC_START |       \
     RUBY_INTERNAL_EVENT_GC_END_MARK | RUBY_INTERNAL_EVENT_GC_END_SWEEP)

static struct {
    tg_gc gc;
    tg_profiler *prof;
    bool installed;
} gc_state;

static tg_gc_event core_event(rb_event_flag_t flag)
{
    switch (flag) {
    case RUBY_INTERNAL_EVENT_GC_ENTER: return TG_GC_ENTER;
    case RUBY_INTERNAL_EVENT_GC_START: return TG_GC_START;
    case RUBY_INTERNAL_EVENT_GC_END_MARK: return TG_GC_END_MARK;
    case RUBY_INTERNAL_EVENT_GC_END_SWEEP: return TG_GC_END_SWEEP;
    default: return TG_GC_EXIT;
    }
}

/* Runs inside the collector. rb_tracearg_event_flag only reads the
 * argument; the context lookup allocates no Ruby object. The clock is
 * read at a step's enter and at events inside a recorded step only. */
/* Creates the pseudo-methods the core is about to push, if it has none
 * yet: on entering a step while a collection is under way, the step's and
 * its phase's; when a collection starts, the step's (an idle step is
 * recorded only then, see tg_gc.c) and marking's; when marking ends,
 * sweeping's. */
static void create_pseudo_methods(tg_gc_event event)
{
    tg_gc *g = &gc_state.gc;
    bool entering = event == TG_GC_ENTER && g->phase != TG_GC_IDLE;
    bool marking = event == TG_GC_START || (entering && g->phase == TG_GC_MARKING);
    bool sweeping = event == TG_GC_END_MARK || (entering && g->phase == TG_GC_SWEEPING);
    if ((entering || event == TG_GC_START) && g->step == TG_NONE) g->step = session_gc_method(TG_GC_NODE_STEP);
    if (marking && g->marking == TG_NONE) g->marking = session_gc_method(TG_GC_NODE_MARKING);
    if (sweeping && g->sweeping == TG_NONE) g->sweeping = session_gc_method(TG_GC_NODE_SWEEPING);
}

static void on_gc_event(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    tg_gc_event event = core_event(rb_tracearg_event_flag(arg));
    uint64_t now = 0;
    tg_context *c = NULL;
    if (event == TG_GC_ENTER || tg_gc_in_step(&gc_state.gc)) c = session_event_context(arg, &now);
    if (c) create_pseudo_methods(event);
    tg_gc_event_at(&gc_state.gc, gc_state.prof, c, event, now);
}

static VALUE latest_gc_state(VALUE key)
{
    return rb_gc_latest_gc_info(key);
}

/* Where the collector is: an unfinished collection (lazy sweeping,
 * incremental marking) goes on in the steps we will see. Ruby call:
 * outside the hook only. Called with the hooks installed, so it must not
 * raise: a Ruby without the :state key counts as idle (those steps' time
 * then stays in the step's own node until the next collection starts). */
static tg_gc_phase current_phase(void)
{
    int error = 0;
    VALUE state = rb_protect(latest_gc_state, ID2SYM(rb_intern("state")), &error);
    if (error) {
        rb_set_errinfo(Qnil);
        return TG_GC_IDLE;
    }
    if (state == ID2SYM(rb_intern("marking"))) return TG_GC_MARKING;
    if (state == ID2SYM(rb_intern("sweeping"))) return TG_GC_SWEEPING;
    return TG_GC_IDLE;
}

static void install(void)
{
    if (gc_state.installed) return;
    rb_add_event_hook2((rb_event_hook_func_t)(void (*)(void))on_gc_event, GC_EVENTS, Qnil,
                       RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
    gc_state.installed = true;
}

static void uninstall(void)
{
    if (!gc_state.installed) return;
    rb_remove_event_hook((rb_event_hook_func_t)(void (*)(void))on_gc_event);
    gc_state.installed = false;
}

void gc_events_start(tg_profiler *p)
{
    uninstall();
    gc_state.prof = p;
    tg_gc_init(&gc_state.gc, TG_NONE, TG_NONE, TG_NONE, current_phase());
    install();
}

void gc_events_pause(void)
{
    uninstall();
}

void gc_events_resume(void)
{
    tg_gc_set_phase(&gc_state.gc, current_phase());
    install();
}

void gc_events_stop(void)
{
    uninstall();
    gc_state.prof = NULL;
}

static VALUE index_or_minus_one(uint32_t i)
{
    return i == TG_NONE ? INT2FIX(-1) : UINT2NUM(i);
}

VALUE gc_events_result(void)
{
    return rb_ary_new_from_args(4, ULL2NUM(gc_state.gc.runs), index_or_minus_one(gc_state.gc.step),
                                index_or_minus_one(gc_state.gc.marking), index_or_minus_one(gc_state.gc.sweeping));
}

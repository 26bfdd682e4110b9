/* tg_gc.c - see tg_gc.h for the design. */
#include "tg_gc.h"

#include <string.h>

const char *tg_gc_node_name(uint32_t node)
{
    switch (node) {
    case TG_GC_NODE_STEP: return "(garbage collection)";
    case TG_GC_NODE_MARKING: return "(garbage collection: marking)";
    case TG_GC_NODE_SWEEPING: return "(garbage collection: sweeping)";
    default: return NULL;
    }
}

void tg_gc_init(tg_gc *g, uint32_t step, uint32_t marking, uint32_t sweeping, tg_gc_phase phase)
{
    memset(g, 0, sizeof *g);
    g->step = step;
    g->marking = marking;
    g->sweeping = sweeping;
    g->phase = phase;
}

void tg_gc_set_phase(tg_gc *g, tg_gc_phase phase)
{
    g->phase = phase;
}

/* Closes the open step's frames above `depth + keep` (keep 1: the step's
 * own frame stays). Only frames pushed here are there: nothing else runs
 * on a context inside a step. */
static void close_frames(tg_gc *g, tg_profiler *p, uint32_t keep, uint64_t now)
{
    tg_context *c = g->in;
    while (c->depth > g->depth + keep) tg_profiler_pop(p, c, now);
}

/* Pushes the frame of the current phase under the open step, if any. */
static void open_phase(tg_gc *g, tg_profiler *p, uint64_t now)
{
    tg_context *c = g->in;
    if (c->depth != g->depth + 1) return;   /* the step's frame was not pushed */
    uint32_t m = g->phase == TG_GC_MARKING ? g->marking : g->phase == TG_GC_SWEEPING ? g->sweeping : TG_NONE;
    if (m != TG_NONE) tg_profiler_push(p, c, m, 0, now);
}

/* An ENTER while a step is open: its EXIT was missed (Ruby always sends
 * one, so this is defensive). Its frames end now if they are on `c`, else
 * where they began (their own clock cannot be read from here), closed
 * with their context made the running one. */
static void close_stale_step(tg_gc *g, tg_profiler *p, tg_context *c, uint64_t now)
{
    tg_context *stale = g->in, *running = p->running;
    if (stale != c) {
        now = 0;
        if (stale->depth > g->depth) now = stale->frames[g->depth].start + stale->suspended_time;
        tg_profiler_activate(p, stale);
    }
    close_frames(g, p, 0, now);
    if (stale != c) tg_profiler_activate(p, running);
    g->in = NULL;
}

/* Pushes the step's frame at `now` on c; opens the phase's frame under it
 * if `with_phase`. */
static void push_step(tg_gc *g, tg_profiler *p, tg_context *c, uint64_t now, bool with_phase)
{
    if (g->step == TG_NONE) return;
    /* A pending leaf (the C method that allocated) becomes the caller. */
    tg_profiler_settle_leaf(p, c);
    uint32_t depth = c->depth;
    tg_profiler_push(p, c, g->step, 0, now);
    if (c->depth != depth + 1) return;   /* out of memory: not recorded */
    g->in = c;
    g->depth = depth;
    if (with_phase) open_phase(g, p, now);
}

/* A step entered while the collector is idle may do nothing at all: Ruby
 * 3.3 and later enter and leave the collector whenever the heap needs a
 * page, to continue a collection that may not exist (gc_continue), with
 * GC.disable too. Such a step is recorded only if a collection starts in
 * it, from when it was entered; otherwise its instant stays its caller's. */
static void enter(tg_gc *g, tg_profiler *p, tg_context *c, uint64_t now)
{
    g->pending = NULL;
    if (!c) return;
    if (g->phase == TG_GC_IDLE) {
        g->pending = c;
        g->pending_since = now;
        return;
    }
    push_step(g, p, c, now, true);
}

void tg_gc_event_at(tg_gc *g, tg_profiler *p, tg_context *c, tg_gc_event event, uint64_t now)
{
    /* A step's frames belong to the context it began on; an event from
     * another (impossible while Ruby holds the GVL through a step) leaves
     * them alone, and so do phase changes outside a step. */
    bool here = g->in && g->in == c;
    switch (event) {
    case TG_GC_ENTER:
        /* A step left open (its exit was missed) ends here, on its own
         * context's stack (made the running one while it is closed). */
        if (g->in) close_stale_step(g, p, c, now);
        enter(g, p, c, now);
        break;
    case TG_GC_START:
        g->phase = TG_GC_MARKING;
        if (g->pending && g->pending == c && !g->in) {
            push_step(g, p, c, g->pending_since, false);   /* its marking opens below, now */
            here = g->in == c;
        }
        g->pending = NULL;
        if (here) {
            g->runs++;
            close_frames(g, p, 1, now);
            open_phase(g, p, now);
        }
        break;
    case TG_GC_END_MARK:
        g->phase = TG_GC_SWEEPING;
        if (here) {
            close_frames(g, p, 1, now);
            open_phase(g, p, now);
        }
        break;
    case TG_GC_END_SWEEP:
        g->phase = TG_GC_IDLE;
        if (here) close_frames(g, p, 1, now);
        break;
    case TG_GC_EXIT:
        g->pending = NULL;   /* an idle step that did nothing: not recorded */
        if (here) {
            close_frames(g, p, 0, now);
            g->in = NULL;
        }
        break;
    }
}

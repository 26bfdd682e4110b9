/*
 * tg_gc.h - garbage collection as frames in the profile.
 *
 * Ruby reports its collector through internal events. ENTER and EXIT
 * bracket every step the collector takes on a thread: a whole collection,
 * one increment of incremental marking or of lazy sweeping, or the rest of
 * an unfinished one before the next begins. START, END_MARK and END_SWEEP
 * mark the phase boundaries and fire inside those steps. A step has no
 * event saying what it does, so the phase is tracked across steps: START
 * begins marking, END_MARK ends it and begins sweeping, END_SWEEP ends
 * sweeping.
 *
 * Each step becomes frames on the context that was running when it began:
 *   caller -> (garbage collection) -> (garbage collection: marking)
 *                                  -> (garbage collection: sweeping)
 * The step's frame counts one call per step (per GC entry); the phase
 * frames below it hold the time spent marking or sweeping, and the step's
 * own self time is what neither phase covers. The caller's self time loses
 * exactly the GC time, as for any callee.
 *
 * The binding makes each pseudo-method the first time it is about to be
 * pushed (TG_NONE until then: nothing is pushed for it). Events here
 * allocate only what any push does (a frame slot, an edge the first time
 * a method triggers GC), with plain malloc: nothing here can call back
 * into Ruby.
 */
#ifndef TG_GC_H
#define TG_GC_H

#include <stdbool.h>
#include <stdint.h>

#include "tg_profiler.h"

typedef enum tg_gc_phase {
    TG_GC_IDLE = 0,
    TG_GC_MARKING,
    TG_GC_SWEEPING,
} tg_gc_phase;

typedef enum tg_gc_event {
    TG_GC_ENTER,
    TG_GC_START,      /* a collection starts: marking begins */
    TG_GC_END_MARK,   /* marking ends, sweeping begins */
    TG_GC_END_SWEEP,  /* sweeping ends */
    TG_GC_EXIT,
} tg_gc_event;

/* Which pseudo-method; also the second half of its key. */
typedef enum tg_gc_node {
    TG_GC_NODE_STEP = 1,     /* "(garbage collection)" */
    TG_GC_NODE_MARKING,      /* "(garbage collection: marking)" */
    TG_GC_NODE_SWEEPING,     /* "(garbage collection: sweeping)" */
} tg_gc_node;

typedef struct tg_gc {
    uint32_t step, marking, sweeping;   /* the pseudo-methods' indexes */
    tg_gc_phase phase;
    uint64_t runs;        /* collections started on a recorded context */
    tg_context *in;       /* the context of the open step; NULL if none */
    uint32_t depth;       /* its depth below the step's frame */
    tg_context *pending;  /* a step entered while the collector was idle, */
    uint64_t pending_since; /* not recorded unless a collection starts in it */
} tg_gc;

/* The display name of a pseudo-method, or NULL for another number. */
const char *tg_gc_node_name(uint32_t node);

/* Starts tracking with the collector in `phase` (where an unfinished
 * collection may leave it) and the three pseudo-methods' indexes (TG_NONE:
 * not made yet; the binding sets them before they are pushed). */
void tg_gc_init(tg_gc *g, uint32_t step, uint32_t marking, uint32_t sweeping, tg_gc_phase phase);

/* Where the collector is now, when events were missed (a pause). Any open
 * step is left as it is. */
void tg_gc_set_phase(tg_gc *g, tg_gc_phase phase);

/* One event. `c` is the running context of the thread the event fires on
 * (it must be the profiler's running context), or NULL if that thread is
 * not recorded: then only the phase is tracked. `now` is c's clock. */
void tg_gc_event_at(tg_gc *g, tg_profiler *p, tg_context *c, tg_gc_event event, uint64_t now);

/* Whether a step is open (the binding needs the clock then). */
static inline bool tg_gc_in_step(const tg_gc *g)
{
    return g->in != NULL || g->pending != NULL;
}

#endif

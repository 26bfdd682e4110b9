/*
 * tg_profiler.h - the aggregation core: shadow stacks in, exact statistics out.
 *
 * The binding feeds it events ("context C called method M at time T",
 * "... returned from M") and it keeps, per method and per caller->callee
 * edge, the call count, the total time and the self time.
 *
 * Invariants the design keeps:
 *  - Memory grows with distinct methods, edges, contexts and stack depth,
 *    never with the number of calls.
 *  - Self times add up: every closed frame adds its self time to its
 *    method, and the sum over a thread's methods is that thread's time.
 *  - Recursion counts each moment once: a frame adds to its method's (and
 *    edge's) total only if it is the outermost frame of that method (edge)
 *    on the stack. `active` counts how many frames of a method are on the
 *    stack of the *running* context; switching contexts moves those counts
 *    (tg_profiler_activate), so the check is O(1) per event.
 *  - Unbalanced events are normal: a return with no matching frame is
 *    ignored, and a return that matches a frame below the top closes the
 *    frames above it first (frames skipped by a stack overflow). With
 *    positions the match is exact: the frame in the returning slot.
 *  - Stack positions resynchronise without waiting for a return: each
 *    event may carry the position of its frame on the real stack (a number
 *    that gets smaller as the stack deepens, such as a frame's address; 0
 *    if unknown). A shadow frame at or below a new call's position cannot
 *    be its ancestor, so its real frame is gone (Ruby skips return events
 *    when it unwinds a SystemStackError) and it is closed.
 *  - Time in a context runs only while it is switched in: each context
 *    keeps the time it spent suspended as an offset (fibers).
 *  - A leaf costs no frame: most C method calls return before making a
 *    call of their own, so such a call (tg_profiler_push_leaf) is only
 *    noted as the context's pending leaf and booked at its return, with
 *    exactly the numbers a push and a pop would give. Any other event on
 *    the context first turns the pending leaf into a real frame, so
 *    everything else sees ordinary frames.
 *  - Allocations (tg_profiler.count_allocations) are a second clock: each
 *    context counts the objects allocated while it runs (the binding adds
 *    to tg_context.allocations), and frames book the count between their
 *    push and pop exactly as they book time, self and total, recursion
 *    counted once. The count only ever grows, so nothing is clamped. Off,
 *    they cost a predictable branch per push and pop and a store per
 *    leaf (callgrind: +0.7% of the hook's instructions on fib). With the
 *    call tree counting them too (tg_calltree_count_allocations), a
 *    frame's node gets them where it gets its time.
 *  - Allocations by type (tg_profiler_allocation) are booked at the
 *    allocation, to the method on top of the allocating context's stack
 *    (its pending leaf, or its top frame): exactly the frame whose self
 *    allocations the object becomes when it pops, so once every frame is
 *    closed a method's types add up to its self allocations. An object
 *    allocated with no frame open belongs to no method in either count.
 *
 * A context is one shadow stack: one per Ruby thread and one per fiber.
 * No Ruby headers here; the binding maps Ruby objects to indexes.
 */
#ifndef TG_PROFILER_H
#define TG_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tg_calltree.h"
#include "tg_pairmap.h"

#define TG_NONE UINT32_MAX

/* The code every event runs, here and in the binding's hook. GCC puts
 * functions marked hot side by side (.text.hot), so the few dozen cache
 * lines an event runs are consecutive: they fall in different sets of the
 * L1 instruction cache, instead of wherever the link put them, where
 * several could share a set with the program's hottest code and evict it.
 * The program's own misses are tracing's cost that the hook cannot time
 * (`rake bench:footprint` counts them). */
#if defined(__GNUC__)
#define TG_HOT_PATH __attribute__((hot))
#else
#define TG_HOT_PATH
#endif

typedef struct tg_method_stats {
    uint64_t calls;
    uint64_t total_time;   /* outermost frames only, so recursion counts once */
    uint64_t self_time;
    uint32_t active;       /* frames of this method on the running stack */
} tg_method_stats;

typedef struct tg_edge_stats {
    uint32_t caller, callee;
    uint64_t calls;
    uint64_t total_time;   /* outermost activations of this edge only */
    uint64_t self_time;    /* callee's self time when called from caller */
    uint32_t active;
} tg_edge_stats;

/* Objects allocated in a method's (an edge's) frames, kept apart from the
 * times so that the hot path's strides stay what they were without them. */
typedef struct tg_allocation_stats {
    uint64_t total;   /* outermost frames only, as total_time */
    uint64_t self;    /* as self_time */
} tg_allocation_stats;

/* Objects a method allocated in its own frames, by type: the binding
 * says which of its objects go in which bucket (alloc_events.c). A fixed,
 * small number of buckets, so the counts grow with methods only. */
#define TG_ALLOCATION_TYPES 12
typedef struct tg_allocation_types {
    uint64_t count[TG_ALLOCATION_TYPES];
} tg_allocation_types;

typedef struct tg_frame {
    uint32_t method;
    uint32_t edge;           /* TG_NONE for a context's bottom frame */
    uint64_t position;       /* where the real frame is; 0 if unknown */
    uint64_t start;          /* context-local time of the call */
    uint64_t child_time;     /* total time of the calls this frame made */
    /* Set and read only while the call tree is on: */
    uint32_t last_callee;    /* one-entry cache of this frame's last callee */
    uint32_t node;           /* call-tree node */
    uint32_t last_node;      /* call-tree node of last_callee under this frame */
    bool folded;             /* past the tree's cap: `node` is an ancestor's */
    /* Set and read only while allocations are counted: as start and child_time. */
    uint64_t allocations_at;     /* the context's count at the call */
    uint64_t child_allocations;  /* total allocations of the calls this frame made */
} tg_frame;

typedef struct tg_context {
    tg_frame *frames;
    uint32_t depth, capacity;
    uint32_t leaf_method;    /* the pending leaf's method; TG_NONE if none */
    uint64_t leaf_position;  /* the pending leaf's stack position */
    uint64_t leaf_start;     /* and its context-local start time */
    uint32_t thread;         /* which thread's time this context adds to */
    uint64_t suspended_time; /* time spent switched out; local time = clock - this */
    uint64_t suspended_at;   /* clock reading when last switched out */
    bool suspended;
    bool resync;             /* positions closed frames whose returns were
                                skipped: the binding may check the rest */
    uint64_t allocations;    /* objects allocated while this context ran: only
                                grows, and only the binding adds to it */
    uint64_t leaf_allocations; /* the pending leaf's count at its call */
} tg_context;

/* A direct-mapped cache in front of the edge map: a hash-map probe costs
 * more than this one compare, and calls alternate between a few callees
 * (fib calls <, -, fib, +), which would defeat a one-entry cache per frame. */
#define TG_EDGE_CACHE_SIZE 4096
typedef struct tg_edge_cache_entry {
    uint32_t caller, callee, edge;
} tg_edge_cache_entry;

typedef struct tg_profiler {
    tg_method_stats *methods;
    uint32_t method_count, method_capacity;
    tg_pairmap method_index;   /* binding's (key_a, key_b) -> method */

    tg_edge_stats *edges;
    uint32_t edge_count, edge_capacity;

    /* Parallel to methods and edges while allocations are counted; else NULL. */
    tg_allocation_stats *method_allocations, *edge_allocations;
    uint32_t method_allocations_capacity, edge_allocations_capacity;
    tg_pairmap edge_index;     /* (caller, callee) -> edge */
    tg_edge_cache_entry edge_cache[TG_EDGE_CACHE_SIZE];

    uint64_t *thread_time;     /* per thread: the sum of its self times */
    uint32_t thread_count, thread_capacity;

    tg_calltree *tree;         /* NULL unless the call tree was asked for */

    tg_context *running;       /* the context whose frames `active` counts */
    bool out_of_memory;        /* set if an event had to be dropped */
    bool count_allocations;    /* frames book tg_context.allocations: set by
                                  tg_profiler_count_allocations */
    /* Parallel to methods while allocations are counted; else NULL. Last,
     * so the hot path's fields keep their offsets. */
    tg_allocation_types *method_allocation_types;
    uint32_t method_allocation_types_capacity;
} tg_profiler;

bool tg_profiler_init(tg_profiler *p);
void tg_profiler_free(tg_profiler *p);

/* Counts allocations from now on (method_allocations, edge_allocations,
 * method_allocation_types). Before the first method is made. */
void tg_profiler_count_allocations(tg_profiler *p);

/* One object of type bucket `type` (< TG_ALLOCATION_TYPES) allocated
 * while `c` ran, which need not be the running context: its frames will
 * count it (c->allocations), and the method on top of its stack has it
 * by type now. Only while allocations are counted. Inline, for the
 * binding's allocation hook: a few loads and two increments. */
static inline void tg_profiler_allocation(tg_profiler *p, tg_context *c, unsigned type)
{
    c->allocations++;
    uint32_t top = c->leaf_method != TG_NONE ? c->leaf_method
                   : c->depth > 0            ? c->frames[c->depth - 1].method
                                             : TG_NONE;
    if (top != TG_NONE) p->method_allocation_types[top].count[type]++;
}

/* The method index for a binding-defined key (e.g. class and method id),
 * created with zeroed statistics on first sight. TG_NONE if out of memory. */
uint32_t tg_profiler_method(tg_profiler *p, uint64_t key_a, uint64_t key_b);

/* The method index for a key seen before, or TG_NONE; never creates one. */
uint32_t tg_profiler_find_method(const tg_profiler *p, uint64_t key_a, uint64_t key_b);

/* The index for a (caller, callee) edge, or TG_NONE; never creates one. */
uint32_t tg_profiler_find_edge(const tg_profiler *p, uint32_t caller, uint32_t callee);

/* Registers a thread and returns its index, or TG_NONE if out of memory. */
uint32_t tg_profiler_add_thread(tg_profiler *p);

void tg_context_init(tg_context *c, uint32_t thread);
void tg_context_free(tg_context *c);

/* Makes `c` the running context (its frames count as active). Cheap when
 * it already is; otherwise O(depth of both stacks). */
void tg_profiler_activate(tg_profiler *p, tg_context *c);

/* Fiber switches: time stops for a suspended context and resumes later. */
void tg_context_suspend(tg_context *c, uint64_t now);
void tg_context_resume(tg_context *c, uint64_t now);

/* Events. `c` must be the running context (see tg_profiler_activate).
 * `position` is the real frame's stack position, or 0 if unknown. */
void tg_profiler_call(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now);
/* Returns whether a frame (or the pending leaf) was closed. With a
 * position, only the frame in exactly that slot can return, and only if it
 * is `method`; frames deeper than it are closed first. */
bool tg_profiler_return(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now);

/* The same, for a caller's rare paths: a symbol of its own, so that
 * link-time optimisation can inline the hot path's one call of
 * tg_profiler_return. */
bool tg_profiler_return_rare(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now);

/* tg_profiler_call without closing stale frames first: for a caller that
 * has just done that with tg_profiler_drop_stale. */
void tg_profiler_push(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now);

/* tg_profiler_push for a call that usually returns before it calls
 * anything (a C method): it becomes the context's pending leaf. With the
 * call tree on, an ordinary push. */
void tg_profiler_push_leaf(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now);

/* Turns a pending leaf into a real frame. Every function here that reads
 * or changes frames does this first; a caller reading c->frames itself
 * must too. Cheap when there is none. */
void tg_profiler_settle_leaf(tg_profiler *p, tg_context *c);

/* Closes the frames that cannot be ancestors of a call at `position`
 * (tg_profiler_call does this itself). Returns how many it closed, so a
 * caller that knows more about the real stack can check further. Inline:
 * on almost every call the top frame is above `position` and nothing
 * needs closing. */
uint32_t tg_profiler_drop_stale_frames(tg_profiler *p, tg_context *c, uint64_t position, uint64_t now);

static inline uint32_t tg_profiler_drop_stale(tg_profiler *p, tg_context *c, uint64_t position, uint64_t now)
{
    if (position == 0) return 0;
    uint64_t top;   /* the pending leaf, if any, is the top frame */
    if (c->leaf_method != TG_NONE) top = c->leaf_position;
    else if (c->depth > 0) top = c->frames[c->depth - 1].position;
    else return 0;
    if (top == 0 || top > position) return 0;
    return tg_profiler_drop_stale_frames(p, c, position, now);
}

/* Closes the top frame of `c` at `now`, if there is one. */
void tg_profiler_pop(tg_profiler *p, tg_context *c, uint64_t now);

/* Closes every open frame of `c` at `now` (or when it was suspended).
 * Activates `c` first. Used at stop and when a thread ends. */
void tg_profiler_close_all(tg_profiler *p, tg_context *c, uint64_t now);

#endif

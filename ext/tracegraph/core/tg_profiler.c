/* tg_profiler.c - see tg_profiler.h for the design and its invariants. */
#include "tg_profiler.h"

#include <stdlib.h>
#include <string.h>

/* Grows an array of `size`-byte elements to hold at least `need`. */
static bool grow(void **array, uint32_t *capacity, uint32_t need, size_t size)
{
    if (need <= *capacity) return true;
    uint32_t cap = *capacity ? *capacity : 16;
    while (cap < need) cap *= 2;
    void *bigger = realloc(*array, (size_t)cap * size);
    if (!bigger) return false;
    *array = bigger;
    *capacity = cap;
    return true;
}

bool tg_profiler_init(tg_profiler *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < TG_EDGE_CACHE_SIZE; i++) p->edge_cache[i].caller = TG_NONE;
    if (!tg_pairmap_init(&p->method_index, 1024)) return false;
    if (!tg_pairmap_init(&p->edge_index, 2048)) {
        tg_pairmap_free(&p->method_index);
        return false;
    }
    return true;
}

void tg_profiler_free(tg_profiler *p)
{
    tg_pairmap_free(&p->method_index);
    tg_pairmap_free(&p->edge_index);
    free(p->methods);
    free(p->edges);
    free(p->method_allocations);
    free(p->edge_allocations);
    free(p->method_allocation_types);
    free(p->thread_time);
    memset(p, 0, sizeof *p);
}

void tg_profiler_count_allocations(tg_profiler *p)
{
    p->count_allocations = true;
}

/* Room for allocation counts at index `i` (zeroed), if they are counted. */
static bool grow_allocations(const tg_profiler *p, tg_allocation_stats **array, uint32_t *capacity, uint32_t i)
{
    if (!p->count_allocations) return true;
    if (!grow((void **)array, capacity, i + 1, sizeof **array)) return false;
    (*array)[i] = (tg_allocation_stats){0};
    return true;
}

/* Room for method `i`'s allocations by type (zeroed), if they are counted. */
static bool grow_allocation_types(tg_profiler *p, uint32_t i)
{
    if (!p->count_allocations) return true;
    if (!grow((void **)&p->method_allocation_types, &p->method_allocation_types_capacity, i + 1,
              sizeof *p->method_allocation_types))
        return false;
    p->method_allocation_types[i] = (tg_allocation_types){{0}};
    return true;
}

uint32_t tg_profiler_method(tg_profiler *p, uint64_t key_a, uint64_t key_b)
{
    uint32_t m = tg_pairmap_find(&p->method_index, key_a, key_b);
    if (m != TG_PAIRMAP_NONE) return m;
    if (p->method_count == TG_NONE - 1 ||
        !grow((void **)&p->methods, &p->method_capacity, p->method_count + 1, sizeof *p->methods) ||
        !grow_allocations(p, &p->method_allocations, &p->method_allocations_capacity, p->method_count) ||
        !grow_allocation_types(p, p->method_count) ||
        !tg_pairmap_insert(&p->method_index, key_a, key_b, p->method_count)) {
        p->out_of_memory = true;
        return TG_NONE;
    }
    memset(&p->methods[p->method_count], 0, sizeof *p->methods);
    return p->method_count++;
}

uint32_t tg_profiler_find_method(const tg_profiler *p, uint64_t key_a, uint64_t key_b)
{
    uint32_t m = tg_pairmap_find(&p->method_index, key_a, key_b);
    return m == TG_PAIRMAP_NONE ? TG_NONE : m;
}

uint32_t tg_profiler_find_edge(const tg_profiler *p, uint32_t caller, uint32_t callee)
{
    uint32_t e = tg_pairmap_find(&p->edge_index, caller, callee);
    return e == TG_PAIRMAP_NONE ? TG_NONE : e;
}

/* The edge map's part of intern_edge: a cache miss, rare once a program's
 * edges have been seen, so out of line. */
static __attribute__((noinline)) uint32_t intern_edge_slow(tg_profiler *p, uint32_t caller, uint32_t callee,
                                                          tg_edge_cache_entry *cached)
{
    uint32_t e = tg_profiler_find_edge(p, caller, callee);
    if (e != TG_NONE) {
        *cached = (tg_edge_cache_entry){caller, callee, e};
        return e;
    }
    if (p->edge_count == TG_NONE - 1 ||
        !grow((void **)&p->edges, &p->edge_capacity, p->edge_count + 1, sizeof *p->edges) ||
        !grow_allocations(p, &p->edge_allocations, &p->edge_allocations_capacity, p->edge_count) ||
        !tg_pairmap_insert(&p->edge_index, caller, callee, p->edge_count)) {
        p->out_of_memory = true;
        return TG_NONE;
    }
    p->edges[p->edge_count] = (tg_edge_stats){.caller = caller, .callee = callee};
    *cached = (tg_edge_cache_entry){caller, callee, p->edge_count};
    return p->edge_count++;
}

static inline uint32_t edge_cache_index(uint32_t caller, uint32_t callee)
{
    return (caller * 2654435761u ^ callee) & (TG_EDGE_CACHE_SIZE - 1);
}

/* The edge index for (caller, callee), created on first sight; TG_NONE if
 * out of memory. Inline: a hit is one compare. */
static inline uint32_t intern_edge(tg_profiler *p, uint32_t caller, uint32_t callee)
{
    tg_edge_cache_entry *cached = &p->edge_cache[edge_cache_index(caller, callee)];
    if (cached->caller == caller && cached->callee == callee) return cached->edge;
    return intern_edge_slow(p, caller, callee, cached);
}

uint32_t tg_profiler_add_thread(tg_profiler *p)
{
    if (!grow((void **)&p->thread_time, &p->thread_capacity, p->thread_count + 1, sizeof *p->thread_time)) {
        p->out_of_memory = true;
        return TG_NONE;
    }
    p->thread_time[p->thread_count] = 0;
    return p->thread_count++;
}

void tg_context_init(tg_context *c, uint32_t thread)
{
    memset(c, 0, sizeof *c);
    c->thread = thread;
    c->leaf_method = TG_NONE;
}

void tg_context_free(tg_context *c)
{
    free(c->frames);
    c->frames = NULL;
    c->depth = c->capacity = 0;
}

/* Adds `delta` (+1 or -1) to the active counts of every frame of `c`. */
static void count_active(tg_profiler *p, const tg_context *c, int delta)
{
    for (uint32_t i = 0; i < c->depth; i++) {
        const tg_frame *f = &c->frames[i];
        p->methods[f->method].active += (uint32_t)delta;
        if (f->edge != TG_NONE) p->edges[f->edge].active += (uint32_t)delta;
    }
}

void tg_profiler_activate(tg_profiler *p, tg_context *c)
{
    if (p->running == c) return;
    if (p->running) {
        /* A pending leaf has no active counts yet: give it its frame
         * while its context still counts as running. */
        tg_profiler_settle_leaf(p, p->running);
        count_active(p, p->running, -1);
    }
    if (c) count_active(p, c, +1);
    p->running = c;
}

void tg_context_suspend(tg_context *c, uint64_t now)
{
    if (c->suspended) return;
    c->suspended = true;
    c->suspended_at = now;
}

void tg_context_resume(tg_context *c, uint64_t now)
{
    if (!c->suspended) return;
    c->suspended = false;
    if (now > c->suspended_at) c->suspended_time += now - c->suspended_at;
}

/* pop_frame's allocations, after it took the frame's activations off:
 * `active` is 0 now exactly where it tested --active == 0 for the time,
 * and the call tree's node gets them as it got the time (a folded call's
 * self to the ancestor its `node` names, no total).
 * Out of line: inlined, its registers cost pop_frame's every call. */
static __attribute__((noinline)) void pop_allocations(tg_profiler *p, tg_context *c, const tg_frame *f)
{
    uint64_t total = c->allocations - f->allocations_at;
    uint64_t self = total - f->child_allocations;
    tg_allocation_stats *m = &p->method_allocations[f->method];
    if (p->methods[f->method].active == 0) m->total += total;
    m->self += self;
    if (f->edge != TG_NONE) {
        tg_allocation_stats *e = &p->edge_allocations[f->edge];
        if (p->edges[f->edge].active == 0) e->total += total;
        e->self += self;
    }
    if (p->tree && p->tree->count_allocations && f->node != TG_CALLTREE_ROOT) {
        tg_calltree_allocations *n = &p->tree->allocations[f->node];
        n->self += self;
        if (!f->folded) n->total += total;
    }
    if (c->depth > 0) c->frames[c->depth - 1].child_allocations += total;
}

/* Pops the top frame at context-local time `local` and books its times. */
static TG_HOT_PATH void pop_frame(tg_profiler *p, tg_context *c, uint64_t local)
{
    tg_frame *f = &c->frames[--c->depth];
    /* Clamp: per-thread CPU clocks read on another thread, or a clock
     * that steps, must not produce negative (huge unsigned) times. */
    uint64_t elapsed = local > f->start ? local - f->start : 0;
    uint64_t self = elapsed > f->child_time ? elapsed - f->child_time : 0;

    tg_method_stats *m = &p->methods[f->method];
    if (--m->active == 0) m->total_time += elapsed;
    m->self_time += self;
    if (f->edge != TG_NONE) {
        tg_edge_stats *e = &p->edges[f->edge];
        if (--e->active == 0) e->total_time += elapsed;
        e->self_time += self;
    }
    p->thread_time[c->thread] += self;
    if (p->tree && f->node != TG_CALLTREE_ROOT) {
        p->tree->nodes[f->node].self_time += self;
        if (!f->folded) p->tree->nodes[f->node].total_time += elapsed;
    }
    /* The parent's child time takes what this frame's self time and its
     * children booked, so the parent's self time excludes exactly that. */
    if (c->depth > 0) c->frames[c->depth - 1].child_time += self + f->child_time;
    if (p->count_allocations) pop_allocations(p, c, f);
}

/* Closes frames whose real frames are gone: those at or below `position`
 * (deeper = smaller) are not ancestors of a frame at `position`. */
static uint32_t drop_stale_frames(tg_profiler *p, tg_context *c, uint64_t position, bool inclusive, uint64_t now)
{
    if (position == 0) return 0;
    tg_profiler_settle_leaf(p, c);
    uint64_t local = now - c->suspended_time;
    uint32_t dropped = 0;
    while (c->depth > 0) {
        uint64_t top = c->frames[c->depth - 1].position;
        if (top == 0 || top > position || (!inclusive && top == position)) break;
        pop_frame(p, c, local);
        dropped++;
    }
    if (dropped) c->resync = true;
    return dropped;
}

/* Out of line: the inline check in tg_profiler.h makes this rare. */
__attribute__((noinline)) uint32_t tg_profiler_drop_stale_frames(tg_profiler *p, tg_context *c, uint64_t position,
                                                                 uint64_t now)
{
    return drop_stale_frames(p, c, position, true, now);
}

void tg_profiler_pop(tg_profiler *p, tg_context *c, uint64_t now)
{
    tg_profiler_settle_leaf(p, c);
    if (c->depth > 0) pop_frame(p, c, now - c->suspended_time);
}

/* The call tree's part of a call: the new frame's node, found through the
 * parent's one-entry cache of its last callee. */
static void push_tree_node(tg_profiler *p, uint32_t thread, tg_frame *parent, tg_frame *f, uint32_t method)
{
    uint32_t node = TG_CALLTREE_ROOT;   /* no node: folded */
    bool cached = parent && parent->last_callee == method;
    if (cached) {
        node = parent->last_node;
    } else if (parent) {
        if (!parent->folded) node = tg_calltree_child(p->tree, parent->node, method);
        parent->last_callee = method;
        parent->last_node = node;
    } else {
        node = tg_calltree_child(p->tree, tg_calltree_root(thread), method);
    }
    bool folded = false;
    if (node != TG_CALLTREE_ROOT) {
        p->tree->nodes[node].calls++;
    } else {
        /* Past the cap (or below a folded frame): this call's time goes
         * to the nearest kept ancestor's self time. */
        folded = true;
        if (cached || (parent && parent->folded)) p->tree->folded_calls++;
        node = parent ? parent->node : TG_CALLTREE_ROOT;
    }
    f->last_callee = TG_NONE;
    f->node = node;
    f->last_node = TG_CALLTREE_ROOT;
    f->folded = folded;
}

/* Pushes a frame that started at context-local time `start` (and at the
 * context's allocation count now: settle_leaf corrects it). */
static TG_HOT_PATH void push_frame(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position,
                                   uint64_t start)
{
    if (c->depth == c->capacity &&
        !grow((void **)&c->frames, &c->capacity, c->depth + 1, sizeof *c->frames)) {
        /* The matching return will find no frame and be ignored. */
        p->out_of_memory = true;
        return;
    }
    tg_frame *parent = c->depth > 0 ? &c->frames[c->depth - 1] : NULL;
    tg_frame *f = &c->frames[c->depth++];
    /* Only the fields every pop reads; the tree's are set when it is on. */
    f->method = method;
    f->edge = parent ? intern_edge(p, parent->method, method) : TG_NONE;
    f->position = position;
    f->start = start;
    f->child_time = 0;
    if (p->tree) push_tree_node(p, c->thread, parent, f, method);
    if (p->count_allocations) {
        f->allocations_at = c->allocations;
        f->child_allocations = 0;
    }

    tg_method_stats *m = &p->methods[method];
    m->calls++;
    m->active++;
    if (f->edge != TG_NONE) {
        p->edges[f->edge].calls++;
        p->edges[f->edge].active++;
    }
}

void tg_profiler_settle_leaf(tg_profiler *p, tg_context *c)
{
    if (c->leaf_method == TG_NONE) return;
    uint32_t method = c->leaf_method;
    c->leaf_method = TG_NONE;
    uint32_t depth = c->depth;
    push_frame(p, c, method, c->leaf_position, c->leaf_start);
    /* Its allocations began at its call too. (Not a parameter of
     * push_frame: one more kept the hook from inlining its calls.) */
    if (c->depth > depth) c->frames[depth].allocations_at = c->leaf_allocations;
}

void tg_profiler_push(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now)
{
    if (method == TG_NONE) return;
    tg_profiler_settle_leaf(p, c);
    push_frame(p, c, method, position, now - c->suspended_time);
}

void tg_profiler_push_leaf(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now)
{
    if (method == TG_NONE) return;
    tg_profiler_settle_leaf(p, c);
    if (p->tree) {
        push_frame(p, c, method, position, now - c->suspended_time);
        return;
    }
    c->leaf_method = method;
    c->leaf_position = position;
    c->leaf_start = now - c->suspended_time;
    /* Unconditionally: a store costs less than testing whether it is needed. */
    c->leaf_allocations = c->allocations;
}

/* book_leaf's allocations: those since the leaf's call are all its own.
 * Out of line, and finding the edge again (in its cache, where book_leaf
 * just put it; never making it, which book_leaf may have failed to do),
 * so that the leaf's path without allocations stays as short as it was. */
static __attribute__((noinline)) void book_leaf_allocations(tg_profiler *p, tg_context *c, uint32_t method)
{
    uint64_t n = c->allocations - c->leaf_allocations;
    tg_allocation_stats *m = &p->method_allocations[method];
    if (p->methods[method].active == 0) m->total += n;
    m->self += n;
    if (c->depth == 0) return;
    tg_frame *parent = &c->frames[c->depth - 1];
    parent->child_allocations += n;
    const tg_edge_cache_entry *cached = &p->edge_cache[edge_cache_index(parent->method, method)];
    uint32_t edge = cached->caller == parent->method && cached->callee == method
                        ? cached->edge
                        : tg_profiler_find_edge(p, parent->method, method);
    if (edge == TG_NONE) return;
    tg_allocation_stats *e = &p->edge_allocations[edge];
    if (p->edges[edge].active == 0) e->total += n;
    e->self += n;
}

/* The pending leaf returns: what push_frame and pop_frame would book for a
 * frame that made no calls, without the frame. Its method (edge) is
 * outermost if no frame of it is active, as pop_frame's --active == 0. */
static inline __attribute__((always_inline)) void book_leaf(tg_profiler *p, tg_context *c, uint64_t local)
{
    uint32_t method = c->leaf_method;
    c->leaf_method = TG_NONE;
    uint64_t elapsed = local > c->leaf_start ? local - c->leaf_start : 0;
    tg_method_stats *m = &p->methods[method];
    m->calls++;
    if (m->active == 0) m->total_time += elapsed;
    m->self_time += elapsed;
    if (c->depth > 0) {
        tg_frame *parent = &c->frames[c->depth - 1];
        uint32_t edge = intern_edge(p, parent->method, method);
        if (edge != TG_NONE) {
            tg_edge_stats *e = &p->edges[edge];
            e->calls++;
            if (e->active == 0) e->total_time += elapsed;
            e->self_time += elapsed;
        }
        parent->child_time += elapsed;
    }
    p->thread_time[c->thread] += elapsed;
    if (p->count_allocations) book_leaf_allocations(p, c, method);
}

void tg_profiler_call(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now)
{
    if (method == TG_NONE) return;
    tg_profiler_drop_stale(p, c, position, now);
    tg_profiler_push(p, c, method, position, now);
}

static inline __attribute__((always_inline)) bool close_returning_frame(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now)
{
    if (method == TG_NONE) return false;
    if (c->leaf_method != TG_NONE) {
        if (c->leaf_method == method && (position == 0 || c->leaf_position == 0 || position == c->leaf_position)) {
            book_leaf(p, c, now - c->suspended_time);
            return true;
        }
        tg_profiler_settle_leaf(p, c);
    }
    if (c->depth == 0) return false;   /* called before profiling started */
    uint64_t top = c->frames[c->depth - 1].position;
    if (position != 0 && top != 0) {
        if (top < position) {
            /* Frames deeper than this one are gone. Checked here first: on
             * almost every return the top frame is the one returning. */
            drop_stale_frames(p, c, position, false, now);
            if (c->depth == 0) return false;
            top = c->frames[c->depth - 1].position;
        }
        /* Positions say exactly which frame returns: the one in this slot,
         * or none we know of (its call was before start). */
        if (top != position || c->frames[c->depth - 1].method != method) return false;
        pop_frame(p, c, now - c->suspended_time);
        return true;
    }
    uint32_t match = c->depth - 1;
    if (c->frames[match].method != method) {
        /* Without positions: frames above the match missed their return
         * events (an exception through C code, a stack overflow). Find the
         * nearest frame of this method; if there is none, this return
         * belongs to a call made before profiling started, and the stack
         * is left alone. */
        while (match > 0 && c->frames[match - 1].method != method) match--;
        if (match == 0) return false;
        match--;
    }
    uint64_t local = now - c->suspended_time;
    while (c->depth > match) pop_frame(p, c, local);
    return true;
}

bool tg_profiler_return(tg_profiler *p, tg_context *c, uint32_t method, uint64_t position, uint64_t now)
{
    return close_returning_frame(p, c, method, position, now);
}

__attribute__((noinline)) TG_HOT_PATH bool tg_profiler_return_rare(tg_profiler *p, tg_context *c, uint32_t method,
                                                                   uint64_t position, uint64_t now)
{
    return close_returning_frame(p, c, method, position, now);
}

void tg_profiler_close_all(tg_profiler *p, tg_context *c, uint64_t now)
{
    tg_profiler_activate(p, c);
    tg_profiler_settle_leaf(p, c);
    uint64_t at = c->suspended ? c->suspended_at : now;
    uint64_t local = at - c->suspended_time;
    while (c->depth > 0) pop_frame(p, c, local);
}

/* tg_tree_stats.c - see tg_tree_stats.h. Sections: effective totals and
 * links, the walk (methods, edges, groups, pieces), compute and free. */
#include "tg_tree_stats.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct step {
    uint32_t node;
    uint32_t edge;   /* from its parent's method (with a grouping: the arrow from its parent's group); or NONE */
    uint32_t group;  /* with a grouping: the node's; else NONE */
    bool under;      /* with focus flags: the node is a match or under one */
} step;

/* What one counted node adds: its calls, self and total time and objects. */
typedef struct amounts {
    uint64_t calls, self_time, total_time, self_objects, total_objects;
} amounts;

typedef struct work {
    const tg_tree_stats_input *in;
    tg_tree_stats *out;
    uint64_t *effective;                    /* per node: total minus hidden time beneath */
    uint64_t *effective_allocations;        /* the same for objects, if counted; else NULL */
    /* With focus flags only; else NULL: */
    uint8_t *reaches;                       /* per node: a match is at or beneath it (not through hidden ones) */
    uint64_t *above;                        /* per node: the effective totals of the outermost matches beneath */
    uint64_t *above_allocations;            /* the same for objects, if counted; else NULL */
    uint32_t *first_child, *next_sibling;   /* per node; NONE ends a list */
    uint32_t *first_root;                   /* per thread */
    step *path;                             /* the counted nodes from the bottom */
    size_t path_capacity;
    uint32_t edge_capacity, piece_capacity;
    tg_pairmap edge_index;                  /* (caller, callee) -> edge; with a grouping, (group, group) -> arrow */
    tg_pairmap piece_index;                 /* with a grouping: (method, group) -> piece */
} work;

static bool is_hidden(const work *w, uint32_t node)
{
    return w->in->hidden && w->in->hidden[w->in->nodes[node].method];
}

static bool is_match(const work *w, uint32_t node)
{
    return w->in->focus[w->in->nodes[node].method];
}

/* ---- effective totals and links -------------------------------------------- */

/* effective[i] holds the hidden amount beneath node i, whose total is
 * `total`: passes it (or, for a hidden node, the whole total) on to the
 * parent, and makes it node i's effective total. */
static void settle(uint64_t *effective, uint32_t i, uint32_t parent, bool root, bool hidden, uint64_t total)
{
    uint64_t beneath = effective[i];
    if (!root) effective[parent] += hidden ? total : beneath;
    effective[i] = beneath < total ? total - beneath : 0;
}

/* With focus flags: node i, its effective totals settled, passes to its
 * parent whether a match is at or beneath it, and how much of its time
 * (and objects) is in the outermost matches: all of it for a match, what
 * its children passed it for any other node. A hidden node passes nothing. */
static void settle_focus(work *w, uint32_t i, uint32_t parent, bool root, bool hidden)
{
    if (root || hidden) return;
    bool match = is_match(w, i);
    if (!match && !w->reaches[i]) return;
    w->reaches[parent] = 1;
    w->above[parent] += match ? w->effective[i] : w->above[i];
    if (w->above_allocations)
        w->above_allocations[parent] += match ? w->effective_allocations[i] : w->above_allocations[i];
}

/* One backward pass: children come after their parents, so a node's hidden
 * time is complete when it is reached. It then passes to the parent either
 * its whole total (a hidden node, the outermost so far) or the hidden time
 * beneath it; allocation counts the same, and the focus's amounts
 * (settle_focus). The same pass links children in creation order. */
static void prepare(work *w)
{
    const tg_tree_stats_input *in = w->in;
    memset(w->effective, 0, (size_t)in->node_count * sizeof *w->effective);   /* hidden time, for now */
    if (w->effective_allocations)
        memset(w->effective_allocations, 0, (size_t)in->node_count * sizeof *w->effective_allocations);
    memset(w->first_child, 0xFF, (size_t)in->node_count * sizeof *w->first_child);
    memset(w->first_root, 0xFF, (size_t)in->thread_count * sizeof *w->first_root);
    if (w->reaches) {
        memset(w->reaches, 0, (size_t)in->node_count * sizeof *w->reaches);
        memset(w->above, 0, (size_t)in->node_count * sizeof *w->above);
    }
    if (w->above_allocations) memset(w->above_allocations, 0, (size_t)in->node_count * sizeof *w->above_allocations);
    for (uint32_t i = in->node_count; i-- > 0;) {
        const tg_calltree_node *n = &in->nodes[i];
        bool root = tg_calltree_is_root(n->parent), hidden = is_hidden(w, i);
        settle(w->effective, i, n->parent, root, hidden, n->total_time);
        if (w->effective_allocations)
            settle(w->effective_allocations, i, n->parent, root, hidden, in->allocations[i].total);
        if (w->reaches) settle_focus(w, i, n->parent, root, hidden);
        uint32_t *head = root ? &w->first_root[tg_calltree_root_thread(n->parent)] : &w->first_child[n->parent];
        w->next_sibling[i] = *head;
        *head = i;
    }
}

/* ---- the walk ----------------------------------------------------------------- */

/* The edge (caller, callee), added with zeroed statistics on first sight;
 * NONE if out of memory. */
static uint32_t edge_for(work *w, uint32_t caller, uint32_t callee)
{
    uint32_t e = tg_pairmap_find(&w->edge_index, caller, callee);
    if (e != TG_PAIRMAP_NONE) return e;
    tg_tree_stats *out = w->out;
    if (out->edge_count == w->edge_capacity) {
        /* Both arrays grow; edge_capacity changes only once both have. */
        uint32_t capacity = w->edge_capacity ? w->edge_capacity * 2 : 64;
        tg_edge_stats *bigger = realloc(out->edges, (size_t)capacity * sizeof *bigger);
        if (!bigger) return NONE;
        out->edges = bigger;
        if (w->in->allocations) {
            tg_allocation_stats *counts = realloc(out->edge_allocations, (size_t)capacity * sizeof *counts);
            if (!counts) return NONE;
            out->edge_allocations = counts;
        }
        w->edge_capacity = capacity;
    }
    if (!tg_pairmap_insert(&w->edge_index, caller, callee, out->edge_count)) return NONE;
    out->edges[out->edge_count] = (tg_edge_stats){.caller = caller, .callee = callee};
    if (w->in->allocations) out->edge_allocations[out->edge_count] = (tg_allocation_stats){0};
    return out->edge_count++;
}

static void add_allocations(tg_allocation_stats *a, uint64_t self, bool outermost, uint64_t total)
{
    a->self += self;
    if (outermost) a->total += total;
}

/* Adds a node's amounts to edge (or arrow) e; its total only if it is the
 * outermost activation of e on the path. */
static void add_to_edge(work *w, uint32_t e, const amounts *x)
{
    tg_edge_stats *es = &w->out->edges[e];
    es->calls += x->calls;
    es->self_time += x->self_time;
    bool outermost = es->active++ == 0;
    if (outermost) es->total_time += x->total_time;
    if (w->out->edge_allocations)
        add_allocations(&w->out->edge_allocations[e], x->self_objects, outermost, x->total_objects);
}

/* Adds a node's amounts to a method's (or group's) statistics, its calls
 * only if `entry`; returns whether it is the outermost on the path. */
static bool add_to_method(tg_method_stats *ms, tg_allocation_stats *a, bool entry, const amounts *x)
{
    if (entry) ms->calls += x->calls;
    ms->self_time += x->self_time;
    bool outermost = ms->active++ == 0;
    if (outermost) ms->total_time += x->total_time;
    if (a) add_allocations(a, x->self_objects, outermost, x->total_objects);
    return outermost;
}

/* The piece (method, group), added with zeroed statistics on first sight;
 * NONE if out of memory. */
static uint32_t piece_for(work *w, uint32_t method, uint32_t group)
{
    uint32_t p = tg_pairmap_find(&w->piece_index, method, group);
    if (p != TG_PAIRMAP_NONE) return p;
    tg_tree_stats *out = w->out;
    if (out->piece_count == w->piece_capacity) {
        uint32_t capacity = w->piece_capacity ? w->piece_capacity * 2 : 64;
        tg_tree_stats_piece *bigger = realloc(out->pieces, (size_t)capacity * sizeof *bigger);
        if (!bigger) return NONE;
        out->pieces = bigger;
        if (w->in->allocations) {
            tg_allocation_stats *counts = realloc(out->piece_allocations, (size_t)capacity * sizeof *counts);
            if (!counts) return NONE;
            out->piece_allocations = counts;
        }
        w->piece_capacity = capacity;
    }
    if (!tg_pairmap_insert(&w->piece_index, method, group, out->piece_count)) return NONE;
    out->pieces[out->piece_count] = (tg_tree_stats_piece){.method = method, .group = group};
    if (w->in->allocations) out->piece_allocations[out->piece_count] = (tg_allocation_stats){0};
    return out->piece_count++;
}

/* With a grouping: counts a node in group g, whose parent is in group
 * `from` (NONE for a bottom frame), and sets *arrow to the arrow it
 * crosses (NONE if none). False if out of memory. */
static bool add_to_group(work *w, uint32_t g, uint32_t from, const amounts *x, uint32_t *arrow)
{
    tg_tree_stats *out = w->out;
    add_to_method(&out->groups[g], out->group_allocations ? &out->group_allocations[g] : NULL, from != g, x);
    *arrow = NONE;
    if (from == NONE || from == g) return true;
    if ((*arrow = edge_for(w, from, g)) == NONE) return false;
    add_to_edge(w, *arrow, x);
    return true;
}

/* Counts node `i` of thread `t`, `depth` counted nodes above the bottom,
 * and puts it on the path. A node above a focus match (not `under` one)
 * counts its calls, no self time, and the matches' time beneath it. */
static bool enter(work *w, uint32_t t, uint32_t i, size_t depth, bool under)
{
    const tg_tree_stats_input *in = w->in;
    const tg_calltree_node *n = &in->nodes[i];
    tg_tree_stats *out = w->out;
    if (depth == w->path_capacity) {
        size_t capacity = w->path_capacity ? w->path_capacity * 2 : 256;
        step *bigger = realloc(w->path, capacity * sizeof *bigger);
        if (!bigger) return false;
        w->path = bigger;
        w->path_capacity = capacity;
    }
    const tg_calltree_allocations *counts = in->allocations ? &in->allocations[i] : NULL;
    bool above = w->reaches && !under;
    amounts x = {
        .calls = n->calls,
        .self_time = above ? 0 : n->self_time,
        .total_time = above ? w->above[i] : w->effective[i],
        .self_objects = counts && !above ? counts->self : 0,
        .total_objects = !counts ? 0 : above ? w->above_allocations[i] : w->effective_allocations[i],
    };
    uint32_t e = NONE, g = NONE;
    if (in->group_of) {
        uint32_t from = depth > 0 ? w->path[depth - 1].group : NONE;
        g = in->group_of[n->method];
        if (g == TG_TREE_STATS_INHERIT) g = from != NONE ? from : in->top_group;
        if (!add_to_group(w, g, from, &x, &e)) return false;
    } else if (depth > 0) {
        e = edge_for(w, in->nodes[n->parent].method, n->method);
        if (e == NONE) return false;
        add_to_edge(w, e, &x);
    }
    bool outermost = add_to_method(&out->methods[n->method],
                                   counts ? &out->method_allocations[n->method] : NULL, true, &x);
    if (in->group_of && in->group_of[n->method] == TG_TREE_STATS_INHERIT) {
        uint32_t p = piece_for(w, n->method, g);
        if (p == NONE) return false;
        tg_tree_stats_piece *piece = &out->pieces[p];
        piece->calls += x.calls;
        piece->self_time += x.self_time;
        if (outermost) piece->total_time += x.total_time;
        if (counts) add_allocations(&out->piece_allocations[p], x.self_objects, outermost, x.total_objects);
    }
    out->thread_time[t] += x.self_time;
    w->path[depth] = (step){i, e, g, under};
    return true;
}

static void leave(work *w, step s)
{
    w->out->methods[w->in->nodes[s.node].method].active--;
    if (s.edge != NONE) w->out->edges[s.edge].active--;
    if (s.group != NONE) w->out->groups[s.group].active--;
}

/* Depth first over thread t's paths, children in creation order; a hidden
 * node is not entered, so its subtree is skipped, nor (with focus flags)
 * is a node that is neither a match, under one, nor above one. */
static bool walk_thread(work *w, uint32_t t)
{
    size_t depth = 0;
    uint32_t i = w->first_root[t];
    for (;;) {
        if (i != NONE) {
            if (is_hidden(w, i)) {
                w->out->hidden_time += w->in->nodes[i].total_time;
                i = w->next_sibling[i];
            } else {
                bool under = w->reaches && ((depth > 0 && w->path[depth - 1].under) || is_match(w, i));
                if (w->reaches && !under && !w->reaches[i]) {
                    i = w->next_sibling[i];
                    continue;
                }
                if (!enter(w, t, i, depth, under)) return false;
                depth++;
                i = w->first_child[i];
            }
            continue;
        }
        /* No more children here: leave the deepest node, go on with its next sibling. */
        if (depth == 0) return true;
        step done = w->path[--depth];
        leave(w, done);
        i = w->next_sibling[done.node];
    }
}

/* ---- compute and free ------------------------------------------------------- */

/* Whether the grouping, if any, names only groups below group_count. */
static bool groups_valid(const tg_tree_stats_input *in)
{
    if (!in->group_of) return true;
    if (in->top_group >= in->group_count) return false;
    for (uint32_t m = 0; m < in->method_count; m++)
        if (in->group_of[m] != TG_TREE_STATS_INHERIT && in->group_of[m] >= in->group_count) return false;
    return true;
}

tg_tree_stats_status tg_tree_stats_compute(const tg_tree_stats_input *in, tg_tree_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!tg_calltree_valid(in->nodes, in->node_count, in->method_count, in->thread_count))
        return TG_TREE_STATS_BAD_TREE;
    if (!groups_valid(in)) return TG_TREE_STATS_BAD_GROUPS;
    /* +1: no zero-sized allocations, which may return NULL. */
    size_t nodes = (size_t)in->node_count + 1, threads = (size_t)in->thread_count + 1;
    work w = {.in = in, .out = out};
    out->methods = calloc((size_t)in->method_count + 1, sizeof *out->methods);
    out->thread_time = calloc(threads, sizeof *out->thread_time);
    w.effective = malloc(nodes * sizeof *w.effective);
    w.first_child = malloc(nodes * sizeof *w.first_child);
    w.next_sibling = malloc(nodes * sizeof *w.next_sibling);
    w.first_root = malloc(threads * sizeof *w.first_root);
    bool ok = out->methods && out->thread_time && w.effective && w.first_child && w.next_sibling && w.first_root;
    if (ok && in->allocations) {
        out->method_allocations = calloc((size_t)in->method_count + 1, sizeof *out->method_allocations);
        w.effective_allocations = malloc(nodes * sizeof *w.effective_allocations);
        ok = out->method_allocations && w.effective_allocations;
    }
    if (ok && in->focus) {
        w.reaches = malloc(nodes * sizeof *w.reaches);
        w.above = malloc(nodes * sizeof *w.above);
        ok = w.reaches && w.above;
        if (ok && in->allocations) ok = (w.above_allocations = malloc(nodes * sizeof *w.above_allocations)) != NULL;
    }
    if (ok && in->group_of) {
        out->groups = calloc((size_t)in->group_count + 1, sizeof *out->groups);
        ok = out->groups && tg_pairmap_init(&w.piece_index, 64);
        if (ok && in->allocations)
            ok = (out->group_allocations = calloc((size_t)in->group_count + 1, sizeof *out->group_allocations)) != NULL;
    }
    ok = ok && tg_pairmap_init(&w.edge_index, 64);
    if (ok) {
        prepare(&w);
        for (uint32_t t = 0; ok && t < in->thread_count; t++)
            if (!in->threads || in->threads[t]) ok = walk_thread(&w, t);
    }
    free(w.effective);
    free(w.effective_allocations);
    free(w.reaches);
    free(w.above);
    free(w.above_allocations);
    free(w.first_child);
    free(w.next_sibling);
    free(w.first_root);
    free(w.path);
    tg_pairmap_free(&w.edge_index);   /* safe after a failed init, or none */
    tg_pairmap_free(&w.piece_index);
    if (ok) return TG_TREE_STATS_OK;
    tg_tree_stats_free(out);
    return TG_TREE_STATS_NO_MEMORY;
}

void tg_tree_stats_free(tg_tree_stats *out)
{
    free(out->methods);
    free(out->edges);
    free(out->thread_time);
    free(out->method_allocations);
    free(out->edge_allocations);
    free(out->groups);
    free(out->pieces);
    free(out->group_allocations);
    free(out->piece_allocations);
    memset(out, 0, sizeof *out);
}

/*
 * tg_dot.c - renders a tg_report as a Graphviz DOT call graph.
 *
 * Reads top-down in the order the work happens:
 *   1. adjacency  - caller/callee lists over the report's edges
 *   2. selection  - which methods are kept (ignore, focus, node cut, cap)
 *   3. edges      - kept edges, then dotted edges for paths through
 *                   hidden methods, minus the redundant ones
 *   4. emission   - legend, nodes, edges as DOT text
 *
 * Steps 1-3 only compute numbers; step 4 only formats them, in the look
 * it shares with the diff graph (tg_dot_style.h). Every piece of text
 * that reaches the output goes through tg_escape_dot().
 */
#include "tg_dot.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_buf.h"
#include "tg_dot_style.h"
#include "tg_escape.h"
#include "tg_format.h"

void tg_dot_options_default(tg_dot_options *o)
{
    o->node_fraction = 0.005;
    o->edge_fraction = 0.001;
    o->max_nodes = 80;
    o->focus = NULL;
    o->ignore = NULL;
    o->cwd = NULL;
    o->waiting = NULL;
    o->thread_count = o->threads_recorded = 0;
    o->thread_names = NULL;
    o->wall_time = o->hidden_waiting = 0;
    o->context = NULL;
    o->notes = NULL;
    o->note_count = 0;
    o->short_files = NULL;
    o->method_total = 0;
    o->edge_via = NULL;
    o->self_allocations = o->allocations = NULL;
    o->total_allocations = 0;
    o->edge_allocations = NULL;
    o->allocation_types = NULL;
    o->metric = TG_DOT_BY_TIME;
}

/* ------------------------------------------------------------------ */
/* 1. adjacency                                                       */

/* Compressed adjacency lists holding edge indexes, both directions. */
typedef struct adjacency {
    size_t *out_start, *out;   /* out[out_start[m] .. out_start[m+1]): edges with caller m */
    size_t *in_start, *in;     /* the same by callee */
} adjacency;

static bool edge_valid(const tg_report *r, const tg_report_edge *e)
{
    return e->caller < r->method_count && e->callee < r->method_count;
}

static void adjacency_free(adjacency *a)
{
    free(a->out_start);
    free(a->out);
    free(a->in_start);
    free(a->in);
}

static bool adjacency_build(adjacency *a, const tg_report *r)
{
    size_t n = r->method_count;
    a->out_start = calloc(n + 1, sizeof *a->out_start);
    a->in_start = calloc(n + 1, sizeof *a->in_start);
    a->out = malloc((r->edge_count + 1) * sizeof *a->out);
    a->in = malloc((r->edge_count + 1) * sizeof *a->in);
    if (!a->out_start || !a->in_start || !a->out || !a->in) return false;
    /* Counting sort by endpoint keeps each list in report order. */
    for (size_t i = 0; i < r->edge_count; i++) {
        const tg_report_edge *e = &r->edges[i];
        if (!edge_valid(r, e)) continue;   /* a broken report must not crash us */
        a->out_start[e->caller + 1]++;
        a->in_start[e->callee + 1]++;
    }
    for (size_t m = 0; m < n; m++) {
        a->out_start[m + 1] += a->out_start[m];
        a->in_start[m + 1] += a->in_start[m];
    }
    size_t *out_fill = malloc((n + 1) * sizeof *out_fill);
    size_t *in_fill = malloc((n + 1) * sizeof *in_fill);
    if (!out_fill || !in_fill) {
        free(out_fill);
        free(in_fill);
        return false;
    }
    memcpy(out_fill, a->out_start, (n + 1) * sizeof *out_fill);
    memcpy(in_fill, a->in_start, (n + 1) * sizeof *in_fill);
    for (size_t i = 0; i < r->edge_count; i++) {
        const tg_report_edge *e = &r->edges[i];
        if (!edge_valid(r, e)) continue;
        a->out[out_fill[e->caller]++] = i;
        a->in[in_fill[e->callee]++] = i;
    }
    free(out_fill);
    free(in_fill);
    return true;
}

/* ------------------------------------------------------------------ */
/* 2. selection                                                       */

enum method_state {
    KEPT,        /* drawn as a box */
    IGNORED,     /* hidden by the ignore flags; paths through it are dotted */
    CUT,         /* hidden: total below the node cut-off */
    CAPPED,      /* hidden: beyond max_nodes */
    UNRELATED,   /* hidden by focus; paths through it are NOT drawn */
};

typedef struct plan {
    const tg_report *r;
    const tg_dot_options *o;
    bool by_allocations;       /* the metric is objects allocated, not time */
    uint64_t whole;            /* the metric's total: the report's time, or total_allocations */
    uint8_t *state;            /* enum method_state per method */
    uint32_t *rank;            /* per method: position among kept boxes (0-based) */
    uint32_t *order;           /* kept methods in display order */
    size_t kept;
    uint64_t node_cut, edge_cut;
    uint64_t cap_cut;          /* heaviest total dropped by the cap */
    size_t ignored, unrelated, cut, capped, focus_matches;
    bool focus;
    uint64_t shown_self, max_self;   /* in the metric */
} plan;

/*
 * The metric: everything that picks, sizes or colours reads a method's or
 * an edge's amount through these, so time and allocations share one code.
 */
static void plan_metric(plan *p, const tg_dot_options *o)
{
    p->o = o;
    p->by_allocations = o->metric == TG_DOT_BY_ALLOCATIONS && o->self_allocations && o->allocations &&
                        o->edge_allocations;
    p->whole = p->by_allocations ? o->total_allocations : p->r->total_time;
}

static uint64_t method_total(const plan *p, uint32_t m)
{
    return p->by_allocations ? p->o->allocations[m] : p->r->methods[m].total_time;
}

static uint64_t method_self(const plan *p, uint32_t m)
{
    return p->by_allocations ? p->o->self_allocations[m] : p->r->methods[m].self_time;
}

/* Report edge i's amount. */
static uint64_t edge_amount(const plan *p, size_t i)
{
    return p->by_allocations ? p->o->edge_allocations[i] : p->r->edges[i].total_time;
}

/* Sort key for methods: total desc, self desc, name, index. */
typedef struct method_key {
    uint64_t total, self;
    const char *name;
    uint32_t index;
} method_key;

static int compare_methods(const void *pa, const void *pb)
{
    const method_key *a = pa, *b = pb;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    if (a->self != b->self) return a->self > b->self ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* fraction * total rounded up, so "total < cut" means "below the fraction". */
/* Marks every method reachable from a focus match, along `dir` edges. */
static void mark_reachable(const tg_report *r, const adjacency *a, const uint8_t *focus,
                           bool forward, uint8_t *mark, uint32_t *queue)
{
    size_t head = 0, tail = 0;
    for (size_t m = 0; m < r->method_count; m++) {
        if (focus[m]) {
            mark[m] = 1;
            queue[tail++] = (uint32_t)m;
        }
    }
    while (head < tail) {
        uint32_t m = queue[head++];
        const size_t *start = forward ? a->out_start : a->in_start;
        const size_t *list = forward ? a->out : a->in;
        for (size_t k = start[m]; k < start[m + 1]; k++) {
            const tg_report_edge *e = &r->edges[list[k]];
            uint32_t next = forward ? e->callee : e->caller;
            if (!mark[next]) {
                mark[next] = 1;
                queue[tail++] = next;
            }
        }
    }
}

/* Hides methods unrelated to the focus: neither ancestors nor descendants of a match. */
static bool apply_focus(plan *p, const adjacency *a, const uint8_t *focus)
{
    size_t n = p->r->method_count;
    uint8_t *down = calloc(n + 1, 1), *up = calloc(n + 1, 1);
    uint32_t *queue = malloc((n + 1) * sizeof *queue);
    bool ok = down && up && queue;
    if (ok) {
        mark_reachable(p->r, a, focus, true, down, queue);
        mark_reachable(p->r, a, focus, false, up, queue);
        for (size_t m = 0; m < n; m++) {
            if (focus[m]) p->focus_matches++;
            if (p->state[m] == KEPT && !down[m] && !up[m]) {
                p->state[m] = UNRELATED;
                p->unrelated++;
            }
        }
    }
    free(down);
    free(up);
    free(queue);
    return ok;
}

/* Self time desc, then the total-time order: the hot spots first. */
static int compare_by_self(const void *pa, const void *pb)
{
    const method_key *a = pa, *b = pb;
    if (a->self != b->self) return a->self > b->self ? -1 : 1;
    return compare_methods(pa, pb);
}

/*
 * Which `budget` of the candidates (keys, in total-time order) to show,
 * into chosen[]. Choosing the biggest totals shows the spine every call
 * passes through, frames of ~0% self time, and leaves out where the time
 * is: on rubocop, 80 boxes held a third of the self time. So the hot
 * spots come first: by self time, each with the path that connects it to
 * a box already chosen or to a root (its heaviest caller, and that
 * caller's, ...), if the whole path fits the budget. What budget is left
 * goes by total time, as before.
 */
static bool choose_by_coverage(const plan *p, const adjacency *a, const method_key *keys, size_t count,
                               size_t budget, uint8_t *chosen)
{
    const tg_report *r = p->r;
    size_t n = r->method_count;
    method_key *by_self = malloc((count + 1) * sizeof *by_self);
    uint32_t *path = malloc((n + 1) * sizeof *path);
    uint32_t *stamp = calloc(n + 1, sizeof *stamp);
    if (!by_self || !path || !stamp) {
        free(by_self);
        free(path);
        free(stamp);
        return false;
    }
    memcpy(by_self, keys, count * sizeof *keys);
    qsort(by_self, count, sizeof *by_self, compare_by_self);
    for (size_t i = 0; i < count && budget > 0 && by_self[i].self > 0; i++) {
        size_t len = 0;
        uint32_t x = by_self[i].index;
        uint32_t mark = (uint32_t)i + 1;
        while (!chosen[x] && stamp[x] != mark) {
            stamp[x] = mark;
            path[len++] = x;
            uint32_t caller = UINT32_MAX;
            uint64_t heaviest = 0;
            for (size_t k = a->in_start[x]; k < a->in_start[x + 1]; k++) {
                const tg_report_edge *e = &r->edges[a->in[k]];
                if (p->state[e->caller] != KEPT || e->caller == x) continue;
                if (caller == UINT32_MAX || edge_amount(p, a->in[k]) > heaviest) {
                    caller = e->caller;
                    heaviest = edge_amount(p, a->in[k]);
                }
            }
            if (caller == UINT32_MAX) break;   /* a root among the candidates */
            x = caller;
        }
        if (len > budget) continue;
        for (size_t k = 0; k < len; k++) chosen[path[k]] = 1;
        budget -= len;
    }
    for (size_t i = 0; i < count && budget > 0; i++) {
        if (chosen[keys[i].index]) continue;
        chosen[keys[i].index] = 1;
        budget--;
    }
    free(by_self);
    free(path);
    free(stamp);
    return true;
}

static bool select_methods(plan *p, const adjacency *a, const tg_dot_options *o)
{
    const tg_report *r = p->r;
    size_t n = r->method_count;
    for (size_t m = 0; m < n; m++) {
        p->state[m] = KEPT;
        if (o->ignore && o->ignore[m]) {
            p->state[m] = IGNORED;
            p->ignored++;
        }
    }
    p->focus = o->focus != NULL;
    if (o->focus && !apply_focus(p, a, o->focus)) return false;
    p->node_cut = tg_report_cut_off(o->node_fraction, p->whole);
    p->edge_cut = tg_report_cut_off(o->edge_fraction, p->whole);

    method_key *keys = malloc((n + 1) * sizeof *keys);
    if (!keys) return false;
    size_t count = 0;
    for (size_t m = 0; m < n; m++) {
        if (p->state[m] != KEPT) continue;
        if (method_total(p, (uint32_t)m) < p->node_cut) {
            p->state[m] = CUT;
            p->cut++;
            continue;
        }
        keys[count++] = (method_key){ method_total(p, (uint32_t)m), method_self(p, (uint32_t)m),
                                      tg_report_method_name(&r->methods[m]), (uint32_t)m };
    }
    qsort(keys, count, sizeof *keys, compare_methods);
    uint8_t *chosen = NULL;
    if (o->max_nodes && count > o->max_nodes) {
        chosen = calloc(n + 1, 1);
        if (!chosen || !choose_by_coverage(p, a, keys, count, o->max_nodes, chosen)) {
            free(chosen);
            free(keys);
            return false;
        }
    }
    for (size_t i = 0; i < count; i++) {
        uint32_t m = keys[i].index;
        if (chosen && !chosen[m]) {
            if (p->capped++ == 0 || keys[i].total > p->cap_cut) p->cap_cut = keys[i].total;
            p->state[m] = CAPPED;
            continue;
        }
        p->rank[m] = (uint32_t)p->kept;
        p->order[p->kept++] = m;
        p->shown_self += keys[i].self;
        if (keys[i].self > p->max_self) p->max_self = keys[i].self;
    }
    free(chosen);
    free(keys);
    return true;
}

/* ------------------------------------------------------------------ */
/* 3. edges                                                           */

typedef struct dot_edge {
    uint32_t from, to;         /* method indexes, both kept */
    uint32_t from_rank, to_rank;
    uint64_t calls;
    uint64_t amount;           /* in the metric; for a dotted edge, the path estimate */
    uint64_t time, self_time;  /* a solid edge's; 0 for a dotted one */
    uint64_t allocations;      /* a solid edge's objects allocated (o->edge_allocations), or 0 */
    bool dotted;               /* stands for calls through hidden methods */
    bool alive;                /* false once found redundant */
    const char *via;           /* a folded chain's frames, one per line (o->edge_via), or NULL */
} dot_edge;

typedef struct edge_list {
    dot_edge *items;
    size_t count, cap;
    size_t dropped;            /* solid or dotted edges under the edge cut */
} edge_list;

static bool edge_push(edge_list *l, dot_edge e)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        dot_edge *items = realloc(l->items, cap * sizeof *items);
        if (!items) return false;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count++] = e;
    return true;
}

/* Heaviest first; ties by box order; solid before dotted. */
static int compare_edges(const void *pa, const void *pb)
{
    const dot_edge *a = pa, *b = pb;
    if (a->amount != b->amount) return a->amount > b->amount ? -1 : 1;
    if (a->from_rank != b->from_rank) return a->from_rank < b->from_rank ? -1 : 1;
    if (a->to_rank != b->to_rank) return a->to_rank < b->to_rank ? -1 : 1;
    if (a->dotted != b->dotted) return a->dotted ? 1 : -1;
    return 0;
}

static bool collect_solid_edges(const plan *p, edge_list *l, const tg_dot_options *o)
{
    const tg_report *r = p->r;
    for (size_t i = 0; i < r->edge_count; i++) {
        const tg_report_edge *e = &r->edges[i];
        if (!edge_valid(r, e) || p->state[e->caller] != KEPT || p->state[e->callee] != KEPT) continue;
        if (edge_amount(p, i) < p->edge_cut) {
            l->dropped++;
            continue;
        }
        dot_edge d = { e->caller, e->callee, p->rank[e->caller], p->rank[e->callee],
                       e->calls, edge_amount(p, i), e->total_time, e->self_time,
                       o->edge_allocations ? o->edge_allocations[i] : 0,
                       false, true, o->edge_via ? o->edge_via[i] : NULL };
        if (!edge_push(l, d)) return false;
    }
    return true;
}

/* A max-heap of (bottleneck, method) for the widest-path search. */
typedef struct heap_item {
    uint64_t width;
    uint32_t method;
} heap_item;

typedef struct heap {
    heap_item *items;
    size_t count, cap;
} heap;

static bool heap_push(heap *h, heap_item it)
{
    if (h->count == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        heap_item *items = realloc(h->items, cap * sizeof *items);
        if (!items) return false;
        h->items = items;
        h->cap = cap;
    }
    size_t i = h->count++;
    while (i > 0 && h->items[(i - 1) / 2].width < it.width) {
        h->items[i] = h->items[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->items[i] = it;
    return true;
}

static heap_item heap_pop(heap *h)
{
    heap_item top = h->items[0], last = h->items[--h->count];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->count) break;
        if (c + 1 < h->count && h->items[c + 1].width > h->items[c].width) c++;
        if (h->items[c].width <= last.width) break;
        h->items[i] = h->items[c];
        i = c;
    }
    if (h->count) h->items[i] = last;
    return top;
}

/* Scratch arrays for the per-source search, reset through `touched`. */
typedef struct search {
    uint64_t *width;           /* best bottleneck found to each method */
    uint8_t *seen;             /* 1 = width is set; 2 = finished (hidden methods only) */
    uint8_t *direct;           /* kept callee already joined by a report edge */
    uint32_t *touched;
    size_t touched_count;
    heap heap;
} search;

static void touch(search *s, uint32_t m)
{
    if (!s->seen[m] && !s->direct[m]) s->touched[s->touched_count++] = m;
}

static bool traversable(const plan *p, uint32_t m)
{
    uint8_t st = p->state[m];
    return st == IGNORED || st == CUT || st == CAPPED;
}

/* Records that kept method `to` is reachable from the search's source with bottleneck w. */
static void reach(search *s, uint32_t to, uint64_t w)
{
    touch(s, to);
    if (!s->seen[to] || w > s->width[to]) {
        s->width[to] = w;
        s->seen[to] = 1;
    }
}

/*
 * Dotted edges from kept method `from` to every kept method it reaches
 * through hidden ones only. The amount shown is the bottleneck of the
 * widest such path: max over paths of the min edge amount (total time, or
 * allocations) along it.
 * It is an estimate - the profile has no per-path data - but it never
 * exceeds the time of any one call on that path, and picks the path that
 * carried the most. Returns to `from` itself (recursion through hidden
 * methods) are not drawn, nor are pairs already joined by a report edge.
 */
static bool find_hidden_paths_from(const plan *p, const adjacency *a, uint32_t from,
                                   search *s, edge_list *l)
{
    const tg_report *r = p->r;
    bool ok = true;
    s->touched_count = 0;
    s->heap.count = 0;
    for (size_t k = a->out_start[from]; k < a->out_start[from + 1]; k++) {
        const tg_report_edge *e = &r->edges[a->out[k]];
        if (p->state[e->callee] == KEPT) {
            touch(s, e->callee);
            s->direct[e->callee] = 1;
        }
    }
    for (size_t k = a->out_start[from]; k < a->out_start[from + 1] && ok; k++) {
        const tg_report_edge *e = &r->edges[a->out[k]];
        if (!traversable(p, e->callee)) continue;
        reach(s, e->callee, edge_amount(p, a->out[k]));
        ok = heap_push(&s->heap, (heap_item){ edge_amount(p, a->out[k]), e->callee });
    }
    while (ok && s->heap.count) {
        heap_item it = heap_pop(&s->heap);
        if (s->seen[it.method] == 2 || it.width < s->width[it.method]) continue;
        s->seen[it.method] = 2;
        for (size_t k = a->out_start[it.method]; k < a->out_start[it.method + 1] && ok; k++) {
            const tg_report_edge *e = &r->edges[a->out[k]];
            uint64_t w = edge_amount(p, a->out[k]) < it.width ? edge_amount(p, a->out[k]) : it.width;
            if (p->state[e->callee] == KEPT) {
                reach(s, e->callee, w);
            } else if (traversable(p, e->callee) && s->seen[e->callee] != 2 &&
                       (!s->seen[e->callee] || w > s->width[e->callee])) {
                reach(s, e->callee, w);
                ok = heap_push(&s->heap, (heap_item){ w, e->callee });
            }
        }
    }
    for (size_t t = 0; t < s->touched_count; t++) {
        uint32_t to = s->touched[t];
        if (ok && p->state[to] == KEPT && s->seen[to] && !s->direct[to] && to != from) {
            if (s->width[to] < p->edge_cut) {
                l->dropped++;
            } else {
                dot_edge d = { from, to, p->rank[from], p->rank[to], 0, s->width[to], 0, 0, 0, true, true, NULL };
                ok = edge_push(l, d);
            }
        }
        s->seen[to] = 0;
        s->direct[to] = 0;
        s->width[to] = 0;
    }
    return ok;
}

static bool find_hidden_paths(const plan *p, const adjacency *a, edge_list *l)
{
    size_t n = p->r->method_count;
    if (p->kept == n) return true;     /* nothing hidden, nothing to bridge */
    search s = { calloc(n + 1, sizeof *s.width), calloc(n + 1, 1), calloc(n + 1, 1),
                 malloc((n + 1) * sizeof *s.touched), 0, { NULL, 0, 0 } };
    bool ok = s.width && s.seen && s.direct && s.touched;
    for (size_t i = 0; ok && i < p->kept; i++) ok = find_hidden_paths_from(p, a, p->order[i], &s, l);
    free(s.width);
    free(s.seen);
    free(s.direct);
    free(s.touched);
    free(s.heap.items);
    return ok;
}

/* Is `to` reachable from `from` over live edges other than `skip`? */
static bool other_path(const edge_list *l, const size_t *start, const size_t *list,
                       size_t skip, uint32_t from, uint32_t to, uint32_t *stamp,
                       uint32_t mark, uint32_t *queue)
{
    size_t head = 0, tail = 0;
    queue[tail++] = from;
    stamp[from] = mark;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (size_t k = start[v]; k < start[v + 1]; k++) {
            const dot_edge *e = &l->items[list[k]];
            if (list[k] == skip || !e->alive || stamp[e->to_rank] == mark) continue;
            if (e->to_rank == to) return true;
            stamp[e->to_rank] = mark;
            queue[tail++] = e->to_rank;
        }
    }
    return false;
}

/*
 * Like pprof, a dotted edge whose callee is reachable from its caller
 * some other way says nothing new: drop it, weakest first, so the graph
 * keeps its connectivity with the fewest synthetic edges.
 */
static bool remove_redundant_paths(const plan *p, edge_list *l)
{
    size_t k = p->kept, dotted = 0;
    for (size_t i = 0; i < l->count; i++) dotted += l->items[i].dotted;
    if (!dotted) return true;
    size_t *start = calloc(k + 1, sizeof *start), *list = malloc((l->count + 1) * sizeof *list);
    size_t *fill = malloc((k + 1) * sizeof *fill), *weak = malloc((dotted + 1) * sizeof *weak);
    uint32_t *stamp = calloc(k + 1, sizeof *stamp), *queue = malloc((k + 1) * sizeof *queue);
    bool ok = start && list && fill && weak && stamp && queue;
    if (ok) {
        for (size_t i = 0; i < l->count; i++) start[l->items[i].from_rank + 1]++;
        for (size_t v = 0; v < k; v++) start[v + 1] += start[v];
        memcpy(fill, start, (k + 1) * sizeof *fill);
        size_t w = 0;
        for (size_t i = 0; i < l->count; i++) {
            list[fill[l->items[i].from_rank]++] = i;
            if (l->items[i].dotted) weak[w++] = i;
        }
        /* l is sorted heaviest first, so walking `weak` backwards is weakest first. */
        uint32_t mark = 0;
        while (w-- > 0) {
            dot_edge *e = &l->items[weak[w]];
            if (other_path(l, start, list, weak[w], e->from_rank, e->to_rank, stamp, ++mark, queue))
                e->alive = false;
        }
    }
    free(start);
    free(list);
    free(fill);
    free(weak);
    free(stamp);
    free(queue);
    return ok;
}

/* ------------------------------------------------------------------ */
/* 4. emission                                                        */

/*
 * The heat scale: pale grey at 0, through peach and orange, to deep red
 * at 1 (ColorBrewer OrRd-like).
 */
static tg_style_rgb heat(double f)
{
    static const tg_style_rgb stops[TG_STYLE_SCALE_STOPS] = {
        { 242, 242, 242 }, { 254, 232, 200 }, { 253, 187, 132 }, { 239, 101, 72 }, { 179, 0, 0 },
    };
    return tg_style_scale_color(stops, f);
}

static void put_time_line(tg_buf *b, const char *what, uint64_t ns, uint64_t whole)
{
    char t[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    tg_buf_printf(b, "%s %s (%s)", what, tg_format_ns(t, sizeof t, ns),
                  tg_format_percent(pct, sizeof pct, ns, whole));
}

/* An amount of the metric as text: "1.20 ms", or "1,200 objects". */
static const char *format_amount(char *out, size_t size, const plan *p, uint64_t v)
{
    if (!p->by_allocations) return tg_format_ns(out, size, v);
    char c[TG_FORMAT_SIZE];
    snprintf(out, size, "%s object%s", tg_format_count(c, sizeof c, v), v == 1 ? "" : "s");
    return out;
}

/* The self time of the waiting methods, saturating. */
static uint64_t waiting_time(const tg_report *r, const tg_dot_options *o)
{
    uint64_t sum = 0;
    for (size_t m = 0; o->waiting && m < r->method_count; m++) {
        if (!o->waiting[m]) continue;
        uint64_t t = r->methods[m].self_time;
        sum = t > UINT64_MAX - sum ? UINT64_MAX : sum + t;
    }
    return sum;
}

/* What the total is: with several threads, their times are summed, so
 * say so ("6 threads, 103 s of thread time in 17.7 s of wall time"). */
static void emit_threads_line(tg_buf *b, const tg_report *r, const tg_dot_options *o)
{
    if (o->thread_count == 0) return;
    char t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE], c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE];
    tg_buf line = TG_BUF_INIT;
    tg_buf_printf(&line, "%s thread%s", tg_format_count(c1, sizeof c1, o->thread_count), o->thread_count == 1 ? "" : "s");
    if (o->threads_recorded > o->thread_count)
        tg_buf_printf(&line, " of %s", tg_format_count(c2, sizeof c2, o->threads_recorded));
    if (o->thread_names && *o->thread_names) tg_buf_printf(&line, " (%s)", o->thread_names);
    tg_buf_printf(&line, ", %s of thread time", tg_format_ns(t1, sizeof t1, r->total_time));
    if (o->wall_time) tg_buf_printf(&line, " in %s of wall time", tg_format_ns(t2, sizeof t2, o->wall_time));
    tg_style_put_legend_line(b, &line);
    tg_buf_free(&line);
}

/* Waiting apart from working: time blocked in sleep, join, locks and I/O
 * waits (grey boxes), or the waiting time left out. */
static void emit_waiting_line(tg_buf *b, const tg_report *r, const tg_dot_options *o)
{
    char t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    tg_buf line = TG_BUF_INIT;
    uint64_t waiting = waiting_time(r, o);
    if (o->hidden_waiting) {
        tg_buf_printf(&line, "Waiting hidden: %s blocked in sleep, join, locks and I/O waits is left out",
                      tg_format_ns(t1, sizeof t1, o->hidden_waiting));
        tg_style_put_legend_line(b, &line);
    } else if (waiting) {
        uint64_t working = r->total_time > waiting ? r->total_time - waiting : 0;
        tg_buf_printf(&line, "Waiting %s (%s, grey boxes: sleep, join, locks, I/O waits) \xC2\xB7 working %s",
                      tg_format_ns(t1, sizeof t1, waiting), tg_format_percent(pct, sizeof pct, waiting, r->total_time),
                      tg_format_ns(t2, sizeof t2, working));
        tg_style_put_legend_line(b, &line);
    }
    tg_buf_free(&line);
}

static void emit_legend(tg_buf *b, const plan *p, const edge_list *l, const tg_dot_options *o)
{
    const tg_report *r = p->r;
    char t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE], c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE];
    tg_buf line = TG_BUF_INIT;
    tg_style_put_legend_open(b);
    tg_buf_puts(&line, "tracegraph");
    if (r->program) tg_buf_printf(&line, ": %s", r->program);
    tg_style_put_legend_line(b, &line);
    tg_buf_printf(&line, "Clock: %s \xC2\xB7 total %s \xC2\xB7 %s call%s", r->clock ? r->clock : "unknown",
                  tg_format_ns(t1, sizeof t1, r->total_time), tg_format_count(c1, sizeof c1, tg_report_total_calls(r)),
                  tg_report_total_calls(r) == 1 ? "" : "s");
    tg_style_put_legend_line(b, &line);
    emit_threads_line(b, r, o);
    emit_waiting_line(b, r, o);
    const tg_report_gc *gc = r->gc;
    if (gc && (gc->runs || gc->entries)) {
        char t3[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
        tg_buf_printf(&line, "GC: %s run%s, %s step%s, %s (%s) \xC2\xB7 marking %s \xC2\xB7 sweeping %s",
                      tg_format_count(c1, sizeof c1, gc->runs), gc->runs == 1 ? "" : "s",
                      tg_format_count(c2, sizeof c2, gc->entries), gc->entries == 1 ? "" : "s",
                      tg_format_ns(t1, sizeof t1, gc->time), tg_format_percent(pct, sizeof pct, gc->time, r->total_time),
                      tg_format_ns(t2, sizeof t2, gc->mark_time), tg_format_ns(t3, sizeof t3, gc->sweep_time));
        tg_style_put_legend_line(b, &line);
    }
    if (o->self_allocations) {
        tg_buf_printf(&line, "Allocations: %s object%s \xC2\xB7 allocs = a box's own",
                      tg_format_count(c1, sizeof c1, o->total_allocations), o->total_allocations == 1 ? "" : "s");
        tg_style_put_legend_line(b, &line);
    }
    if (r->method_count == 0) {
        tg_buf_puts(&line, "Nothing was recorded (0 methods).");
        tg_style_put_legend_line(b, &line);
        tg_style_put_legend_close(b);
        tg_buf_free(&line);
        return;
    }
    const char *held = p->by_allocations ? "allocations" : "self time";
    if (o->method_total && o->method_total != r->method_count)
        tg_buf_printf(&line, "Showing %s box%s for %s methods (boxes hold %s of %s)", tg_format_count(c1, sizeof c1, p->kept),
                      p->kept == 1 ? "" : "es", tg_format_count(c2, sizeof c2, o->method_total),
                      tg_format_percent(t1, sizeof t1, p->shown_self, p->whole), held);
    else
        tg_buf_printf(&line, "Showing %s of %s methods (boxes hold %s of %s)",
                      tg_format_count(c1, sizeof c1, p->kept), tg_format_count(c2, sizeof c2, r->method_count),
                      tg_format_percent(t1, sizeof t1, p->shown_self, p->whole), held);
    tg_style_put_legend_line(b, &line);
    if (p->focus) {
        tg_buf_printf(&line, "Focus: %s matching method%s; %s unrelated method%s hidden",
                      tg_format_count(c1, sizeof c1, p->focus_matches), p->focus_matches == 1 ? "" : "s",
                      tg_format_count(c2, sizeof c2, p->unrelated), p->unrelated == 1 ? "" : "s");
        tg_style_put_legend_line(b, &line);
    }
    if (p->ignored) {
        tg_buf_printf(&line, "Ignored %s method%s", tg_format_count(c1, sizeof c1, p->ignored),
                      p->ignored == 1 ? "" : "s");
        tg_style_put_legend_line(b, &line);
    }
    if (p->cut || l->dropped) {
        tg_buf_puts(&line, "Dropped ");
        if (p->cut)
            tg_buf_printf(&line, "%s node%s (total < %s)", tg_format_count(c1, sizeof c1, p->cut),
                          p->cut == 1 ? "" : "s", format_amount(t1, sizeof t1, p, p->node_cut));
        if (p->cut && l->dropped) tg_buf_puts(&line, ", ");
        if (l->dropped)
            tg_buf_printf(&line, "%s edge%s (total < %s)", tg_format_count(c2, sizeof c2, l->dropped),
                          l->dropped == 1 ? "" : "s", format_amount(t2, sizeof t2, p, p->edge_cut));
        tg_style_put_legend_line(b, &line);
    }
    if (p->capped) {
        tg_buf_printf(&line, "Dropped %s more node%s beyond the %s-node limit (total \xE2\x89\xA4 %s)",
                      tg_format_count(c1, sizeof c1, p->capped), p->capped == 1 ? "" : "s",
                      tg_format_count(c2, sizeof c2, o->max_nodes), format_amount(t1, sizeof t1, p, p->cap_cut));
        tg_style_put_legend_line(b, &line);
    }
    if (!p->cut && !l->dropped && !p->capped) {
        tg_buf_puts(&line, "Nothing dropped");
        tg_style_put_legend_line(b, &line);
    }
    for (size_t i = 0; i < o->note_count; i++) {
        if (!o->notes[i]) continue;
        tg_buf_puts(&line, o->notes[i]);
        tg_style_put_legend_line(b, &line);
    }
    tg_buf_puts(b, "\\l");
    if (p->by_allocations) {
        tg_buf_puts(&line, "Box size = self allocations \xC2\xB7 colour = total allocations");
        tg_style_put_legend_line(b, &line);
        tg_buf_puts(&line, "Edge width and colour = allocations through the call");
    } else {
        tg_buf_puts(&line, "Box size = self time \xC2\xB7 colour = total time");
        tg_style_put_legend_line(b, &line);
        tg_buf_puts(&line, "Edge width and colour = time through the call");
    }
    tg_style_put_legend_line(b, &line);
    tg_buf_puts(&line, "Dotted edge = calls via hidden methods (~ = widest-path estimate)");
    tg_style_put_legend_line(b, &line);
    tg_buf_puts(&line, "Dashed border = C method");
    if (waiting_time(r, o)) tg_buf_puts(&line, " \xC2\xB7 grey = waiting");
    tg_style_put_legend_line(b, &line);
    tg_style_put_legend_close(b);
    tg_buf_free(&line);
}

static void emit_node(tg_buf *b, const plan *p, uint32_t m, const tg_dot_options *o)
{
    const tg_report *r = p->r;
    const tg_report_method *meth = &r->methods[m];
    const char *name = tg_report_method_name(meth);
    char c[TG_FORMAT_SIZE], t[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    tg_buf_printf(b, "  N%u [label=\"", (unsigned)p->rank[m] + 1);
    tg_style_put_label_title(b, name, meth, o->cwd, o->short_files ? o->short_files[m] : NULL);
    if (o->context && o->context[m]) tg_style_put_label_context(b, o->context[m]);
    tg_buf_puts(b, "\\n");
    put_time_line(b, "self", meth->self_time, r->total_time);
    tg_buf_puts(b, "\\n");
    put_time_line(b, "total", meth->total_time, r->total_time);
    if (o->self_allocations) {
        tg_buf_printf(b, "\\nallocs %s (%s)", tg_format_count(c, sizeof c, o->self_allocations[m]),
                      tg_format_percent(pct, sizeof pct, o->self_allocations[m], o->total_allocations));
    }
    tg_buf_printf(b, "\\n%s call%s\", tooltip=\"", tg_format_count(c, sizeof c, meth->calls),
                  meth->calls == 1 ? "" : "s");

    tg_style_put_tooltip_title(b, name, meth);
    if (o->context && o->context[m]) tg_style_put_label_context(b, o->context[m]);
    tg_buf_printf(b, "\\nself: %s (%s), %s ns", tg_format_ns(t, sizeof t, meth->self_time),
                  tg_format_percent(pct, sizeof pct, meth->self_time, r->total_time),
                  tg_format_count(c, sizeof c, meth->self_time));
    tg_buf_printf(b, "\\ntotal: %s (%s), %s ns", tg_format_ns(t, sizeof t, meth->total_time),
                  tg_format_percent(pct, sizeof pct, meth->total_time, r->total_time),
                  tg_format_count(c, sizeof c, meth->total_time));
    tg_buf_printf(b, "\\ncalls: %s", tg_format_count(c, sizeof c, meth->calls));
    if (o->self_allocations) {
        char c2[TG_FORMAT_SIZE], pct2[TG_FORMAT_SIZE];
        tg_buf_printf(b, "\\nallocations: self %s (%s), total %s (%s)",
                      tg_format_count(c, sizeof c, o->self_allocations[m]),
                      tg_format_percent(pct, sizeof pct, o->self_allocations[m], o->total_allocations),
                      tg_format_count(c2, sizeof c2, o->allocations[m]),
                      tg_format_percent(pct2, sizeof pct2, o->allocations[m], o->total_allocations));
        if (o->allocation_types && o->allocation_types[m]) {
            tg_buf_puts(b, "\\nby type: ");
            tg_escape_dot(b, o->allocation_types[m], strlen(o->allocation_types[m]), 0);
        }
    }
    if (meth->is_c) tg_buf_puts(b, "\\nimplemented in C");
    if (o->waiting && o->waiting[m]) tg_buf_puts(b, "\\nwaiting: blocks its thread until something else happens");
    tg_buf_puts(b, "\"");

    /* Size by self, colour by total (time, or allocations); waiting is
     * grey whatever its numbers, so it never looks like hot work. */
    tg_style_put_box_size(b, method_self(p, m), p->max_self);
    bool waiting = o->waiting && o->waiting[m];
    tg_style_put_box_colors(b, waiting ? TG_STYLE_WAITING_FILL
                                       : heat(tg_style_fraction_of(method_total(p, m), p->whole)));
    if (waiting) tg_buf_puts(b, ", fontcolor=\"#505050\"");
    if (meth->is_c) tg_buf_puts(b, ", style=\"filled,rounded,dashed\"");
    tg_buf_puts(b, "];\n");
}

static void emit_edge(tg_buf *b, const plan *p, const dot_edge *e, bool large)
{
    const tg_report *r = p->r;
    char c[TG_FORMAT_SIZE], t[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    double f = tg_style_fraction_of(e->amount, p->whole);
    tg_buf_printf(b, "  N%u -> N%u [", (unsigned)e->from_rank + 1, (unsigned)e->to_rank + 1);
    tg_buf t_label = TG_BUF_INIT;
    if (e->dotted) {
        tg_buf_printf(&t_label, "via hidden \xC2\xB7 ~%s", format_amount(t, sizeof t, p, e->amount));
    } else {
        if (e->via) {
            size_t frames = 1;
            for (const char *s = e->via; *s; s++) frames += *s == '\n';
            tg_buf_printf(&t_label, "via %zu frame%s \xC2\xB7 ", frames, frames == 1 ? "" : "s");
        }
        tg_buf_printf(&t_label, "\xC3\x97%s \xC2\xB7 %s", tg_format_count(c, sizeof c, e->calls),
                      tg_format_ns(t, sizeof t, e->time));
        if (p->by_allocations) tg_buf_printf(&t_label, " \xC2\xB7 %s", format_amount(t, sizeof t, p, e->amount));
    }
    if (t_label.failed) b->failed = true;
    if (!large && t_label.data) {
        tg_buf_puts(b, "label=\" ");
        tg_escape_dot(b, t_label.data, t_label.len, 0);
        tg_buf_puts(b, " \", ");
    }
    tg_buf_free(&t_label);

    tg_buf_puts(b, "tooltip=\"");
    tg_style_put_call_names(b, tg_report_method_name(&r->methods[e->from]), tg_report_method_name(&r->methods[e->to]));
    if (e->dotted) {
        tg_buf_printf(b, "\\nvia hidden methods, ~%s (%s): the busiest path's narrowest call",
                      format_amount(t, sizeof t, p, e->amount), tg_format_percent(pct, sizeof pct, e->amount, p->whole));
    } else {
        tg_buf_printf(b, "\\n%s call%s", tg_format_count(c, sizeof c, e->calls), e->calls == 1 ? "" : "s");
        tg_buf_printf(b, "\\ntotal: %s (%s)", tg_format_ns(t, sizeof t, e->time),
                      tg_format_percent(pct, sizeof pct, e->time, r->total_time));
        tg_buf_printf(b, "\\nself in callee: %s", tg_format_ns(t, sizeof t, e->self_time));
        if (p->o->edge_allocations)
            tg_buf_printf(b, "\\nallocations: %s (%s)", tg_format_count(c, sizeof c, e->allocations),
                          tg_format_percent(pct, sizeof pct, e->allocations, p->o->total_allocations));
        if (e->via) {
            tg_buf_puts(b, "\\nthrough (folded, each with one caller and one callee):");
            for (const char *s = e->via; *s;) {
                const char *end = strchr(s, '\n');
                size_t n = end ? (size_t)(end - s) : strlen(s);
                tg_buf_puts(b, "\\n  ");
                tg_escape_dot(b, s, n, 0);
                s += n + (end != NULL);
            }
        }
    }
    tg_buf_puts(b, "\"");

    /* Width and colour grow continuously with the amount through the call. */
    tg_style_put_edge_width(b, f);
    tg_style_put_edge_color(b, heat(f));
    /* dot needs an integer weight; heavy calls pull their boxes into line. */
    tg_buf_printf(b, ", weight=%d", e->dotted ? 1 : 1 + (int)(f * 100.0));
    if (e->dotted) tg_buf_puts(b, ", style=dotted");
    if (e->via) tg_buf_puts(b, ", style=bold, arrowhead=veevee");
    tg_buf_puts(b, "];\n");
}

static void emit(tg_buf *b, const plan *p, const edge_list *l, const tg_dot_options *o)
{
    bool large = p->kept > TG_STYLE_LARGE_GRAPH_NODES;
    tg_style_put_graph_open(b, "tracegraph", large);
    emit_legend(b, p, l, o);
    for (size_t i = 0; i < p->kept; i++) emit_node(b, p, p->order[i], o);
    for (size_t i = 0; i < l->count; i++) {
        if (l->items[i].alive) emit_edge(b, p, &l->items[i], large);
    }
    tg_buf_puts(b, "}\n");
}

/* ------------------------------------------------------------------ */

char *tg_dot_render(const tg_report *r, const tg_dot_options *o, size_t *len)
{
    tg_dot_options defaults;
    if (!o) {
        tg_dot_options_default(&defaults);
        o = &defaults;
    }
    size_t n = r->method_count;
    adjacency a = { 0 };
    edge_list l = { 0 };
    plan p = { 0 };
    p.r = r;
    plan_metric(&p, o);
    p.state = malloc(n + 1);
    p.rank = calloc(n + 1, sizeof *p.rank);
    p.order = malloc((n + 1) * sizeof *p.order);
    tg_buf b = TG_BUF_INIT;
    bool ok = p.state && p.rank && p.order && adjacency_build(&a, r) && select_methods(&p, &a, o) &&
              collect_solid_edges(&p, &l, o) && find_hidden_paths(&p, &a, &l);
    if (ok) {
        if (l.count > 1) qsort(l.items, l.count, sizeof *l.items, compare_edges);
        ok = remove_redundant_paths(&p, &l);
    }
    if (ok) emit(&b, &p, &l, o);
    adjacency_free(&a);
    free(l.items);
    free(p.state);
    free(p.rank);
    free(p.order);
    if (!ok) {
        tg_buf_free(&b);
        if (len) *len = 0;
        return NULL;
    }
    return tg_buf_take(&b, len);
}

/*
 * tg_diff_merge.c - matches a base and a head model by method name (see
 * tg_diff_merge.h): one node per name, one edge per caller/callee name
 * pair, each with both models' numbers.
 */
#include "tg_diff_merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t heavier(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint64_t scaled(double scale, uint64_t ns)
{
    if (scale == 1.0) return ns;
    double v = floor((double)ns * scale + 0.5);
    return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

/* A method of one model, for sorting by name. */
typedef struct method_ref {
    const tg_model_method *m;
    uint32_t index;
    uint8_t is_base;
} method_ref;

static int compare_strings_or_null(const char *a, const char *b)
{
    if (!a || !b) return a ? 1 : b ? -1 : 0;
    return strcmp(a, b);
}

/* Name, then head before base, then file and line, then index: a total order. */
static int compare_method_refs(const void *pa, const void *pb)
{
    const method_ref *a = pa, *b = pb;
    int c = strcmp(tg_model_method_name(a->m), tg_model_method_name(b->m));
    if (c) return c;
    if (a->is_base != b->is_base) return a->is_base ? 1 : -1;
    c = compare_strings_or_null(a->m->file, b->m->file);
    if (c) return c;
    if (a->m->line != b->m->line) return a->m->line < b->m->line ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static void add_to_side(tg_diff_side *s, uint64_t calls, uint64_t total, uint64_t self, uint64_t allocs,
                        uint64_t self_allocs)
{
    s->present = true;
    s->calls = add_sat(s->calls, calls);
    s->total = add_sat(s->total, total);
    s->self = add_sat(s->self, self);
    s->allocs = add_sat(s->allocs, allocs);
    s->self_allocs = add_sat(s->self_allocs, self_allocs);
}

/* One node per distinct name; node_of[0] maps head indexes, node_of[1] base's. */
static bool merge_methods(tg_diff_merge *d, const tg_model *models[2],
                          const tg_diff_dot_allocations *alloc[2], uint32_t *node_of[2])
{
    size_t n = models[0]->method_count + models[1]->method_count;
    method_ref *refs = malloc((n + 1) * sizeof *refs);
    d->nodes = calloc(n + 1, sizeof *d->nodes);
    if (!refs || !d->nodes) {
        free(refs);
        return false;
    }
    size_t k = 0;
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < models[s]->method_count; i++)
            refs[k++] = (method_ref){ &models[s]->methods[i], (uint32_t)i, (uint8_t)s };
    qsort(refs, n, sizeof *refs, compare_method_refs);
    for (size_t i = 0; i < n; i++) {
        const method_ref *r = &refs[i];
        if (d->node_count == 0 || strcmp(d->nodes[d->node_count - 1].name, tg_model_method_name(r->m)) != 0)
            d->nodes[d->node_count++] = (tg_diff_node){ .name = tg_model_method_name(r->m), .meta = r->m };
        tg_diff_node *node = &d->nodes[d->node_count - 1];
        node_of[r->is_base][r->index] = (uint32_t)(d->node_count - 1);
        const tg_diff_dot_allocations *a = alloc[r->is_base];
        /* Base times are scaled per method, after summing, below. */
        add_to_side(r->is_base ? &node->base : &node->head, r->m->calls, r->m->total_time, r->m->self_time,
                    a ? a->total[r->index] : 0, a ? a->self[r->index] : 0);
    }
    for (size_t i = 0; i < d->node_count; i++) {
        tg_diff_node *node = &d->nodes[i];
        node->base.total = scaled(d->scale, node->base.total);
        node->base.self = scaled(d->scale, node->base.self);
        node->weight = heavier(tg_diff_side_total(&node->head, d->by_allocations),
                               tg_diff_side_total(&node->base, d->by_allocations));
        if (!node->base.present) d->only_head++;
        if (!node->head.present) d->only_base++;
    }
    free(refs);
    return true;
}

/* A model edge mapped onto nodes, for sorting by endpoint. */
typedef struct edge_ref {
    uint32_t from, to;
    const tg_model_edge *e;
    uint64_t allocs;               /* objects allocated in its calls, or 0 */
    uint8_t is_base;
} edge_ref;

static int compare_edge_refs(const void *pa, const void *pb)
{
    const edge_ref *a = pa, *b = pb;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->to != b->to) return a->to < b->to ? -1 : 1;
    return 0;   /* equal pairs are summed, so their order does not matter */
}

/* One edge per (caller name, callee name); invalid model edges are skipped. */
static bool merge_edges(tg_diff_merge *d, const tg_model *models[2],
                        const tg_diff_dot_allocations *alloc[2], uint32_t *node_of[2])
{
    size_t n = models[0]->edge_count + models[1]->edge_count;
    edge_ref *refs = malloc((n + 1) * sizeof *refs);
    d->edges = calloc(n + 1, sizeof *d->edges);
    if (!refs || !d->edges) {
        free(refs);
        return false;
    }
    size_t k = 0;
    for (int s = 0; s < 2; s++) {
        const tg_model *r = models[s];
        for (size_t i = 0; i < r->edge_count; i++) {
            const tg_model_edge *e = &r->edges[i];
            if (e->caller >= r->method_count || e->callee >= r->method_count) continue;
            uint64_t allocs = alloc[s] ? alloc[s]->edges[i] : 0;
            refs[k++] = (edge_ref){ node_of[s][e->caller], node_of[s][e->callee], e, allocs, (uint8_t)s };
        }
    }
    if (k > 1) qsort(refs, k, sizeof *refs, compare_edge_refs);
    for (size_t i = 0; i < k; i++) {
        const edge_ref *r = &refs[i];
        if (d->edge_count == 0 || d->edges[d->edge_count - 1].from != r->from ||
            d->edges[d->edge_count - 1].to != r->to) {
            d->edges[d->edge_count++] = (tg_diff_edge){ .from = r->from, .to = r->to };
        }
        tg_diff_edge *e = &d->edges[d->edge_count - 1];
        add_to_side(r->is_base ? &e->base : &e->head, r->e->calls, r->e->total_time, r->e->self_time, r->allocs, 0);
    }
    for (size_t i = 0; i < d->edge_count; i++) {
        tg_diff_edge *e = &d->edges[i];
        e->base.total = scaled(d->scale, e->base.total);
        e->base.self = scaled(d->scale, e->base.self);
        e->weight = heavier(tg_diff_side_total(&e->head, d->by_allocations),
                            tg_diff_side_total(&e->base, d->by_allocations));
    }
    free(refs);
    return true;
}

uint64_t tg_diff_side_total(const tg_diff_side *s, bool by_allocations)
{
    return by_allocations ? s->allocs : s->total;
}

uint64_t tg_diff_side_self(const tg_diff_side *s, bool by_allocations)
{
    return by_allocations ? s->self_allocs : s->self;
}

void tg_diff_merge_free(tg_diff_merge *m)
{
    free(m->nodes);
    free(m->edges);
    m->nodes = NULL;
    m->edges = NULL;
    m->node_count = m->edge_count = 0;
}

bool tg_diff_merge_build(tg_diff_merge *m, const tg_model *base, const tg_model *head,
                         const tg_diff_dot_allocations *base_allocations,
                         const tg_diff_dot_allocations *head_allocations, double scale, bool by_allocations)
{
    *m = (tg_diff_merge){ .scale = scale, .by_allocations = by_allocations };
    const tg_model *models[2] = { head, base };
    const tg_diff_dot_allocations *alloc[2] = { NULL, NULL };
    if (base_allocations && head_allocations) {
        alloc[0] = head_allocations;
        alloc[1] = base_allocations;
    }
    uint32_t *node_of[2] = { calloc(head->method_count + 1, sizeof(uint32_t)),
                             calloc(base->method_count + 1, sizeof(uint32_t)) };
    bool ok = node_of[0] && node_of[1] && merge_methods(m, models, alloc, node_of) &&
              merge_edges(m, models, alloc, node_of);
    free(node_of[0]);
    free(node_of[1]);
    if (!ok) tg_diff_merge_free(m);
    return ok;
}

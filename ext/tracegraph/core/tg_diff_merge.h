/*
 * tg_diff_merge.h - a base and a head model matched by method name, the
 * model the diff graph (tg_diff_dot) draws from.
 *
 * One node per distinct method name (two methods of one model with the
 * same name are summed), one edge per (caller name, callee name), each
 * with its numbers in head and in base. Base times are scaled by `scale`
 * (1, or head total / base total when normalizing); allocation counts,
 * given for both models or for neither, are exact and never scaled.
 * Each node and edge is weighed by its heavier side in the metric (time,
 * or objects allocated): what tg_graph cuts and caps by. The result does
 * not depend on the order of methods and edges in either model.
 */
#ifndef TG_DIFF_MERGE_H
#define TG_DIFF_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tg_diff_dot.h"
#include "tg_model.h"

/* One method's or one edge's numbers in one of the two models. */
typedef struct tg_diff_side {
    bool present;
    uint64_t calls, total, self;   /* base times are scaled */
    uint64_t allocs, self_allocs;  /* objects allocated with callees (an edge: in its calls), and by the
                                      method itself (0 for edges); 0 without allocation counts */
} tg_diff_side;

typedef struct tg_diff_node {
    const char *name;
    const tg_model_method *meta;  /* file, line, is_c: head's method if it has one, else base's */
    tg_diff_side head, base;
    uint64_t weight;               /* max(head, base) total in the metric */
} tg_diff_node;

typedef struct tg_diff_edge {
    uint32_t from, to;             /* node indexes */
    tg_diff_side head, base;
    uint64_t weight;               /* max(head, base) total in the metric */
} tg_diff_edge;

typedef struct tg_diff_merge {
    double scale;                  /* base time multiplier */
    bool by_allocations;           /* weights are objects allocated, not time */
    tg_diff_node *nodes;           /* sorted by name */
    size_t node_count;
    tg_diff_edge *edges;           /* sorted by (from, to); invalid model edges are skipped */
    size_t edge_count;
    size_t only_head, only_base;   /* nodes present in one model only */
} tg_diff_merge;

/* A side's amount with callees, and its own, in the metric. */
uint64_t tg_diff_side_total(const tg_diff_side *s, bool by_allocations);
uint64_t tg_diff_side_self(const tg_diff_side *s, bool by_allocations);

/* Merges the two models into *m. Allocation counts are used only when
 * both are given. Returns false on out-of-memory, with *m freed. */
bool tg_diff_merge_build(tg_diff_merge *m, const tg_model *base, const tg_model *head,
                         const tg_diff_dot_allocations *base_allocations,
                         const tg_diff_dot_allocations *head_allocations, double scale, bool by_allocations);

void tg_diff_merge_free(tg_diff_merge *m);

#endif

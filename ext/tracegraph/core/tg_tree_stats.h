/*
 * tg_tree_stats.h - exact per-method and per-edge statistics rebuilt from
 * the call tree, for some threads only and without "waiting" methods.
 *
 * The profiler's own statistics (tg_profiler.h) cover every thread and
 * every method. Two views need others: showing one thread or several, and
 * hiding methods that only wait (Kernel#sleep, Thread#join, IO.select)
 * from the picture and from the percentages. Both can be answered from the
 * call tree, because it keeps whole paths.
 *
 * The rules:
 *  - Only nodes of chosen threads count (a node's thread is its bottom
 *    frame's root).
 *  - A node of a hidden method is left out with its whole subtree, and its
 *    total time is taken off every ancestor's total: a node's effective
 *    total is its total_time minus the total_time of the outermost hidden
 *    nodes beneath it. Self times are unchanged. A hidden method's calls
 *    count nowhere, and its callers have no edge to it.
 *  - Recursion counts each moment once, as in tg_profiler.h: a method's
 *    total adds the effective totals of its nodes that have no ancestor of
 *    the same method; an edge's total adds those of its callee nodes with
 *    no ancestor activation of the same (caller, callee) edge. Calls and
 *    self times add up over every counted node.
 *  - Bottom frames have no edge. Edges are listed in the order a depth
 *    first walk first meets them: threads in index order, children in
 *    creation order, so the same input gives the same output.
 *  - Allocation counts, when the tree has them, follow the same rules as
 *    time: self counts add up, a hidden subtree's total allocations come
 *    off every ancestor's, and totals count recursion once.
 *  - With focus flags, only the paths through a match count, as pprof's
 *    -focus keeps only the samples with a matching frame: a match and
 *    every node under it count whole; a node above a match (a caller on
 *    a path that reaches one) counts its calls, no self time, and as its
 *    total only the effective totals of the outermost matches beneath it
 *    (allocations the same); every other node is left out with its
 *    subtree. So a hub such as Array#each keeps only the part of its time
 *    spent on the way to a match. Hidden methods are left out first.
 *  - With a grouping (group_of), the same walk also sums groups of methods
 *    (a profile by class, file or gem): a node's group is its method's,
 *    or for a method that inherits (a C method: TG_TREE_STATS_INHERIT)
 *    its parent's, and top_group for a bottom frame. Each moment is
 *    counted once, however groups recurse into each other:
 *      a group's self time adds its nodes'; its calls only its entries
 *      (a bottom frame, or a node whose parent's group differs); its
 *      total the effective totals of its outermost nodes on each path;
 *      an arrow A -> B (A != B) is a node of B whose parent is of A: its
 *      calls and self time add every such crossing, its total only the
 *      outermost A -> B crossings on each path;
 *      a piece (an inheriting method, the group it took) adds the calls
 *      and self time of its nodes, and as its total the effective totals
 *      of those with no ancestor of the same method, so a method's
 *      pieces share out its calls, self and total time.
 *    Allocation counts follow the same rules; hidden methods, chosen
 *    threads and focus flags apply first, as above. The arrows are listed
 *    in `edges` (caller and callee are group indexes, in the order the
 *    walk first meets them) in place of the method edges; the methods'
 *    statistics are as without a grouping.
 *
 * Cost: O(nodes) time (plus the edge map, and with a grouping the piece
 * map); memory is 16 bytes per node (24 with allocation counts; with
 * focus flags, 9 more, and 8 more with both; a grouping adds none), 16 per
 * frame of the deepest counted path, and the results. The walk keeps its path in an array, not on the C stack:
 * any depth works.
 */
#ifndef TG_TREE_STATS_H
#define TG_TREE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "tg_calltree.h"
#include "tg_profiler.h"

typedef struct tg_tree_stats_input {
    const tg_calltree_node *nodes;   /* parents before children */
    const tg_calltree_allocations *allocations;   /* node_count entries, or NULL: not counted */
    uint32_t node_count;
    uint32_t method_count;
    uint32_t thread_count;
    const bool *threads;   /* thread_count entries: which threads count; NULL = all */
    const bool *hidden;    /* method_count entries: methods left out with their callees; NULL = none */
    const bool *focus;     /* method_count entries: only paths through these count; NULL = every path */
    /* A grouping, or group_of NULL for none: */
    const uint32_t *group_of;   /* method_count entries: a group below group_count, or TG_TREE_STATS_INHERIT */
    uint32_t group_count;
    uint32_t top_group;         /* the group of an inheriting bottom frame */
} tg_tree_stats_input;

/* In group_of: the node takes its parent's group (top_group at the bottom). */
#define TG_TREE_STATS_INHERIT UINT32_MAX

/* What group `group` holds of inheriting method `method`. */
typedef struct tg_tree_stats_piece {
    uint32_t method, group;
    uint64_t calls;
    uint64_t total_time;   /* nodes without an ancestor of the same method */
    uint64_t self_time;
} tg_tree_stats_piece;

typedef struct tg_tree_stats {
    tg_method_stats *methods;   /* method_count entries, indexed like the tree's; unused ones all zero */
    tg_edge_stats *edges;       /* edge_count entries: the (caller, callee) pairs that occur; with a grouping, the arrows */
    uint32_t edge_count;
    uint64_t *thread_time;      /* thread_count entries: the self times of each thread's counted nodes */
    uint64_t hidden_time;       /* the total_time of each outermost hidden node of a chosen thread */
    /* Parallel to methods and edges when the input has allocation counts; else NULL. */
    tg_allocation_stats *method_allocations, *edge_allocations;
    /* With a grouping; else NULL and 0: */
    tg_method_stats *groups;            /* group_count entries */
    tg_tree_stats_piece *pieces;        /* piece_count entries, in the order the walk first meets them */
    uint32_t piece_count;
    tg_allocation_stats *group_allocations, *piece_allocations;   /* with allocation counts */
} tg_tree_stats;
/* `active` is 0 in every method, edge and group of a result. */

typedef enum tg_tree_stats_status {
    TG_TREE_STATS_OK,
    TG_TREE_STATS_NO_MEMORY,
    TG_TREE_STATS_BAD_TREE,   /* a parent after its child, a missing method or thread */
    TG_TREE_STATS_BAD_GROUPS, /* a group_of entry or top_group not below group_count */
} tg_tree_stats_status;

/* Fills `out` (its old contents are not read). On failure `out` is left
 * zeroed and nothing is allocated. A node whose hidden descendants claim
 * more than its total_time gets an effective total of 0. */
tg_tree_stats_status tg_tree_stats_compute(const tg_tree_stats_input *in, tg_tree_stats *out);

/* Frees a result and zeroes it; safe on a zeroed or failed one. */
void tg_tree_stats_free(tg_tree_stats *out);

#endif

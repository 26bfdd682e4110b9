/*
 * tg_calltree.h - the calling-context tree: one node per distinct call path.
 *
 * Per-edge statistics cannot rebuild whole stacks (a->b->d and c->b->e
 * look the same as a->b->e and c->b->d), so folded stacks for flame graphs
 * need this tree. It is opt-in because it costs one more lookup per call
 * and memory per distinct path.
 *
 * Its size is bounded: past max_nodes, a call whose path is new is folded
 * into its nearest kept ancestor (its time goes to that node's self time)
 * and counted in folded_calls, so the weights still add up to the
 * profile's total.
 *
 * Threads are kept apart: each thread has its own root, so the same path
 * run by two threads is two nodes. A root is not a node: a bottom frame's
 * parent is tg_calltree_root(thread), a code above every node index
 * (nodes are capped at TG_CALLTREE_MAX_NODES).
 *
 * Allocation counts (tg_calltree_count_allocations) are kept beside the
 * nodes, in an array of their own, so a tree without them pays nothing:
 * they are booked where a node's time is (tg_profiler.c), total and self,
 * and a call folded at the cap gives its objects to the same ancestor as
 * its time.
 *
 * Memory per node: 32 bytes (tg_calltree_node), 48 with allocation counts.
 * While recording, add its entry in the index (24 bytes, in a table at
 * most half full before it doubles: up to 96) and the arrays' growth
 * slack (up to as much again as the node): at most 160 bytes a node, 192
 * with allocation counts. After stop only the nodes (and counts) stay.
 */
#ifndef TG_CALLTREE_H
#define TG_CALLTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "tg_pairmap.h"

#define TG_CALLTREE_ROOT UINT32_MAX        /* no node: a call folded at the cap */
#define TG_CALLTREE_MAX_NODES 0x7FFFFFFFu  /* node indexes stay below the roots */

/* The parent of the bottom frames of thread `thread` (< TG_CALLTREE_MAX_NODES). */
static inline uint32_t tg_calltree_root(uint32_t thread) { return TG_CALLTREE_ROOT - 1 - thread; }
static inline bool tg_calltree_is_root(uint32_t parent) { return parent > TG_CALLTREE_MAX_NODES; }
/* The thread whose root `parent` is; tg_calltree_is_root(parent) must hold. */
static inline uint32_t tg_calltree_root_thread(uint32_t parent) { return TG_CALLTREE_ROOT - 1 - parent; }

typedef struct tg_calltree_node {
    uint32_t parent;       /* node index, or tg_calltree_root(thread) */
    uint32_t method;
    uint64_t calls;
    uint64_t total_time;   /* time in this path, callees included */
    uint64_t self_time;    /* includes calls folded into this node */
} tg_calltree_node;

/* The objects allocated in a node's calls, by its index (16 bytes). */
typedef struct tg_calltree_allocations {
    uint64_t total;   /* in this path, callees included */
    uint64_t self;    /* as self_time: includes calls folded into this node */
} tg_calltree_allocations;

typedef struct tg_calltree {
    tg_calltree_node *nodes;
    tg_calltree_allocations *allocations;   /* parallel to nodes; NULL unless counted */
    uint32_t count, capacity;
    uint32_t max_nodes;
    bool count_allocations;                 /* set by tg_calltree_count_allocations */
    uint64_t folded_calls;
    tg_pairmap index;      /* (parent, method) -> node */
} tg_calltree;

/* max_nodes above TG_CALLTREE_MAX_NODES is taken as TG_CALLTREE_MAX_NODES. */
bool tg_calltree_init(tg_calltree *t, uint32_t max_nodes);
void tg_calltree_free(tg_calltree *t);

/* Keeps allocation counts per node from now on (allocations, zeroed for
 * each new node; the profiler books them when it counts allocations too).
 * Before the first node. */
void tg_calltree_count_allocations(tg_calltree *t);

/* The node for `method` called in the path ending at `parent` (a node, or
 * a thread's root). Creates it if there is room (bottom frames always get
 * one); otherwise returns
 * TG_CALLTREE_ROOT, counts the call in folded_calls, and the caller folds
 * the call into `parent`. */
uint32_t tg_calltree_child(tg_calltree *t, uint32_t parent, uint32_t method);

/* Whether finished nodes form a tree the walkers can trust: each method
 * below method_count, each parent an earlier node or the root of a thread
 * below thread_count, and no more nodes than indexes below the roots. */
bool tg_calltree_valid(const tg_calltree_node *nodes, uint32_t count, uint32_t method_count, uint32_t thread_count);

/* A view of a finished tree (nodes in creation order): the paths of the
 * chosen threads (threads[t], thread_count entries; NULL = all), without
 * the nodes of hidden methods (hidden[m], method_count entries; NULL =
 * none) and everything under them. Each kept node's total_time drops by
 * the time of the subtrees left out beneath it, so totals stay self time
 * plus callees' totals; with allocation counts (`allocations`, parallel
 * to nodes, or NULL) its total allocations drop the same way, into
 * `out_allocations` (room for `count`; ignored without). Kept nodes keep
 * their order and thread; parents are renumbered. `out` has room for
 * `count` nodes. Returns the number kept and adds the left-out subtrees'
 * time (within chosen threads) to *hidden_time; UINT32_MAX if the tree is
 * not tg_calltree_valid or memory runs out. */
uint32_t tg_calltree_filter(const tg_calltree_node *nodes, const tg_calltree_allocations *allocations, uint32_t count,
                            const bool *threads, uint32_t thread_count, const bool *hidden, uint32_t method_count,
                            tg_calltree_node *out, tg_calltree_allocations *out_allocations, uint64_t *hidden_time);

#endif

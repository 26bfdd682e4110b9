/*
 * test_tree_stats.c - statistics rebuilt from hand-built call trees, with
 * exact numbers: chosen threads, direct and indirect recursion (totals
 * once, edge totals of outermost activations only), hidden leaves and
 * hidden subtrees (ancestors' totals drop by exactly their time), edge
 * order, a 100,000-deep path, malformed trees, allocation counts under
 * the same rules, groups of methods (a group recursing into itself
 * through another, C methods taking their caller's group, roots, threads
 * and hidden methods with a grouping), and every memory allocation failing
 * in turn (where the linker can wrap the allocator).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tg_tree_stats.h"

#define ROOT(t) (TG_CALLTREE_ROOT - 1 - (t))   /* tg_calltree_root(t), as a constant */

enum { MAIN, WORK, TIMES, X, METHODS };

/* main: main -> work -> times, main -> x. worker: work -> times. */
static const tg_calltree_node tree[] = {
    {ROOT(0), MAIN, 1, 100, 10},   /* 0 main */
    {0, WORK, 2, 60, 20},          /* 1 main > work */
    {1, TIMES, 2, 40, 40},         /* 2 main > work > times */
    {ROOT(1), WORK, 1, 50, 5},     /* 3 worker: work */
    {3, TIMES, 1, 45, 45},         /* 4 worker: work > times */
    {0, X, 3, 30, 30},             /* 5 main > x */
};

static tg_tree_stats_input input(const tg_calltree_node *nodes, uint32_t count, uint32_t methods, uint32_t threads)
{
    return (tg_tree_stats_input){.nodes = nodes, .node_count = count, .method_count = methods, .thread_count = threads};
}

static void compute_ok(const tg_tree_stats_input *in, tg_tree_stats *out)
{
    ck_assert_int_eq(tg_tree_stats_compute(in, out), TG_TREE_STATS_OK);
}

#define ck_method(s, m, c, total, self)                          \
    do {                                                         \
        const tg_method_stats *ms_ = &(s)->methods[m];           \
        ck_assert_uint_eq(ms_->calls, c);                        \
        ck_assert_uint_eq(ms_->total_time, total);               \
        ck_assert_uint_eq(ms_->self_time, self);                 \
        ck_assert_uint_eq(ms_->active, 0);                       \
    } while (0)

#define ck_edge(s, e, from, to, c, total, self)                  \
    do {                                                         \
        ck_assert_uint_lt(e, (s)->edge_count);                   \
        const tg_edge_stats *es_ = &(s)->edges[e];               \
        ck_assert_uint_eq(es_->caller, from);                    \
        ck_assert_uint_eq(es_->callee, to);                      \
        ck_assert_uint_eq(es_->calls, c);                        \
        ck_assert_uint_eq(es_->total_time, total);               \
        ck_assert_uint_eq(es_->self_time, self);                 \
        ck_assert_uint_eq(es_->active, 0);                       \
    } while (0)

#define ck_allocations(a, total_, self_)           \
    do {                                           \
        const tg_allocation_stats *a_ = (a);       \
        ck_assert_uint_eq(a_->total, (total_));    \
        ck_assert_uint_eq(a_->self, (self_));      \
    } while (0)

/* Allocation counts {total, self} for `tree`'s nodes. */
static const tg_calltree_allocations tree_counts[] = {
    {26, 1},    /* 0 main */
    {15, 3},    /* 1 main > work */
    {12, 12},   /* 2 main > work > times */
    {9, 4},     /* 3 worker: work */
    {5, 5},     /* 4 worker: work > times */
    {10, 10},   /* 5 main > x */
};

START_TEST(all_threads_add_up)
{
    tg_tree_stats_input in = input(tree, 6, METHODS, 2);
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, MAIN, 1, 100, 10);
    ck_method(&s, WORK, 3, 110, 25);
    ck_method(&s, TIMES, 3, 85, 85);
    ck_method(&s, X, 3, 30, 30);
    ck_assert_uint_eq(s.edge_count, 3);
    ck_edge(&s, 0, MAIN, WORK, 2, 60, 20);
    ck_edge(&s, 1, WORK, TIMES, 3, 85, 85);
    ck_edge(&s, 2, MAIN, X, 3, 30, 30);
    ck_assert_uint_eq(s.thread_time[0], 100);
    ck_assert_uint_eq(s.thread_time[1], 50);
    ck_assert_uint_eq(s.hidden_time, 0);
    tg_tree_stats_free(&s);
    ck_assert_ptr_null(s.methods);
    ck_assert_ptr_null(s.edges);
    ck_assert_ptr_null(s.thread_time);
}
END_TEST

START_TEST(one_thread_counts_alone)
{
    bool worker_only[] = {false, true};
    tg_tree_stats_input in = input(tree, 6, METHODS, 2);
    in.threads = worker_only;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, MAIN, 0, 0, 0);
    ck_method(&s, WORK, 1, 50, 5);
    ck_method(&s, TIMES, 1, 45, 45);
    ck_method(&s, X, 0, 0, 0);
    ck_assert_uint_eq(s.edge_count, 1);
    ck_edge(&s, 0, WORK, TIMES, 1, 45, 45);
    ck_assert_uint_eq(s.thread_time[0], 0);
    ck_assert_uint_eq(s.thread_time[1], 50);
    tg_tree_stats_free(&s);

    bool main_only[] = {true, false};
    in.threads = main_only;
    compute_ok(&in, &s);
    ck_method(&s, WORK, 2, 60, 20);
    ck_method(&s, TIMES, 2, 40, 40);
    ck_assert_uint_eq(s.edge_count, 3);
    ck_edge(&s, 1, WORK, TIMES, 2, 40, 40);
    ck_assert_uint_eq(s.thread_time[0], 100);
    ck_assert_uint_eq(s.thread_time[1], 0);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(no_thread_counts_nothing)
{
    bool none[] = {false, false};
    tg_tree_stats_input in = input(tree, 6, METHODS, 2);
    in.threads = none;
    tg_tree_stats s;
    compute_ok(&in, &s);
    for (uint32_t m = 0; m < METHODS; m++) ck_method(&s, m, 0, 0, 0);
    ck_assert_uint_eq(s.edge_count, 0);
    ck_assert_uint_eq(s.thread_time[0], 0);
    ck_assert_uint_eq(s.thread_time[1], 0);
    ck_assert_uint_eq(s.hidden_time, 0);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(direct_recursion_counts_each_moment_once)
{
    enum { A };
    tg_calltree_node nodes[] = {
        {ROOT(0), A, 1, 100, 10},   /* a */
        {0, A, 2, 90, 20},          /* a > a */
        {1, A, 3, 70, 70},          /* a > a > a */
    };
    tg_tree_stats_input in = input(nodes, 3, 1, 1);
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, A, 6, 100, 100);
    ck_assert_uint_eq(s.edge_count, 1);
    ck_edge(&s, 0, A, A, 5, 90, 90);   /* a > a > a is inside the outer a -> a */
    ck_assert_uint_eq(s.thread_time[0], 100);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(indirect_recursion_counts_outermost_edges_only)
{
    enum { A, B };
    tg_calltree_node nodes[] = {
        {ROOT(0), A, 1, 100, 10},   /* 0 a */
        {0, B, 1, 90, 20},          /* 1 a > b */
        {1, A, 2, 70, 30},          /* 2 a > b > a */
        {2, B, 3, 40, 40},          /* 3 a > b > a > b */
        {ROOT(1), A, 1, 8, 3},      /* 4 other thread: a: the counts start afresh */
        {4, B, 1, 5, 5},            /* 5 other thread: a > b */
    };
    tg_tree_stats_input in = input(nodes, 6, 2, 2);
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, A, 4, 108, 43);
    ck_method(&s, B, 5, 95, 65);
    ck_assert_uint_eq(s.edge_count, 2);
    ck_edge(&s, 0, A, B, 5, 95, 65);
    ck_edge(&s, 1, B, A, 2, 70, 30);
    ck_assert_uint_eq(s.thread_time[0], 100);
    ck_assert_uint_eq(s.thread_time[1], 8);
    tg_tree_stats_free(&s);
}
END_TEST

enum { H_MAIN, H_WORK, H_SLEEP, H_LOOP, H_METHODS };

/* main: main -> work -> sleep. worker: loop -> sleep. */
static const tg_calltree_node sleeping[] = {
    {ROOT(0), H_MAIN, 1, 100, 10},   /* 0 main */
    {0, H_WORK, 1, 90, 30},          /* 1 main > work */
    {1, H_SLEEP, 2, 60, 60},         /* 2 main > work > sleep */
    {ROOT(1), H_LOOP, 1, 50, 10},    /* 3 worker: loop */
    {3, H_SLEEP, 1, 40, 40},         /* 4 worker: loop > sleep */
};
static const bool sleep_hidden[H_METHODS] = {[H_SLEEP] = true};

START_TEST(a_hidden_leaf_leaves_its_callers_totals)
{
    tg_tree_stats_input in = input(sleeping, 5, H_METHODS, 2);
    tg_tree_stats s;
    compute_ok(&in, &s);   /* shown first, for comparison */
    ck_method(&s, H_MAIN, 1, 100, 10);
    ck_method(&s, H_SLEEP, 3, 100, 100);
    ck_assert_uint_eq(s.edge_count, 3);
    tg_tree_stats_free(&s);

    in.hidden = sleep_hidden;
    compute_ok(&in, &s);
    ck_method(&s, H_MAIN, 1, 40, 10);   /* 100 - 60 */
    ck_method(&s, H_WORK, 1, 30, 30);   /* 90 - 60 */
    ck_method(&s, H_SLEEP, 0, 0, 0);
    ck_method(&s, H_LOOP, 1, 10, 10);   /* 50 - 40 */
    ck_assert_uint_eq(s.edge_count, 1);
    ck_edge(&s, 0, H_MAIN, H_WORK, 1, 30, 30);
    ck_assert_uint_eq(s.hidden_time, 100);
    ck_assert_uint_eq(s.thread_time[0], 40);
    ck_assert_uint_eq(s.thread_time[1], 10);
    tg_tree_stats_free(&s);

    bool worker_only[] = {false, true};
    in.threads = worker_only;
    compute_ok(&in, &s);
    ck_method(&s, H_MAIN, 0, 0, 0);
    ck_method(&s, H_LOOP, 1, 10, 10);
    ck_assert_uint_eq(s.edge_count, 0);
    ck_assert_uint_eq(s.hidden_time, 40);
    ck_assert_uint_eq(s.thread_time[0], 0);
    ck_assert_uint_eq(s.thread_time[1], 10);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(a_hidden_method_takes_its_subtree_with_it)
{
    enum { MAIN_, JOIN, WORK_, N };
    tg_calltree_node nodes[] = {
        {ROOT(0), MAIN_, 1, 100, 10},   /* 0 main */
        {0, JOIN, 1, 70, 10},           /* 1 main > join */
        {1, WORK_, 3, 60, 50},          /* 2 main > join > work */
        {2, JOIN, 1, 10, 10},           /* 3 main > join > work > join: inside the outer one */
        {0, WORK_, 1, 20, 20},          /* 4 main > work */
    };
    bool hidden[N] = {[JOIN] = true};
    tg_tree_stats_input in = input(nodes, 5, N, 1);
    in.hidden = hidden;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, MAIN_, 1, 30, 10);
    ck_method(&s, JOIN, 0, 0, 0);
    ck_method(&s, WORK_, 1, 20, 20);   /* the work under join is gone */
    ck_assert_uint_eq(s.edge_count, 1);
    ck_edge(&s, 0, MAIN_, WORK_, 1, 20, 20);
    ck_assert_uint_eq(s.hidden_time, 70);   /* the outermost join only */
    ck_assert_uint_eq(s.thread_time[0], 30);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(hidden_time_leaves_recursive_totals_once)
{
    enum { A, SLEEP, N };
    tg_calltree_node nodes[] = {
        {ROOT(0), A, 1, 100, 10},   /* a */
        {0, A, 1, 90, 30},          /* a > a */
        {1, SLEEP, 1, 60, 60},      /* a > a > sleep */
    };
    bool hidden[N] = {[SLEEP] = true};
    tg_tree_stats_input in = input(nodes, 3, N, 1);
    in.hidden = hidden;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, A, 2, 40, 40);
    ck_assert_uint_eq(s.edge_count, 1);
    ck_edge(&s, 0, A, A, 1, 30, 30);
    ck_assert_uint_eq(s.hidden_time, 60);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(a_hidden_bottom_frame_hides_the_whole_path)
{
    bool hidden[METHODS] = {[MAIN] = true};
    tg_tree_stats_input in = input(tree, 6, METHODS, 2);
    in.hidden = hidden;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, MAIN, 0, 0, 0);
    ck_method(&s, WORK, 1, 50, 5);
    ck_method(&s, X, 0, 0, 0);
    ck_assert_uint_eq(s.edge_count, 1);
    ck_edge(&s, 0, WORK, TIMES, 1, 45, 45);
    ck_assert_uint_eq(s.hidden_time, 100);
    ck_assert_uint_eq(s.thread_time[0], 0);
    ck_assert_uint_eq(s.thread_time[1], 50);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(edges_come_in_walk_order)
{
    /* main calls 1000 methods, created last first; then each of them calls
     * main back, in a second thread. */
    enum { CALLEES = 1000 };
    tg_calltree_node nodes[2 * CALLEES + 2];
    nodes[0] = (tg_calltree_node){ROOT(1), 0, 1, 0, 0};
    for (uint32_t i = 0; i < CALLEES; i++) nodes[1 + i] = (tg_calltree_node){0, CALLEES - i, 1, 1, 1};
    nodes[CALLEES + 1] = (tg_calltree_node){ROOT(0), 7, 1, 0, 0};
    for (uint32_t i = 0; i < CALLEES; i++)
        nodes[CALLEES + 2 + i] = (tg_calltree_node){CALLEES + 1, (uint32_t)(i * 7 % CALLEES) + 1, 1, 2, 2};
    tg_tree_stats_input in = input(nodes, 2 * CALLEES + 2, CALLEES + 1, 2);
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_assert_uint_eq(s.edge_count, 2 * CALLEES);
    /* Thread 0 first, though its nodes were created later. */
    for (uint32_t i = 0; i < CALLEES; i++) ck_edge(&s, i, 7, i * 7 % CALLEES + 1, 1, 2, 2);
    for (uint32_t i = 0; i < CALLEES; i++) ck_edge(&s, CALLEES + i, 0, CALLEES - i, 1, 1, 1);
    tg_tree_stats_free(&s);
}
END_TEST

/* A chain of `depth` frames alternating methods 0 and 1, each with self
 * time 1, whose leaf is method 2. */
static tg_calltree_node *chain(uint32_t depth)
{
    tg_calltree_node *nodes = calloc(depth, sizeof *nodes);
    ck_assert_ptr_nonnull(nodes);
    for (uint32_t i = 0; i < depth; i++)
        nodes[i] = (tg_calltree_node){i ? i - 1 : ROOT(0), i + 1 == depth ? 2 : i % 2, 1, depth - i, 1};
    return nodes;
}

START_TEST(a_100000_deep_path_is_walked_without_recursion)
{
    enum { DEPTH = 100000 };
    tg_calltree_node *nodes = chain(DEPTH);
    bool hidden[] = {false, false, true};   /* the leaf: every total drops by its 1 */
    tg_tree_stats_input in = input(nodes, DEPTH, 3, 1);
    in.hidden = hidden;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, 0, DEPTH / 2, DEPTH - 1, DEPTH / 2);           /* nodes 0, 2, ..., 99998 */
    ck_method(&s, 1, DEPTH / 2 - 1, DEPTH - 2, DEPTH / 2 - 1);   /* nodes 1, 3, ..., 99997 */
    ck_method(&s, 2, 0, 0, 0);
    ck_assert_uint_eq(s.edge_count, 2);
    ck_edge(&s, 0, 0, 1, DEPTH / 2 - 1, DEPTH - 2, DEPTH / 2 - 1);
    ck_edge(&s, 1, 1, 0, DEPTH / 2 - 1, DEPTH - 3, DEPTH / 2 - 1);
    ck_assert_uint_eq(s.hidden_time, 1);
    ck_assert_uint_eq(s.thread_time[0], DEPTH - 1);
    tg_tree_stats_free(&s);
    free(nodes);
}
END_TEST

START_TEST(without_counts_there_are_no_allocation_arrays)
{
    tg_tree_stats_input in = input(tree, 6, METHODS, 2);
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_assert_ptr_null(s.method_allocations);
    ck_assert_ptr_null(s.edge_allocations);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(allocations_add_up_per_thread_and_for_all)
{
    tg_tree_stats_input in = input(tree, 6, METHODS, 2);
    in.allocations = tree_counts;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, WORK, 3, 110, 25);   /* time as without counts */
    ck_allocations(&s.method_allocations[MAIN], 26, 1);
    ck_allocations(&s.method_allocations[WORK], 24, 7);
    ck_allocations(&s.method_allocations[TIMES], 17, 17);
    ck_allocations(&s.method_allocations[X], 10, 10);
    ck_assert_uint_eq(s.edge_count, 3);
    ck_allocations(&s.edge_allocations[0], 15, 3);    /* main -> work */
    ck_allocations(&s.edge_allocations[1], 17, 17);   /* work -> times, both threads */
    ck_allocations(&s.edge_allocations[2], 10, 10);   /* main -> x */
    tg_tree_stats_free(&s);
    ck_assert_ptr_null(s.method_allocations);
    ck_assert_ptr_null(s.edge_allocations);

    bool worker_only[] = {false, true};
    in.threads = worker_only;
    compute_ok(&in, &s);
    ck_allocations(&s.method_allocations[MAIN], 0, 0);
    ck_allocations(&s.method_allocations[WORK], 9, 4);
    ck_allocations(&s.method_allocations[TIMES], 5, 5);
    ck_allocations(&s.method_allocations[X], 0, 0);
    ck_assert_uint_eq(s.edge_count, 1);
    ck_allocations(&s.edge_allocations[0], 5, 5);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(allocations_count_recursion_once)
{
    enum { A, B };
    tg_calltree_node direct[] = {
        {ROOT(0), A, 1, 100, 10},   /* a */
        {0, A, 2, 90, 20},          /* a > a */
        {1, A, 3, 70, 70},          /* a > a > a */
    };
    const tg_calltree_allocations direct_counts[] = {{30, 2}, {28, 8}, {20, 20}};
    tg_tree_stats_input in = input(direct, 3, 1, 1);
    in.allocations = direct_counts;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_allocations(&s.method_allocations[A], 30, 30);
    ck_allocations(&s.edge_allocations[0], 28, 28);   /* a > a > a is inside the outer a -> a */
    tg_tree_stats_free(&s);

    tg_calltree_node indirect[] = {
        {ROOT(0), A, 1, 100, 10},   /* 0 a */
        {0, B, 1, 90, 20},          /* 1 a > b */
        {1, A, 2, 70, 30},          /* 2 a > b > a */
        {2, B, 3, 40, 40},          /* 3 a > b > a > b */
        {ROOT(1), A, 1, 8, 3},      /* 4 other thread: a */
        {4, B, 1, 5, 5},            /* 5 other thread: a > b */
    };
    const tg_calltree_allocations indirect_counts[] = {{40, 1}, {39, 2}, {37, 3}, {34, 34}, {6, 1}, {5, 5}};
    in = input(indirect, 6, 2, 2);
    in.allocations = indirect_counts;
    compute_ok(&in, &s);
    ck_allocations(&s.method_allocations[A], 46, 5);    /* nodes 0 and 4 outermost */
    ck_allocations(&s.method_allocations[B], 44, 41);   /* nodes 1 and 5 outermost */
    ck_assert_uint_eq(s.edge_count, 2);
    ck_allocations(&s.edge_allocations[0], 44, 41);     /* a -> b */
    ck_allocations(&s.edge_allocations[1], 37, 3);      /* b -> a */
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(hidden_allocations_leave_their_callers_totals)
{
    const tg_calltree_allocations counts[] = {{50, 5}, {45, 15}, {30, 30}, {12, 2}, {10, 10}};
    tg_tree_stats_input in = input(sleeping, 5, H_METHODS, 2);
    in.allocations = counts;
    in.hidden = sleep_hidden;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_allocations(&s.method_allocations[H_MAIN], 20, 5);   /* 50 - 30 */
    ck_allocations(&s.method_allocations[H_WORK], 15, 15);  /* 45 - 30 */
    ck_allocations(&s.method_allocations[H_SLEEP], 0, 0);
    ck_allocations(&s.method_allocations[H_LOOP], 2, 2);    /* 12 - 10 */
    ck_assert_uint_eq(s.edge_count, 1);
    ck_allocations(&s.edge_allocations[0], 15, 15);
    tg_tree_stats_free(&s);

    /* Hidden under recursion: a > a > sleep, the inner a's total counted once. */
    enum { A, SLEEP, N };
    tg_calltree_node nodes[] = {
        {ROOT(0), A, 1, 100, 10},   /* a */
        {0, A, 1, 90, 30},          /* a > a */
        {1, SLEEP, 1, 60, 60},      /* a > a > sleep */
    };
    const tg_calltree_allocations nested[] = {{9, 1}, {8, 2}, {6, 6}};
    bool hidden[N] = {[SLEEP] = true};
    in = input(nodes, 3, N, 1);
    in.allocations = nested;
    in.hidden = hidden;
    compute_ok(&in, &s);
    ck_allocations(&s.method_allocations[A], 3, 3);
    ck_allocations(&s.edge_allocations[0], 2, 2);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(malformed_trees_are_refused)
{
    tg_calltree_node bad_parent[] = {{ROOT(0), 0, 1, 1, 1}, {5, 1, 1, 1, 1}};
    tg_calltree_node bad_method[] = {{ROOT(0), 9, 1, 1, 1}};
    tg_calltree_node bad_thread[] = {{ROOT(7), 0, 1, 1, 1}};
    tg_calltree_node self_parent[] = {{0, 0, 1, 1, 1}};
    tg_calltree_node late_parent[] = {{ROOT(0), 0, 1, 1, 1}, {2, 1, 1, 1, 1}, {0, 1, 1, 1, 1}};
    const tg_calltree_node *trees[] = {bad_parent, bad_method, bad_thread, self_parent, late_parent};
    uint32_t counts[] = {2, 1, 1, 1, 3};
    for (size_t i = 0; i < 5; i++) {
        tg_tree_stats_input in = input(trees[i], counts[i], 4, 2);
        tg_tree_stats s;
        memset(&s, 0xAB, sizeof s);
        ck_assert_int_eq(tg_tree_stats_compute(&in, &s), TG_TREE_STATS_BAD_TREE);
        ck_assert_ptr_null(s.methods);
        ck_assert_ptr_null(s.edges);
        ck_assert_ptr_null(s.thread_time);
        ck_assert_uint_eq(s.edge_count, 0);
        tg_tree_stats_free(&s);
    }
}
END_TEST

START_TEST(an_empty_tree_has_empty_statistics)
{
    tg_tree_stats_input in = input(NULL, 0, 0, 0);
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_assert_uint_eq(s.edge_count, 0);
    ck_assert_uint_eq(s.hidden_time, 0);
    tg_tree_stats_free(&s);
    tg_tree_stats_free(&s);   /* a zeroed result frees too */
}
END_TEST

/* ---- groups: each moment once, however groups recurse ------------------ */

enum { G_A1, G_A2, G_B1, G_B2, G_EACH, G_LOAD, G_SLEEP, G_METHODS };
enum { GA, GB, GTOP, GROUPS };

/* A1 and A2 are group A's, B1 and B2 group B's; EACH, LOAD and SLEEP are
 * C methods, which take their caller's group (LOAD, a bottom frame, the
 * top group). Group A calls B, which calls back into A, which calls B
 * again: A -> B -> A -> B. */
static const uint32_t group_of[G_METHODS] = {
    [G_A1] = GA, [G_A2] = GA, [G_B1] = GB, [G_B2] = GB,
    [G_EACH] = TG_TREE_STATS_INHERIT, [G_LOAD] = TG_TREE_STATS_INHERIT, [G_SLEEP] = TG_TREE_STATS_INHERIT,
};

static const tg_calltree_node grouped[] = {
    {ROOT(0), G_LOAD, 1, 100, 2},   /* 0 LOAD                    top */
    {0, G_A1, 1, 98, 10},           /* 1 LOAD > A1               A, arrow top -> A */
    {1, G_B1, 2, 60, 5},            /* 2 .. A1 > B1              B, arrow A -> B */
    {2, G_EACH, 2, 55, 5},          /* 3 .. B1 > EACH            B (inherited) */
    {3, G_A2, 4, 50, 10},           /* 4 .. EACH > A2            A again: arrow B -> A */
    {4, G_B2, 4, 40, 20},           /* 5 .. A2 > B2              B again: A -> B inside A -> B */
    {5, G_EACH, 4, 20, 20},         /* 6 .. B2 > EACH            B, EACH inside EACH */
    {1, G_EACH, 1, 28, 8},          /* 7 LOAD > A1 > EACH        A (inherited) */
    {7, G_B2, 1, 20, 20},           /* 8 .. EACH > B2            B, arrow A -> B */
    {ROOT(1), G_A1, 1, 30, 5},      /* 9 thread 1: A1            A */
    {9, G_SLEEP, 1, 25, 25},        /* 10 thread 1: A1 > SLEEP   A (inherited) */
};

/* Allocation counts: three times each node's times. */
static tg_calltree_allocations grouped_counts[11];

static tg_tree_stats_input grouped_input(void)
{
    for (uint32_t i = 0; i < 11; i++)
        grouped_counts[i] = (tg_calltree_allocations){3 * grouped[i].total_time, 3 * grouped[i].self_time};
    tg_tree_stats_input in = input(grouped, 11, G_METHODS, 2);
    in.group_of = group_of;
    in.group_count = GROUPS;
    in.top_group = GTOP;
    return in;
}

#define ck_group(s, g, c, total, self) ck_method_stats(&(s)->groups[g], c, total, self)

static void ck_method_stats(const tg_method_stats *ms, uint64_t calls, uint64_t total, uint64_t self)
{
    ck_assert_uint_eq(ms->calls, calls);
    ck_assert_uint_eq(ms->total_time, total);
    ck_assert_uint_eq(ms->self_time, self);
    ck_assert_uint_eq(ms->active, 0);
}

static void ck_piece(const tg_tree_stats *s, uint32_t p, uint32_t method, uint32_t group, uint64_t calls,
                     uint64_t total, uint64_t self)
{
    ck_assert_uint_lt(p, s->piece_count);
    const tg_tree_stats_piece *piece = &s->pieces[p];
    ck_assert_uint_eq(piece->method, method);
    ck_assert_uint_eq(piece->group, group);
    ck_assert_uint_eq(piece->calls, calls);
    ck_assert_uint_eq(piece->total_time, total);
    ck_assert_uint_eq(piece->self_time, self);
}

START_TEST(groups_recursing_through_each_other_count_each_moment_once)
{
    bool main_only[] = {true, false};
    tg_tree_stats_input in = grouped_input();
    in.threads = main_only;
    tg_tree_stats s;
    compute_ok(&in, &s);
    /* top: LOAD. A: 1, 4 and the EACH of 7; entered at 1 (from top) and 4
     * (from B); its total is node 1's, which holds 4 and 7. B: 2, 3, 5, 6,
     * 8; entered at 2, 5 and 8; its outermost nodes are 2 and 8. */
    ck_group(&s, GTOP, 1, 100, 2);
    ck_group(&s, GA, 1 + 4, 98, 10 + 10 + 8);
    ck_group(&s, GB, 2 + 4 + 1, 60 + 20, 5 + 5 + 20 + 20 + 20);
    ck_assert_uint_eq(s.groups[GTOP].self_time + s.groups[GA].self_time + s.groups[GB].self_time, 100);
    /* Arrows in walk order. A -> B: crossings 2, 5 and 8; 5 is inside 2's. */
    ck_assert_uint_eq(s.edge_count, 3);
    ck_edge(&s, 0, GTOP, GA, 1, 98, 10);
    ck_edge(&s, 1, GA, GB, 2 + 4 + 1, 60 + 20, 5 + 20 + 20);
    ck_edge(&s, 2, GB, GA, 4, 50, 10);
    /* Pieces: EACH in B is nodes 3 and 6, 6 inside 3; in A node 7. */
    ck_assert_uint_eq(s.piece_count, 3);
    ck_piece(&s, 0, G_LOAD, GTOP, 1, 100, 2);
    ck_piece(&s, 1, G_EACH, GB, 2 + 4, 55, 5 + 20);
    ck_piece(&s, 2, G_EACH, GA, 1, 28, 8);
    /* The methods' own statistics are as without a grouping; EACH's
     * pieces share out its calls, self and total time. */
    ck_method(&s, G_EACH, 7, 55 + 28, 33);
    ck_method(&s, G_A1, 1, 98, 10);
    ck_method(&s, G_B2, 5, 60, 40);
    ck_assert_uint_eq(s.thread_time[0], 100);
    ck_assert_ptr_null(s.group_allocations);
    ck_assert_ptr_null(s.piece_allocations);
    tg_tree_stats_free(&s);
    ck_assert_ptr_null(s.groups);
    ck_assert_ptr_null(s.pieces);
    ck_assert_uint_eq(s.piece_count, 0);
}
END_TEST

START_TEST(group_allocations_follow_the_same_rules)
{
    bool main_only[] = {true, false};
    tg_tree_stats_input in = grouped_input();
    in.threads = main_only;
    in.allocations = grouped_counts;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_group(&s, GA, 5, 98, 28);   /* times as without counts */
    ck_allocations(&s.group_allocations[GTOP], 300, 6);
    ck_allocations(&s.group_allocations[GA], 3 * 98, 3 * 28);
    ck_allocations(&s.group_allocations[GB], 3 * 80, 3 * 70);
    ck_allocations(&s.edge_allocations[0], 3 * 98, 3 * 10);
    ck_allocations(&s.edge_allocations[1], 3 * 80, 3 * 45);
    ck_allocations(&s.edge_allocations[2], 3 * 50, 3 * 10);
    ck_allocations(&s.piece_allocations[1], 3 * 55, 3 * 25);
    ck_allocations(&s.piece_allocations[2], 3 * 28, 3 * 8);
    tg_tree_stats_free(&s);
    ck_assert_ptr_null(s.group_allocations);
    ck_assert_ptr_null(s.piece_allocations);
}
END_TEST

START_TEST(groups_with_threads_and_hidden_methods)
{
    static const bool sleep_hidden_g[G_METHODS] = {[G_SLEEP] = true};
    bool worker_only[] = {false, true};
    tg_tree_stats_input in = grouped_input();
    tg_tree_stats s;

    /* Thread 1 alone: A1 and the SLEEP it calls, which is A's. */
    in.threads = worker_only;
    compute_ok(&in, &s);
    ck_group(&s, GA, 1, 30, 30);
    ck_group(&s, GB, 0, 0, 0);
    ck_group(&s, GTOP, 0, 0, 0);
    ck_assert_uint_eq(s.edge_count, 0);
    ck_assert_uint_eq(s.piece_count, 1);
    ck_piece(&s, 0, G_SLEEP, GA, 1, 25, 25);
    tg_tree_stats_free(&s);

    /* Without SLEEP: its time comes off A's total, and it is no piece. */
    in.hidden = sleep_hidden_g;
    compute_ok(&in, &s);
    ck_group(&s, GA, 1, 5, 5);
    ck_assert_uint_eq(s.piece_count, 0);
    ck_assert_uint_eq(s.hidden_time, 25);
    ck_assert_uint_eq(s.thread_time[1], 5);
    tg_tree_stats_free(&s);

    /* Both threads: A's root call on thread 1 is one more entry, and one
     * more outermost node. */
    in.threads = NULL;
    compute_ok(&in, &s);
    ck_group(&s, GA, 6, 98 + 5, 28 + 5);
    ck_group(&s, GB, 7, 80, 70);
    ck_group(&s, GTOP, 1, 100, 2);
    ck_assert_uint_eq(s.edge_count, 3);
    ck_assert_uint_eq(s.piece_count, 3);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(a_root_c_method_is_the_top_group_and_calls_inherit_it)
{
    /* A C method at the bottom calling another C method: both the top
     * group's, so one entry and no arrow; then a group's method. */
    static const tg_calltree_node nodes[] = {
        {ROOT(0), G_LOAD, 1, 50, 10},   /* 0 */
        {0, G_EACH, 3, 40, 15},         /* 1 */
        {1, G_B1, 3, 25, 25},           /* 2 */
    };
    tg_tree_stats_input in = input(nodes, 3, G_METHODS, 1);
    in.group_of = group_of;
    in.group_count = GROUPS;
    in.top_group = GTOP;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_group(&s, GTOP, 1, 50, 25);
    ck_group(&s, GB, 3, 25, 25);
    ck_assert_uint_eq(s.edge_count, 1);
    ck_edge(&s, 0, GTOP, GB, 3, 25, 25);
    ck_assert_uint_eq(s.piece_count, 2);
    ck_piece(&s, 0, G_LOAD, GTOP, 1, 50, 10);
    ck_piece(&s, 1, G_EACH, GTOP, 3, 40, 15);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(a_grouping_naming_a_missing_group_is_refused)
{
    uint32_t bad[G_METHODS];
    memcpy(bad, group_of, sizeof bad);
    bad[G_B2] = GROUPS;
    tg_tree_stats_input in = grouped_input();
    in.group_of = bad;
    tg_tree_stats s;
    ck_assert_int_eq(tg_tree_stats_compute(&in, &s), TG_TREE_STATS_BAD_GROUPS);
    ck_assert_ptr_null(s.groups);
    ck_assert_ptr_null(s.methods);
    in.group_of = group_of;
    in.top_group = GROUPS;
    ck_assert_int_eq(tg_tree_stats_compute(&in, &s), TG_TREE_STATS_BAD_GROUPS);
    in.group_count = 0;
    in.top_group = 0;
    ck_assert_int_eq(tg_tree_stats_compute(&in, &s), TG_TREE_STATS_BAD_GROUPS);
}
END_TEST

#ifdef TG_TEST_WRAP_ALLOC
/* The linker sends every malloc, calloc and realloc of this program (the
 * core's included) here: the `fail_at`-th call from now fails. */
void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
static long alloc_calls, fail_at = -1;

static bool fail_now(void) { return fail_at >= 0 && alloc_calls++ == fail_at; }
void *__wrap_malloc(size_t size) { return fail_now() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t count, size_t size) { return fail_now() ? NULL : __real_calloc(count, size); }
void *__wrap_realloc(void *p, size_t size) { return fail_now() ? NULL : __real_realloc(p, size); }

START_TEST(every_allocation_failure_is_reported_and_frees_everything)
{
    /* 300 deep over 100 methods: the path, the edge array and the edge map
     * all grow; run once without allocation counts and once with them (two
     * more arrays, and the edges' growing). */
    enum { DEPTH = 300, N = 100 };
    bool counted = _i >= 1, grouping = _i == 2;
    tg_calltree_node *nodes = calloc(DEPTH, sizeof *nodes);
    tg_calltree_allocations *counts = calloc(DEPTH, sizeof *counts);
    ck_assert_ptr_nonnull(nodes);
    ck_assert_ptr_nonnull(counts);
    for (uint32_t i = 0; i < DEPTH; i++) {
        nodes[i] = (tg_calltree_node){i ? i - 1 : ROOT(0), i % N, 1, DEPTH - i, 1};
        counts[i] = (tg_calltree_allocations){2 * (DEPTH - i), 2};
    }
    tg_tree_stats_input in = input(nodes, DEPTH, N, 1);
    if (counted) in.allocations = counts;
    uint32_t groups_of[N];   /* every 4th method in one of 4 groups, the others inheriting */
    for (uint32_t m = 0; m < N; m++) groups_of[m] = m % 4 ? TG_TREE_STATS_INHERIT : m / 4 % 4;
    if (grouping) {
        in.group_of = groups_of;
        in.group_count = 4;
        in.top_group = 0;
    }
    tg_tree_stats want;
    compute_ok(&in, &want);
    ck_assert_uint_eq(want.edge_count, grouping ? 4 : N);   /* 0 -> 1 -> 2 -> 3 -> 0 */
    ck_assert_uint_eq(want.piece_count, grouping ? 3 * N / 4 : 0);   /* more than the first 64: they grow */
    long failures = 0;
    for (long k = 0;; k++) {
        alloc_calls = 0;
        fail_at = k;
        tg_tree_stats s;
        tg_tree_stats_status status = tg_tree_stats_compute(&in, &s);
        fail_at = -1;
        if (status == TG_TREE_STATS_OK) {
            ck_assert_int_le(alloc_calls, k);   /* no failure left to inject */
            ck_assert_uint_eq(s.edge_count, want.edge_count);
            ck_assert_mem_eq(s.edges, want.edges, want.edge_count * sizeof *s.edges);
            ck_assert_mem_eq(s.methods, want.methods, N * sizeof *s.methods);
            if (counted) {
                ck_assert_mem_eq(s.method_allocations, want.method_allocations, N * sizeof *s.method_allocations);
                ck_assert_mem_eq(s.edge_allocations, want.edge_allocations, want.edge_count * sizeof *s.edge_allocations);
            }
            if (grouping) {
                ck_assert_uint_eq(s.piece_count, want.piece_count);
                ck_assert_mem_eq(s.groups, want.groups, 4 * sizeof *s.groups);
                ck_assert_mem_eq(s.pieces, want.pieces, want.piece_count * sizeof *s.pieces);
                ck_assert_mem_eq(s.group_allocations, want.group_allocations, 4 * sizeof *s.group_allocations);
                ck_assert_mem_eq(s.piece_allocations, want.piece_allocations,
                                 want.piece_count * sizeof *s.piece_allocations);
            }
            tg_tree_stats_free(&s);
            break;
        }
        ck_assert_int_eq(status, TG_TREE_STATS_NO_MEMORY);
        ck_assert_ptr_null(s.methods);
        ck_assert_ptr_null(s.edges);
        ck_assert_ptr_null(s.thread_time);
        ck_assert_ptr_null(s.method_allocations);
        ck_assert_ptr_null(s.edge_allocations);
        ck_assert_ptr_null(s.groups);
        ck_assert_ptr_null(s.pieces);
        ck_assert_ptr_null(s.group_allocations);
        ck_assert_ptr_null(s.piece_allocations);
        failures++;
    }
    /* 6 arrays, the map, and the path, edges and map growing; with counts
     * 2 more arrays and the edge counts growing; with a grouping 2 more
     * arrays, the piece map, and the pieces and their counts growing */
    ck_assert_int_ge(failures, grouping ? 18 : counted ? 14 : 10);
    if (counted && !grouping) {
        ck_allocations(&want.method_allocations[0], 2 * DEPTH, 6);   /* nodes 0, 100, 200: the outermost once */
        ck_allocations(&want.edge_allocations[0], 2 * (DEPTH - 1), 6);   /* 0 -> 1: nodes 1, 101 and 201 */
    }
    tg_tree_stats_free(&want);
    free(nodes);
    free(counts);
}
END_TEST
#endif

/* ---- focus: only the paths through a match ---------------------------- */

enum { F_MAIN, F_EACH, F_BLOCK_SMALL, F_SMALL, F_LEAF, F_BLOCK_BIG, F_PARSE, F_METHODS };

/* One hub runs two blocks: a small method's, and a big parse's. */
static const tg_calltree_node hub_tree[] = {
    {ROOT(0), F_MAIN, 1, 1000, 10},   /* 0 main */
    {0, F_EACH, 1, 990, 20},          /* 1 main > each */
    {1, F_BLOCK_SMALL, 5, 30, 5},     /* 2 main > each > block in small's caller */
    {2, F_SMALL, 5, 25, 15},          /* 3 ... > small */
    {3, F_LEAF, 10, 10, 10},          /* 4 ... > small > leaf */
    {1, F_BLOCK_BIG, 5, 940, 40},     /* 5 main > each > block in parse's caller */
    {5, F_PARSE, 5, 900, 900},        /* 6 ... > parse */
};

static const tg_calltree_allocations hub_counts[] = {
    {100, 1}, {99, 2}, {7, 1}, {6, 2}, {4, 4}, {90, 10}, {80, 80},
};

static const bool small_focus[F_METHODS] = {[F_SMALL] = true};

START_TEST(a_focus_keeps_only_the_paths_through_its_matches)
{
    tg_tree_stats_input in = input(hub_tree, 7, F_METHODS, 1);
    in.focus = small_focus;
    tg_tree_stats s;
    compute_ok(&in, &s);
    /* Callers on the way count their calls and only the match's time. */
    ck_method(&s, F_MAIN, 1, 25, 0);
    ck_method(&s, F_EACH, 1, 25, 0);
    ck_method(&s, F_BLOCK_SMALL, 5, 25, 0);
    ck_method(&s, F_SMALL, 5, 25, 15);
    ck_method(&s, F_LEAF, 10, 10, 10);
    /* The big parse under the same hub is not on such a path. */
    ck_method(&s, F_BLOCK_BIG, 0, 0, 0);
    ck_method(&s, F_PARSE, 0, 0, 0);
    ck_assert_uint_eq(s.edge_count, 4);
    ck_edge(&s, 0, F_MAIN, F_EACH, 1, 25, 0);
    ck_edge(&s, 1, F_EACH, F_BLOCK_SMALL, 5, 25, 0);
    ck_edge(&s, 2, F_BLOCK_SMALL, F_SMALL, 5, 25, 15);
    ck_edge(&s, 3, F_SMALL, F_LEAF, 10, 10, 10);
    ck_assert_uint_eq(s.thread_time[0], 25);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(a_focus_with_hidden_methods_and_allocations)
{
    tg_tree_stats_input in = input(hub_tree, 7, F_METHODS, 1);
    bool hidden[F_METHODS] = {[F_LEAF] = true};
    in.focus = small_focus;
    in.hidden = hidden;
    in.allocations = hub_counts;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, F_MAIN, 1, 15, 0);
    ck_method(&s, F_EACH, 1, 15, 0);
    ck_method(&s, F_SMALL, 5, 15, 15);
    ck_method(&s, F_LEAF, 0, 0, 0);
    ck_method(&s, F_PARSE, 0, 0, 0);
    ck_assert_uint_eq(s.hidden_time, 10);
    ck_allocations(&s.method_allocations[F_MAIN], 2, 0);
    ck_allocations(&s.method_allocations[F_SMALL], 2, 2);
    ck_allocations(&s.method_allocations[F_PARSE], 0, 0);
    ck_assert_uint_eq(s.edge_count, 3);
    ck_allocations(&s.edge_allocations[0], 2, 0);
    tg_tree_stats_free(&s);
}
END_TEST

/* main > a > b > a > leaf, and main > b > a, focused on a: a match under
 * a match counts whole, once; b is under a match on one path and above
 * one on the other. */
START_TEST(a_focus_counts_matches_under_matches_once)
{
    enum { M, A, B, L, N };
    static const tg_calltree_node nodes[] = {
        {ROOT(0), M, 1, 200, 20},   /* 0 main */
        {0, A, 1, 120, 40},         /* 1 main > a */
        {1, B, 1, 80, 30},          /* 2 main > a > b */
        {2, A, 1, 50, 45},          /* 3 main > a > b > a */
        {3, L, 1, 5, 5},            /* 4 ... > a > leaf */
        {0, B, 2, 60, 50},          /* 5 main > b */
        {5, A, 2, 10, 10},          /* 6 main > b > a */
    };
    bool focus[N] = {[A] = true};
    tg_tree_stats_input in = input(nodes, 7, N, 1);
    in.focus = focus;
    tg_tree_stats s;
    compute_ok(&in, &s);
    ck_method(&s, M, 1, 130, 0);
    ck_method(&s, A, 4, 130, 95);
    ck_method(&s, B, 3, 90, 30);   /* whole under a; only a's 10 above it */
    ck_method(&s, L, 1, 5, 5);
    ck_assert_uint_eq(s.thread_time[0], 130);
    tg_tree_stats_free(&s);
}
END_TEST

START_TEST(a_focus_without_a_match_counts_nothing)
{
    tg_tree_stats_input in = input(hub_tree, 7, F_METHODS, 1);
    bool none[F_METHODS] = {0};
    in.focus = none;
    tg_tree_stats s;
    compute_ok(&in, &s);
    for (uint32_t m = 0; m < F_METHODS; m++) ck_method(&s, m, 0, 0, 0);
    ck_assert_uint_eq(s.edge_count, 0);
    ck_assert_uint_eq(s.thread_time[0], 0);
    tg_tree_stats_free(&s);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("tree_stats");
    TCase *tc = tcase_create("statistics");
    tcase_add_test(tc, all_threads_add_up);
    tcase_add_test(tc, one_thread_counts_alone);
    tcase_add_test(tc, no_thread_counts_nothing);
    tcase_add_test(tc, direct_recursion_counts_each_moment_once);
    tcase_add_test(tc, indirect_recursion_counts_outermost_edges_only);
    tcase_add_test(tc, a_hidden_leaf_leaves_its_callers_totals);
    tcase_add_test(tc, a_hidden_method_takes_its_subtree_with_it);
    tcase_add_test(tc, hidden_time_leaves_recursive_totals_once);
    tcase_add_test(tc, a_hidden_bottom_frame_hides_the_whole_path);
    tcase_add_test(tc, edges_come_in_walk_order);
    tcase_add_test(tc, a_100000_deep_path_is_walked_without_recursion);
    tcase_add_test(tc, malformed_trees_are_refused);
    tcase_add_test(tc, an_empty_tree_has_empty_statistics);
    tcase_add_test(tc, without_counts_there_are_no_allocation_arrays);
    tcase_add_test(tc, allocations_add_up_per_thread_and_for_all);
    tcase_add_test(tc, allocations_count_recursion_once);
    tcase_add_test(tc, hidden_allocations_leave_their_callers_totals);
    tcase_add_test(tc, a_focus_keeps_only_the_paths_through_its_matches);
    tcase_add_test(tc, a_focus_with_hidden_methods_and_allocations);
    tcase_add_test(tc, a_focus_counts_matches_under_matches_once);
    tcase_add_test(tc, a_focus_without_a_match_counts_nothing);
    tcase_add_test(tc, groups_recursing_through_each_other_count_each_moment_once);
    tcase_add_test(tc, group_allocations_follow_the_same_rules);
    tcase_add_test(tc, groups_with_threads_and_hidden_methods);
    tcase_add_test(tc, a_root_c_method_is_the_top_group_and_calls_inherit_it);
    tcase_add_test(tc, a_grouping_naming_a_missing_group_is_refused);
#ifdef TG_TEST_WRAP_ALLOC
    tcase_add_loop_test(tc, every_allocation_failure_is_reported_and_frees_everything, 0, 3);
#endif
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

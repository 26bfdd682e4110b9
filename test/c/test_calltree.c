/*
 * Unit tests of the calling-context tree, driven through the profiler
 * with a fake clock: paths, recursion, the node cap and folding, and the
 * same for allocation counts (ALLOC(n) stands for the binding's hook).
 */
#include <check.h>
#include <stdlib.h>

#include "tg_profiler.h"

static tg_profiler p;
static tg_calltree tree;
static tg_context ctx;
static uint32_t A, B, C, D, E;

/* With `allocations`, the profiler and the tree both count them. */
static void start_with(uint32_t max_nodes, bool allocations)
{
    ck_assert(tg_profiler_init(&p));
    ck_assert(tg_calltree_init(&tree, max_nodes));
    if (allocations) {
        tg_profiler_count_allocations(&p);
        tg_calltree_count_allocations(&tree);
    }
    p.tree = &tree;
    tg_context_init(&ctx, tg_profiler_add_thread(&p));
    tg_profiler_activate(&p, &ctx);
    A = tg_profiler_method(&p, 1, 1);
    B = tg_profiler_method(&p, 1, 2);
    C = tg_profiler_method(&p, 1, 3);
    D = tg_profiler_method(&p, 1, 4);
    E = tg_profiler_method(&p, 1, 5);
}

static void start(uint32_t max_nodes) { start_with(max_nodes, false); }

static void setup(void) { start(1000); }

static void teardown(void)
{
    tg_context_free(&ctx);
    tg_calltree_free(&tree);
    tg_profiler_free(&p);
}

#define CALL(m, t) tg_profiler_call(&p, &ctx, (m), 0, (t))
#define RET(m, t) tg_profiler_return(&p, &ctx, (m), 0, (t))

/* The node for a path given as methods from the bottom, or fails. */
static const tg_calltree_node *path(int n, const uint32_t *methods)
{
    uint32_t node = tg_calltree_root(0);
    for (int i = 0; i < n; i++) {
        node = tg_pairmap_find(&tree.index, node, methods[i]);
        ck_assert_uint_ne(node, TG_PAIRMAP_NONE);
    }
    return &tree.nodes[node];
}
#define PATH(...) path(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t), (uint32_t[]){__VA_ARGS__})

static uint64_t tree_self_sum(void)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < tree.count; i++) sum += tree.nodes[i].self_time;
    return sum;
}

START_TEST(test_paths_that_edges_cannot_tell_apart)
{
    /* a->b->d and c->b->e: edges alone would also allow a->b->e. */
    CALL(A, 0); CALL(B, 1); CALL(D, 2); RET(D, 5); RET(B, 6); RET(A, 7);
    CALL(C, 10); CALL(B, 11); CALL(E, 12); RET(E, 20); RET(B, 21); RET(C, 22);
    ck_assert_uint_eq(tree.count, 6);
    ck_assert_uint_eq(PATH(A, B, D)->self_time, 3);
    ck_assert_uint_eq(PATH(C, B, E)->self_time, 8);
    ck_assert_uint_eq(tg_pairmap_find(&tree.index, tg_pairmap_find(&tree.index,
                      tg_pairmap_find(&tree.index, tg_calltree_root(0), A), B), E), TG_PAIRMAP_NONE);
    ck_assert_uint_eq(PATH(A, B)->total_time, 5);
    ck_assert_uint_eq(PATH(C, B)->self_time, 2);
    ck_assert_uint_eq(tree_self_sum(), p.thread_time[0]);
    ck_assert_uint_eq(tree.folded_calls, 0);
}
END_TEST

START_TEST(test_repeated_calls_share_a_node)
{
    CALL(A, 0);
    for (uint64_t t = 1; t < 200; t += 2) { CALL(B, t); RET(B, t + 1); }
    CALL(C, 300); RET(C, 301);
    CALL(B, 302); RET(B, 303);
    RET(A, 400);
    ck_assert_uint_eq(tree.count, 3);
    ck_assert_uint_eq(PATH(A, B)->calls, 101);
    ck_assert_uint_eq(PATH(A, B)->total_time, 101);
    ck_assert_uint_eq(PATH(A, C)->calls, 1);
    ck_assert_uint_eq(tree_self_sum(), 400);
}
END_TEST

START_TEST(test_recursion_is_a_path_per_depth)
{
    CALL(A, 0); CALL(A, 1); CALL(A, 2); RET(A, 3); RET(A, 4); RET(A, 5);
    ck_assert_uint_eq(tree.count, 3);
    ck_assert_uint_eq(PATH(A)->total_time, 5);
    ck_assert_uint_eq(PATH(A, A)->total_time, 3);
    ck_assert_uint_eq(PATH(A, A, A)->total_time, 1);
    ck_assert_uint_eq(tree_self_sum(), 5);
}
END_TEST

START_TEST(test_cap_folds_deeper_paths_into_the_nearest_kept_ancestor)
{
    teardown();
    start(3);
    /* a -> b -> c fills the tree; d under c and e under d are folded into c. */
    CALL(A, 0); CALL(B, 1); CALL(C, 2);
    CALL(D, 3); CALL(E, 4); RET(E, 6); RET(D, 8);
    CALL(D, 9); RET(D, 10);
    RET(C, 12); RET(B, 13);
    CALL(D, 14); RET(D, 15);   /* a new path under a: also folded, into a */
    RET(A, 16);
    ck_assert_uint_eq(tree.count, 3);
    ck_assert_uint_eq(tree.folded_calls, 4);
    ck_assert_uint_eq(PATH(A, B, C)->self_time, 10);   /* 2..12 all stays in c */
    ck_assert_uint_eq(PATH(A, B, C)->total_time, 10);
    ck_assert_uint_eq(PATH(A, B)->self_time, 2);
    ck_assert_uint_eq(PATH(A)->self_time, 3 + 1);
    ck_assert_uint_eq(tree_self_sum(), 16);
    ck_assert_uint_eq(p.methods[D].calls, 3);           /* method stats stay exact */
    ck_assert_uint_eq(p.methods[E].calls, 1);
}
END_TEST

START_TEST(test_bottom_frames_ignore_the_cap)
{
    teardown();
    start(1);
    CALL(A, 0); CALL(B, 1); RET(B, 2); RET(A, 3);
    CALL(C, 4); RET(C, 6);
    ck_assert_uint_eq(tree.count, 2);
    ck_assert_uint_eq(PATH(C)->self_time, 2);
    ck_assert_uint_eq(tree_self_sum(), 5);
}
END_TEST

START_TEST(test_threads_are_kept_apart)
{
    /* The same path a -> b in two threads: a root and two nodes each. */
    tg_context other;
    tg_context_init(&other, tg_profiler_add_thread(&p));
    CALL(A, 0); CALL(B, 1); RET(B, 3); RET(A, 4);
    tg_profiler_activate(&p, &other);
    tg_profiler_call(&p, &other, A, 0, 10);
    tg_profiler_call(&p, &other, B, 0, 12);
    tg_profiler_return(&p, &other, B, 0, 17);
    tg_profiler_return(&p, &other, A, 0, 20);
    ck_assert_uint_eq(tree.count, 4);
    uint32_t a0 = tg_pairmap_find(&tree.index, tg_calltree_root(0), A);
    uint32_t a1 = tg_pairmap_find(&tree.index, tg_calltree_root(1), A);
    ck_assert_uint_ne(a0, a1);
    ck_assert(tg_calltree_is_root(tree.nodes[a1].parent));
    ck_assert_uint_eq(tg_calltree_root_thread(tree.nodes[a0].parent), 0);
    ck_assert_uint_eq(tg_calltree_root_thread(tree.nodes[a1].parent), 1);
    ck_assert(!tg_calltree_is_root(a1));
    ck_assert_uint_eq(tree.nodes[a1].total_time, 10);
    ck_assert_uint_eq(tree.nodes[tg_pairmap_find(&tree.index, a1, B)].self_time, 5);
    ck_assert_uint_eq(tree.nodes[tg_pairmap_find(&tree.index, a0, B)].self_time, 2);
    tg_profiler_activate(&p, &ctx);
    tg_context_free(&other);
}
END_TEST

/* ---- allocation counts ---- */

#define ALLOC(n) (ctx.allocations += (n))

/* A path's allocation counts, as path() finds its node. */
static const tg_calltree_allocations *counts(int n, const uint32_t *methods)
{
    return &tree.allocations[path(n, methods) - tree.nodes];
}
#define COUNTS(...) counts(sizeof((uint32_t[]){__VA_ARGS__}) / sizeof(uint32_t), (uint32_t[]){__VA_ARGS__})
#define ASSERT_COUNTS(c, total_, self_)               \
    do {                                              \
        const tg_calltree_allocations *c_ = (c);      \
        ck_assert_uint_eq(c_->total, (total_));       \
        ck_assert_uint_eq(c_->self, (self_));         \
    } while (0)

static uint64_t tree_self_allocations(void)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < tree.count; i++) sum += tree.allocations[i].self;
    return sum;
}

START_TEST(test_each_path_counts_its_own_allocations)
{
    teardown();
    start_with(1000, true);
    /* a -> b -> d and c -> b -> e, as above; b allocates on both paths. */
    CALL(A, 0); ALLOC(1);
    CALL(B, 0); ALLOC(2);
    CALL(D, 0); ALLOC(4); RET(D, 0);
    RET(B, 0); RET(A, 0);
    CALL(C, 0);
    CALL(B, 0); ALLOC(8);
    CALL(E, 0); ALLOC(16); RET(E, 0);
    CALL(E, 0); ALLOC(32); RET(E, 0);
    RET(B, 0); RET(C, 0);
    ALLOC(64);   /* outside any frame: nobody's */
    ASSERT_COUNTS(COUNTS(A), 7, 1);
    ASSERT_COUNTS(COUNTS(A, B), 6, 2);
    ASSERT_COUNTS(COUNTS(A, B, D), 4, 4);
    ASSERT_COUNTS(COUNTS(C), 56, 0);
    ASSERT_COUNTS(COUNTS(C, B), 56, 8);
    ASSERT_COUNTS(COUNTS(C, B, E), 48, 48);
    /* The paths' self counts add up to the methods' (and to everything). */
    ck_assert_uint_eq(tree_self_allocations(), 63);
    ck_assert_uint_eq(p.method_allocations[B].self, 10);
    ck_assert_uint_eq(p.method_allocations[B].total, 62);
}
END_TEST

START_TEST(test_recursion_counts_per_depth_in_the_tree)
{
    teardown();
    start_with(1000, true);
    CALL(A, 0); ALLOC(1);
    CALL(A, 0); ALLOC(10);
    CALL(A, 0); ALLOC(100); RET(A, 0);
    RET(A, 0); RET(A, 0);
    ASSERT_COUNTS(COUNTS(A), 111, 1);
    ASSERT_COUNTS(COUNTS(A, A), 110, 10);
    ASSERT_COUNTS(COUNTS(A, A, A), 100, 100);
    ck_assert_uint_eq(p.method_allocations[A].total, 111);   /* the method: once */
}
END_TEST

START_TEST(test_folded_calls_give_their_allocations_to_the_nearest_kept_ancestor)
{
    teardown();
    start_with(3, true);
    /* The same calls as the time test above: a -> b -> c fills the tree;
     * d and e under c are folded into c, d under a into a. */
    CALL(A, 0); ALLOC(1);
    CALL(B, 0); ALLOC(2);
    CALL(C, 0); ALLOC(4);
    CALL(D, 0); ALLOC(8);
    CALL(E, 0); ALLOC(16); RET(E, 0);
    RET(D, 0);
    CALL(D, 0); ALLOC(32); RET(D, 0);
    RET(C, 0); RET(B, 0);
    CALL(D, 0); ALLOC(64); RET(D, 0);
    RET(A, 0);
    ck_assert_uint_eq(tree.count, 3);
    ck_assert_uint_eq(tree.folded_calls, 4);
    ASSERT_COUNTS(COUNTS(A, B, C), 60, 60);   /* 4 + 8 + 16 + 32: all its own now */
    ASSERT_COUNTS(COUNTS(A, B), 62, 2);
    ASSERT_COUNTS(COUNTS(A), 127, 1 + 64);
    ck_assert_uint_eq(tree_self_allocations(), 127);
    /* The method statistics stay exact. */
    ck_assert_uint_eq(p.method_allocations[D].self, 104);
    ck_assert_uint_eq(p.method_allocations[D].total, 120);
    ck_assert_uint_eq(p.method_allocations[E].total, 16);
}
END_TEST

START_TEST(test_threads_count_their_own_allocations)
{
    teardown();
    start_with(1000, true);
    tg_context other;
    tg_context_init(&other, tg_profiler_add_thread(&p));
    CALL(A, 0); ALLOC(3); RET(A, 0);
    tg_profiler_activate(&p, &other);
    tg_profiler_call(&p, &other, A, 0, 0);
    other.allocations += 5;
    tg_profiler_return(&p, &other, A, 0, 0);
    tg_profiler_activate(&p, &ctx);
    uint32_t a0 = tg_pairmap_find(&tree.index, tg_calltree_root(0), A);
    uint32_t a1 = tg_pairmap_find(&tree.index, tg_calltree_root(1), A);
    ASSERT_COUNTS(&tree.allocations[a0], 3, 3);
    ASSERT_COUNTS(&tree.allocations[a1], 5, 5);
    tg_context_free(&other);
}
END_TEST

START_TEST(test_counts_cost_nothing_unless_the_tree_keeps_them)
{
    /* The profiler counts, the tree does not: nodes as before, no array. */
    teardown();
    ck_assert(tg_profiler_init(&p));
    ck_assert(tg_calltree_init(&tree, 1000));
    tg_profiler_count_allocations(&p);
    p.tree = &tree;
    tg_context_init(&ctx, tg_profiler_add_thread(&p));
    tg_profiler_activate(&p, &ctx);
    A = tg_profiler_method(&p, 1, 1);
    CALL(A, 0); ALLOC(3); RET(A, 0);
    ck_assert_uint_eq(tree.count, 1);
    ck_assert_ptr_null(tree.allocations);
    ck_assert_uint_eq(p.method_allocations[A].self, 3);
    ck_assert_uint_eq(sizeof(tg_calltree_node), 32);
    ck_assert_uint_eq(sizeof(tg_calltree_allocations), 16);

    /* The tree counts, the profiler does not: zeros, never garbage. */
    teardown();
    ck_assert(tg_profiler_init(&p));
    ck_assert(tg_calltree_init(&tree, 1000));
    tg_calltree_count_allocations(&tree);
    p.tree = &tree;
    tg_context_init(&ctx, tg_profiler_add_thread(&p));
    tg_profiler_activate(&p, &ctx);
    A = tg_profiler_method(&p, 1, 1);
    CALL(A, 0); ALLOC(3); RET(A, 0);
    ASSERT_COUNTS(&tree.allocations[0], 0, 0);
}
END_TEST

START_TEST(test_counts_grow_with_the_nodes)
{
    teardown();
    start_with(100000, true);
    /* 3,000 distinct paths under a: past the first 1,024-node array. */
    CALL(A, 0);
    for (uint64_t i = 0; i < 3000; i++) {
        uint32_t m = tg_profiler_method(&p, 2, i);
        CALL(m, 0); ALLOC(i); RET(m, 0);
    }
    RET(A, 0);
    ck_assert_uint_eq(tree.count, 3001);
    ck_assert_uint_ge(tree.capacity, 3001);
    ASSERT_COUNTS(COUNTS(A), 3000 * 2999 / 2, 0);
    for (uint32_t i = 1; i < tree.count; i++) ASSERT_COUNTS(&tree.allocations[i], i - 1, i - 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("calltree");
    TCase *tc = tcase_create("paths");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_paths_that_edges_cannot_tell_apart);
    tcase_add_test(tc, test_repeated_calls_share_a_node);
    tcase_add_test(tc, test_recursion_is_a_path_per_depth);
    tcase_add_test(tc, test_cap_folds_deeper_paths_into_the_nearest_kept_ancestor);
    tcase_add_test(tc, test_bottom_frames_ignore_the_cap);
    tcase_add_test(tc, test_threads_are_kept_apart);
    tcase_add_test(tc, test_each_path_counts_its_own_allocations);
    tcase_add_test(tc, test_recursion_counts_per_depth_in_the_tree);
    tcase_add_test(tc, test_folded_calls_give_their_allocations_to_the_nearest_kept_ancestor);
    tcase_add_test(tc, test_threads_count_their_own_allocations);
    tcase_add_test(tc, test_counts_cost_nothing_unless_the_tree_keeps_them);
    tcase_add_test(tc, test_counts_grow_with_the_nodes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

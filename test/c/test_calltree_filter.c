/*
 * Unit tests of tg_calltree_filter: one thread's paths, waiting methods
 * left out with their subtrees, and totals (of time, and of allocations
 * when the tree has them) lowered by what was left out.
 */
#include <check.h>
#include <stdlib.h>

#include "tg_calltree.h"

enum { MAIN_A, MAIN_SLEEP, MAIN_B, WORKER_A, WORKER_SLEEP, WORKER_C, SLEEP_CHILD };
enum { A, B, C, SLEEP, INNER, METHODS };

#define NODE(parent, method, calls, total, self) {(parent), (method), (calls), (total), (self)}

/* Thread 0: A (100) -> sleep (60), A -> B (30); thread 1: A (50) ->
 * sleep (20) -> INNER (5), A -> C (10). */
static const tg_calltree_node tree[] = {
    [MAIN_A] = NODE(0, A, 1, 100, 10),
    [MAIN_SLEEP] = NODE(MAIN_A, SLEEP, 2, 60, 60),
    [MAIN_B] = NODE(MAIN_A, B, 3, 30, 30),
    [WORKER_A] = NODE(0, A, 1, 50, 20),
    [WORKER_SLEEP] = NODE(WORKER_A, SLEEP, 1, 20, 15),
    [WORKER_C] = NODE(WORKER_A, C, 4, 10, 10),
    [SLEEP_CHILD] = NODE(WORKER_SLEEP, INNER, 1, 5, 5),
};
#define COUNT (sizeof tree / sizeof tree[0])

static tg_calltree_node fixed[COUNT];

/* Allocations {total, self} beside the tree: thread 0's sleep allocates
 * 40 (an IO read's strings, say), thread 1's 13 and its INNER 7. */
static const tg_calltree_allocations counts[COUNT] = {
    [MAIN_A] = {70, 5}, [MAIN_SLEEP] = {40, 40}, [MAIN_B] = {25, 25},
    [WORKER_A] = {30, 2}, [WORKER_SLEEP] = {20, 13}, [WORKER_C] = {8, 8}, [SLEEP_CHILD] = {7, 7},
};

#define ASSERT_COUNTS(c, total_, self_)         \
    do {                                        \
        ck_assert_uint_eq((c).total, (total_)); \
        ck_assert_uint_eq((c).self, (self_));   \
    } while (0)

/* The bottom frames' parents are their threads' roots. */
static void setup(void)
{
    for (uint32_t i = 0; i < COUNT; i++) fixed[i] = tree[i];
    fixed[MAIN_A].parent = tg_calltree_root(0);
    fixed[WORKER_A].parent = tg_calltree_root(1);
}

START_TEST(test_everything_kept_without_choices)
{
    tg_calltree_node out[COUNT];
    uint64_t hidden = 0;
    ck_assert_uint_eq(tg_calltree_filter(fixed, NULL, COUNT, NULL, 2, NULL, METHODS, out, NULL, &hidden), COUNT);
    for (uint32_t i = 0; i < COUNT; i++) {
        ck_assert_uint_eq(out[i].parent, fixed[i].parent);
        ck_assert_uint_eq(out[i].total_time, fixed[i].total_time);
    }
    ck_assert_uint_eq(hidden, 0);
}
END_TEST

START_TEST(test_one_thread_keeps_its_paths_renumbered)
{
    tg_calltree_node out[COUNT];
    uint64_t hidden = 0;
    const bool threads[] = {false, true};
    ck_assert_uint_eq(tg_calltree_filter(fixed, NULL, COUNT, threads, 2, NULL, METHODS, out, NULL, &hidden), 4);
    ck_assert_uint_eq(out[0].parent, tg_calltree_root(1));
    ck_assert_uint_eq(out[0].total_time, 50);
    ck_assert_uint_eq(out[1].method, SLEEP);
    ck_assert_uint_eq(out[1].parent, 0);
    ck_assert_uint_eq(out[2].method, C);
    ck_assert_uint_eq(out[2].parent, 0);
    ck_assert_uint_eq(out[3].method, INNER);
    ck_assert_uint_eq(out[3].parent, 1);
    ck_assert_uint_eq(hidden, 0);
}
END_TEST

START_TEST(test_hidden_method_goes_with_its_subtree_and_its_time)
{
    tg_calltree_node out[COUNT];
    uint64_t hidden = 0;
    bool hide[METHODS] = {false};
    hide[SLEEP] = true;
    ck_assert_uint_eq(tg_calltree_filter(fixed, NULL, COUNT, NULL, 2, hide, METHODS, out, NULL, &hidden), 4);
    ck_assert_uint_eq(hidden, 80);   /* 60 + 20, the INNER under sleep included */
    ck_assert_uint_eq(out[0].method, A);
    ck_assert_uint_eq(out[0].total_time, 40);   /* 100 - 60 = self 10 + B 30 */
    ck_assert_uint_eq(out[0].self_time, 10);
    ck_assert_uint_eq(out[1].method, B);
    ck_assert_uint_eq(out[1].parent, 0);
    ck_assert_uint_eq(out[2].method, A);
    ck_assert_uint_eq(out[2].total_time, 30);   /* 50 - 20 = self 20 + C 10 */
    ck_assert_uint_eq(out[3].method, C);
    ck_assert_uint_eq(out[3].parent, 2);
}
END_TEST

START_TEST(test_time_left_out_climbs_to_every_ancestor)
{
    /* A -> B -> sleep (7) -> INNER (2): A and B both lose 7. */
    tg_calltree_node chain[] = {
        NODE(tg_calltree_root(0), A, 1, 20, 5),
        NODE(0, B, 1, 15, 8),
        NODE(1, SLEEP, 1, 7, 5),
        NODE(2, INNER, 1, 2, 2),
    };
    tg_calltree_node out[4];
    uint64_t hidden = 0;
    bool hide[METHODS] = {false};
    hide[SLEEP] = true;
    ck_assert_uint_eq(tg_calltree_filter(chain, NULL, 4, NULL, 1, hide, METHODS, out, NULL, &hidden), 2);
    ck_assert_uint_eq(out[0].total_time, 13);
    ck_assert_uint_eq(out[1].total_time, 8);
    ck_assert_uint_eq(hidden, 7);
}
END_TEST

START_TEST(test_hidden_time_counts_only_chosen_threads)
{
    tg_calltree_node out[COUNT];
    uint64_t hidden = 0;
    bool hide[METHODS] = {false};
    hide[SLEEP] = true;
    const bool threads[] = {true, false};
    ck_assert_uint_eq(tg_calltree_filter(fixed, NULL, COUNT, threads, 2, hide, METHODS, out, NULL, &hidden), 2);
    ck_assert_uint_eq(hidden, 60);
}
END_TEST

START_TEST(test_allocations_go_with_their_nodes)
{
    tg_calltree_node out[COUNT];
    tg_calltree_allocations out_counts[COUNT];
    uint64_t hidden = 0;
    uint32_t kept = tg_calltree_filter(fixed, counts, COUNT, NULL, 2, NULL, METHODS, out, out_counts, &hidden);
    ck_assert_uint_eq(kept, COUNT);
    for (uint32_t i = 0; i < COUNT; i++) ASSERT_COUNTS(out_counts[i], counts[i].total, counts[i].self);

    const bool worker[] = {false, true};
    ck_assert_uint_eq(tg_calltree_filter(fixed, counts, COUNT, worker, 2, NULL, METHODS, out, out_counts, &hidden), 4);
    ASSERT_COUNTS(out_counts[0], 30, 2);    /* WORKER_A, renumbered like its node */
    ASSERT_COUNTS(out_counts[1], 20, 13);   /* its sleep */
    ASSERT_COUNTS(out_counts[2], 8, 8);     /* C */
    ASSERT_COUNTS(out_counts[3], 7, 7);     /* INNER */
}
END_TEST

START_TEST(test_hidden_allocations_leave_every_ancestor_s_total)
{
    tg_calltree_node out[COUNT];
    tg_calltree_allocations out_counts[COUNT];
    uint64_t hidden = 0;
    bool hide[METHODS] = {false};
    hide[SLEEP] = true;
    ck_assert_uint_eq(tg_calltree_filter(fixed, counts, COUNT, NULL, 2, hide, METHODS, out, out_counts, &hidden), 4);
    ck_assert_uint_eq(out[0].method, A);
    ASSERT_COUNTS(out_counts[0], 30, 5);   /* 70 - 40 = self 5 + B 25 */
    ASSERT_COUNTS(out_counts[1], 25, 25);
    ck_assert_uint_eq(out[2].method, A);
    ASSERT_COUNTS(out_counts[2], 10, 2);   /* 30 - 20 (the INNER under sleep included) = self 2 + C 8 */
    ASSERT_COUNTS(out_counts[3], 8, 8);
    ck_assert_uint_eq(hidden, 80);         /* time as without counts */

    /* Deeper: A -> B -> sleep -> INNER: A and B both lose sleep's 6. */
    tg_calltree_node chain[] = {
        NODE(tg_calltree_root(0), A, 1, 20, 5),
        NODE(0, B, 1, 15, 8),
        NODE(1, SLEEP, 1, 7, 5),
        NODE(2, INNER, 1, 2, 2),
    };
    const tg_calltree_allocations chain_counts[] = {{11, 1}, {10, 4}, {6, 2}, {4, 4}};
    ck_assert_uint_eq(tg_calltree_filter(chain, chain_counts, 4, NULL, 1, hide, METHODS, out, out_counts, &hidden), 2);
    ASSERT_COUNTS(out_counts[0], 5, 1);
    ASSERT_COUNTS(out_counts[1], 4, 4);
}
END_TEST

START_TEST(test_malformed_trees_are_refused)
{
    tg_calltree_node out[COUNT];
    uint64_t hidden = 0;
    tg_calltree_node bad[2] = {NODE(1, A, 1, 1, 1), NODE(tg_calltree_root(0), A, 1, 1, 1)};
    ck_assert_uint_eq(tg_calltree_filter(bad, NULL, 2, NULL, 1, NULL, METHODS, out, NULL, &hidden), UINT32_MAX);
    bad[0].parent = tg_calltree_root(3);
    ck_assert_uint_eq(tg_calltree_filter(bad, NULL, 2, NULL, 1, NULL, METHODS, out, NULL, &hidden), UINT32_MAX);
    bad[0].parent = tg_calltree_root(0);
    bad[1].method = METHODS;
    ck_assert_uint_eq(tg_calltree_filter(bad, NULL, 2, NULL, 1, NULL, METHODS, out, NULL, &hidden), UINT32_MAX);
    ck_assert_uint_eq(tg_calltree_filter(bad, NULL, 0, NULL, 1, NULL, METHODS, out, NULL, &hidden), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("calltree_filter");
    TCase *tc = tcase_create("filter");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_everything_kept_without_choices);
    tcase_add_test(tc, test_one_thread_keeps_its_paths_renumbered);
    tcase_add_test(tc, test_hidden_method_goes_with_its_subtree_and_its_time);
    tcase_add_test(tc, test_time_left_out_climbs_to_every_ancestor);
    tcase_add_test(tc, test_hidden_time_counts_only_chosen_threads);
    tcase_add_test(tc, test_allocations_go_with_their_nodes);
    tcase_add_test(tc, test_hidden_allocations_leave_every_ancestor_s_total);
    tcase_add_test(tc, test_malformed_trees_are_refused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

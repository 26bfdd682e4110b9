/*
 * test_stacks.c - what every stack writer shares (tg_stacks.c, tg_stacks_writer.h):
 * chunked writes and a failing write, malformed trees refused, an empty
 * tree's empty outputs. Each writer's own output: test_stacks_<format>.c.
 */
#include "stacks_checks.h"

START_TEST(big_outputs_come_in_bounded_chunks)
{
    uint32_t n = 20000;
    tg_calltree_node *nodes = calloc(n, sizeof *nodes);
    for (uint32_t i = 0; i < n; i++) nodes[i] = (tg_calltree_node){i ? 0 : ROOT(0), i ? 1 : 0, 1, 5, 5};
    tg_stacks_input in = input(nodes, n, 1);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_uint_gt(s.len, 4 * TG_STACKS_CHUNK);
    ck_assert_uint_le(s.largest, TG_STACKS_CHUNK);
    free(s.data);

    sink failing = {.fail_after = 2};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &failing), TG_STACKS_WRITE_FAILED);
    sink failing_pprof = {.fail_after = 1};
    ck_assert_int_eq(tg_stacks_write_pprof(&in, collect, &failing_pprof), TG_STACKS_WRITE_FAILED);
    sink failing_firefox = {.fail_after = 1};
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &failing_firefox), TG_STACKS_WRITE_FAILED);
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    ck_assert_uint_gt(s.len, 4 * TG_STACKS_CHUNK);
    ck_assert_uint_le(s.largest, TG_STACKS_CHUNK);
    free(s.data);
    free(failing.data);
    free(failing_pprof.data);
    free(failing_firefox.data);
    free(nodes);
}
END_TEST

START_TEST(malformed_trees_are_refused)
{
    tg_calltree_node bad_parent[] = {{ROOT(0), 0, 1, 1, 1}, {5, 1, 1, 1, 1}};
    tg_calltree_node bad_method[] = {{ROOT(0), 9, 1, 1, 1}};
    tg_calltree_node bad_thread[] = {{ROOT(7), 0, 1, 1, 1}};
    tg_calltree_node self_parent[] = {{0, 0, 1, 1, 1}};
    const tg_calltree_node *trees[] = {bad_parent, bad_method, bad_thread, self_parent};
    uint32_t counts[] = {2, 1, 1, 1};
    for (size_t i = 0; i < 4; i++) {
        tg_stacks_input in = input(trees[i], counts[i], 2);
        sink s = {0};
        ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_BAD_TREE);
        ck_assert_int_eq(tg_stacks_write_pprof(&in, collect, &s), TG_STACKS_BAD_TREE);
        ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_BAD_TREE);
        ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_BAD_TREE);
        ck_assert_uint_eq(s.len, 0);
    }
    ck_assert_str_eq(tg_stacks_status_message(TG_STACKS_WRITE_FAILED), "the output could not be written");
}
END_TEST

START_TEST(an_empty_tree_writes_empty_outputs)
{
    tg_stacks_input in = input(NULL, 0, 1);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_uint_eq(s.len, 0);
    ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"profiles\":[]}"));
    free(s.data);
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"libs\":[],\"threads\":[]}\n"));
    free(s.data);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("stacks");
    TCase *tc = tcase_create("outputs");
    tcase_add_test(tc, big_outputs_come_in_bounded_chunks);
    tcase_add_test(tc, malformed_trees_are_refused);
    tcase_add_test(tc, an_empty_tree_writes_empty_outputs);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

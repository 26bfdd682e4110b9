/*
 * test_stacks_folded.c - folded stacks: exact lines (each written when its path is left, so
 * children first), threads kept apart, and the depth limit.
 */
#include "stacks_checks.h"

START_TEST(folded_lines_keep_threads_apart)
{
    tg_stacks_input in = input(tree, 6, 2);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_str_eq(s.data,
                     "thread: main;Object#main;Object#work;Integer#times 40\n"
                     "thread: main;Object#main;Object#work 20\n"
                     "thread: main;Object#main;A#x:y  30\n"
                     "thread: main;Object#main 10\n"
                     "thread: worker;Object#work;Integer#times 45\n"
                     "thread: worker;Object#work 5\n");
    free(s.data);
}
END_TEST

START_TEST(one_thread_has_no_thread_frame)
{
    tg_stacks_input in = input(tree, 3, 2);   /* only main's first path */
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_str_eq(s.data, "Object#main;Object#work;Integer#times 40\nObject#main;Object#work 20\nObject#main 10\n");
    free(s.data);
}
END_TEST

START_TEST(deep_paths_stop_at_the_limit_and_keep_their_time)
{
    tg_calltree_node *nodes = chain(10);
    tg_stacks_input in = input(nodes, 10, 1);
    in.max_depth = 3;
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_str_eq(s.data, "Object#main;Object#work;Object#main 8\nObject#main;Object#work 1\nObject#main 1\n");
    free(s.data);

    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_OK);
    /* The bottom two frames open; each deeper node is its self time alone
     * under them, as a sample that keeps its bottom two frames and its leaf. */
    ck_assert_ptr_nonnull(strstr(s.data, "\"events\":["
                                         "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,\"at\":1},"
                                         "{\"type\":\"O\",\"frame\":0,\"at\":2},{\"type\":\"C\",\"frame\":0,\"at\":3},"
                                         "{\"type\":\"O\",\"frame\":1,\"at\":3},{\"type\":\"C\",\"frame\":1,\"at\":4},"
                                         "{\"type\":\"O\",\"frame\":0,\"at\":4},{\"type\":\"C\",\"frame\":0,\"at\":5},"));
    ck_assert_ptr_nonnull(strstr(s.data, "{\"type\":\"O\",\"frame\":1,\"at\":9},{\"type\":\"C\",\"frame\":1,\"at\":10},"
                                         "{\"type\":\"C\",\"frame\":1,\"at\":10},{\"type\":\"C\",\"frame\":0,\"at\":10}],"
                                         "\"endValue\":10}]}\n"));
    free(s.data);
    free(nodes);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("stacks_folded");
    TCase *tc = tcase_create("outputs");
    tcase_add_test(tc, folded_lines_keep_threads_apart);
    tcase_add_test(tc, one_thread_has_no_thread_frame);
    tcase_add_test(tc, deep_paths_stop_at_the_limit_and_keep_their_time);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

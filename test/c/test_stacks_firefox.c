/*
 * test_stacks_firefox.c - the Firefox Profiler's tables.
 */
#include "stacks_checks.h"

START_TEST(firefox_has_a_thread_per_thread_with_tracing_ms_weights)
{
    tg_stacks_input in = input(tree, 6, 2);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    const char *expected[] = {
        "{\"meta\":{\"version\":27,\"preprocessedProfileVersion\":47,",
        "\"product\":\"app.rb (tracegraph, wall clock)\",\"importedFrom\":\"tracegraph test\",",
        "\"markerSchema\":[]",
        /* main: a stack per node in depth-first order, its caller's stack as prefix. */
        "{\"name\":\"main\",",
        "\"isMainThread\":true,\"pid\":\"0\",\"tid\":0,",
        "\"samples\":{\"weightType\":\"tracing-ms\",\"stack\":[0,1,2,3],\"time\":[0,0.00001,0.00003,0.00007],"
        "\"weight\":[0.00001,0.00002,0.00004,0.00003],\"length\":4}",
        "\"stackTable\":{\"frame\":[0,1,2,3],\"prefix\":[null,0,1,0],\"category\":[1,1,2,2],\"subcategory\":[0,0,0,0],"
        "\"length\":4}",
        "\"func\":[0,1,2,3],",
        "\"line\":[1,5,null,null],",
        "\"funcTable\":{\"name\":[0,2,4,6],\"isJS\":[true,true,false,false],",
        "\"fileName\":[1,3,null,null],\"lineNumber\":[1,5,null,null],",
        "\"stringArray\":[\"Object#main\",\"app.rb\",\"Object#work\",\"app.rb\",\"Integer#times\",\"\",\"A#x;y\\u000a\",\"\"]}",
        /* worker: its own tables, with only the methods it ran. */
        "{\"name\":\"worker\",",
        "\"isMainThread\":false,\"pid\":\"0\",\"tid\":1,",
        "\"samples\":{\"weightType\":\"tracing-ms\",\"stack\":[0,1],\"time\":[0,0.000005],\"weight\":[0.000005,0.000045],"
        "\"length\":2}",
        "\"stackTable\":{\"frame\":[0,1],\"prefix\":[null,0],",
        "\"stringArray\":[\"Object#work\",\"app.rb\",\"Integer#times\",\"\"]}]}\n",
    };
    const char *at = s.data;
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        const char *found = strstr(at, expected[i]);
        ck_assert_msg(found, "missing, in order: %s", expected[i]);
        at = found + strlen(expected[i]);
    }
    ck_assert_str_eq(at, "");
    free(s.data);

    /* The cap's folding and an incomplete profile are said in the product. */
    in.folded_calls = 12;
    in.complete = false;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"product\":\"app.rb (tracegraph, wall clock; 12 calls past the call tree's "
                                         "cap folded; incomplete: the profiler ran out of memory)\","));
    free(s.data);
}
END_TEST

START_TEST(firefox_weights_are_exact_milliseconds_and_paths_have_no_depth_limit)
{
    tg_calltree_node *nodes = chain(3000);
    nodes[2999].self_time = 1234567891;   /* 1234.567891 ms */
    nodes[0].self_time = 2000000;         /* 2 ms */
    tg_stacks_input in = input(nodes, 3000, 1);
    in.max_depth = 3;
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"weight\":[2,0.000001,"));
    ck_assert_ptr_nonnull(strstr(s.data, ",1234.567891],\"length\":3000}"));
    ck_assert_ptr_nonnull(strstr(s.data, ",2997,2998],\"category\":["));   /* the last prefixes */
    ck_assert_ptr_nonnull(strstr(s.data, "\"func\":[0,1],"));             /* two methods, two funcs */
    free(s.data);
    free(nodes);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("stacks_firefox");
    TCase *tc = tcase_create("outputs");
    tcase_add_test(tc, firefox_has_a_thread_per_thread_with_tracing_ms_weights);
    tcase_add_test(tc, firefox_weights_are_exact_milliseconds_and_paths_have_no_depth_limit);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

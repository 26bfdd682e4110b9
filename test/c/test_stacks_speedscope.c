/*
 * test_stacks_speedscope.c - speedscope's evented JSON, exact.
 */
#include "stacks_checks.h"

START_TEST(speedscope_has_shared_frames_and_a_profile_per_thread)
{
    tg_stacks_input in = input(tree, 6, 2);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_OK);
    ck_assert_str_eq(
        s.data,
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"tracegraph test\","
        "\"name\":\"app.rb\",\"activeProfileIndex\":0,\"shared\":{\"frames\":["
        "{\"name\":\"Object#main\",\"file\":\"app.rb\",\"line\":1},{\"name\":\"Object#work\",\"file\":\"app.rb\",\"line\":5},"
        "{\"name\":\"Integer#times\"},{\"name\":\"A#x;y\\u000a\"}]},\"profiles\":["
        /* Each node opens, its self time passes, its children follow, it closes. */
        "{\"type\":\"evented\",\"name\":\"main\",\"unit\":\"nanoseconds\",\"startValue\":0,\"events\":["
        "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,\"at\":10},"
        "{\"type\":\"O\",\"frame\":2,\"at\":30},{\"type\":\"C\",\"frame\":2,\"at\":70},"
        "{\"type\":\"C\",\"frame\":1,\"at\":70},{\"type\":\"O\",\"frame\":3,\"at\":70},"
        "{\"type\":\"C\",\"frame\":3,\"at\":100},{\"type\":\"C\",\"frame\":0,\"at\":100}],\"endValue\":100},"
        "{\"type\":\"evented\",\"name\":\"worker\",\"unit\":\"nanoseconds\",\"startValue\":0,\"events\":["
        "{\"type\":\"O\",\"frame\":1,\"at\":0},{\"type\":\"O\",\"frame\":2,\"at\":5},"
        "{\"type\":\"C\",\"frame\":2,\"at\":50},{\"type\":\"C\",\"frame\":1,\"at\":50}],\"endValue\":50}]}\n");
    free(s.data);

    /* The cap's folding is said in the name. */
    in.folded_calls = 12;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"name\":\"app.rb (12 calls past the call tree's cap folded)\","));
    free(s.data);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("stacks_speedscope");
    TCase *tc = tcase_create("outputs");
    tcase_add_test(tc, speedscope_has_shared_frames_and_a_profile_per_thread);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* test_format.c - exact strings for times, percentages and counts. */
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_format.h"

#define US " \xC2\xB5s"

static void check_ns(uint64_t ns, const char *want)
{
    char buf[TG_FORMAT_SIZE];
    ck_assert_str_eq(tg_format_ns(buf, sizeof buf, ns), want);
}

static void check_pct(uint64_t part, uint64_t whole, const char *want)
{
    char buf[TG_FORMAT_SIZE];
    ck_assert_str_eq(tg_format_percent(buf, sizeof buf, part, whole), want);
}

static void check_count(uint64_t n, const char *want)
{
    char buf[TG_FORMAT_SIZE];
    ck_assert_str_eq(tg_format_count(buf, sizeof buf, n), want);
}

START_TEST(nanoseconds_stay_integer)
{
    check_ns(0, "0 ns");
    check_ns(1, "1 ns");
    check_ns(812, "812 ns");
    check_ns(999, "999 ns");
}
END_TEST

START_TEST(three_significant_digits)
{
    check_ns(1000, "1.00" US);
    check_ns(4100, "4.10" US);
    check_ns(4104, "4.10" US);
    check_ns(4105, "4.11" US);       /* half up */
    check_ns(12345, "12.3" US);
    check_ns(123456, "123" US);
    check_ns(12300000, "12.3 ms");
    check_ns(20100000, "20.1 ms");
    check_ns(1250000000, "1.25 s");
    check_ns(60000000000ull, "60.0 s");
    check_ns(999000000000ull, "999 s");
}
END_TEST

START_TEST(rounding_carries_into_next_precision_or_unit)
{
    check_ns(9995, "10.0" US);
    check_ns(99950, "100" US);
    check_ns(999499, "999" US);
    check_ns(999500, "1.00 ms");
    check_ns(999999, "1.00 ms");
    check_ns(999999999, "1.00 s");
}
END_TEST

START_TEST(seconds_never_switch_unit)
{
    check_ns(1234000000000ull, "1234 s");
    check_ns(UINT64_MAX, "18446744074 s");
}
END_TEST

/* The table every duration format is tested against (C, Ruby, JS). */
START_TEST(the_shared_table_of_durations)
{
    FILE *f = fopen(TG_FIXTURES_DIR "/durations.txt", "r");
    ck_assert_msg(f != NULL, "cannot open " TG_FIXTURES_DIR "/durations.txt");
    char line[128];
    int cases = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        ck_assert_msg(tab != NULL, "no tab in: %s", line);
        *tab = '\0';
        int64_t ns = strtoll(line, NULL, 10);
        char buf[TG_FORMAT_SIZE];
        ck_assert_str_eq(tg_format_signed_ns(buf, sizeof buf, ns), tab + 1);
        if (ns >= 0) ck_assert_str_eq(tg_format_ns(buf, sizeof buf, (uint64_t)ns), tab + 1);
        cases++;
    }
    fclose(f);
    ck_assert_int_ge(cases, 20);
}
END_TEST

START_TEST(the_most_negative_duration)
{
    char buf[TG_FORMAT_SIZE];
    ck_assert_str_eq(tg_format_signed_ns(buf, sizeof buf, INT64_MIN), "-9223372037 s");
}
END_TEST

START_TEST(percentages)
{
    check_pct(0, 100, "0.00%");
    check_pct(4, 10000, "0.04%");
    check_pct(41, 1000, "4.10%");
    check_pct(123, 1000, "12.3%");
    check_pct(6, 10, "60.0%");
    check_pct(1, 1, "100.0%");
    check_pct(9996, 100000, "10.0%");   /* 9.996% rounds up into the 1-decimal form */
    check_pct(1, 3, "33.3%");
    check_pct(2, 3, "66.7%");
    check_pct(5, 0, "0.00%");           /* no total: nothing to divide by */
    check_pct(UINT64_MAX, UINT64_MAX, "100.0%");
}
END_TEST

START_TEST(counts)
{
    check_count(0, "0");
    check_count(1, "1");
    check_count(999, "999");
    check_count(1000, "1,000");
    check_count(15000, "15,000");
    check_count(1234567, "1,234,567");
    check_count(UINT64_MAX, "18,446,744,073,709,551,615");
}
END_TEST

START_TEST(small_destination_is_truncated_not_overrun)
{
    char buf[4];
    ck_assert_str_eq(tg_format_count(buf, sizeof buf, 1234567), "1,2");
    ck_assert_str_eq(tg_format_ns(buf, sizeof buf, 812), "812");
}
END_TEST

static Suite *format_suite(void)
{
    Suite *s = suite_create("format");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, nanoseconds_stay_integer);
    tcase_add_test(tc, three_significant_digits);
    tcase_add_test(tc, rounding_carries_into_next_precision_or_unit);
    tcase_add_test(tc, seconds_never_switch_unit);
    tcase_add_test(tc, the_shared_table_of_durations);
    tcase_add_test(tc, the_most_negative_duration);
    tcase_add_test(tc, percentages);
    tcase_add_test(tc, counts);
    tcase_add_test(tc, small_destination_is_truncated_not_overrun);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(format_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

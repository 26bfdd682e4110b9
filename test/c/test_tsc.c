/*
 * test_tsc.c - the TSC as a wall clock: when it is trusted, the fixed-point
 * conversion, and (where this machine allows it) agreement with
 * CLOCK_MONOTONIC.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tg_clock.h"
#include "tg_tsc.h"

/* Writes `text` to a fresh temporary file and returns its path. */
static const char *clocksource_file(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/tg_test_clocksource.XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

START_TEST(trusted_only_when_the_kernel_keeps_time_with_it)
{
    const char *tsc = clocksource_file("tsc\n");
#if defined(__x86_64__)
    ck_assert(tg_tsc_usable(tsc));
#else
    ck_assert(!tg_tsc_usable(tsc));
#endif
    unlink(tsc);
    const char *kvm = clocksource_file("kvm-clock\n");
    ck_assert(!tg_tsc_usable(kvm));
    unlink(kvm);
    const char *prefix = clocksource_file("tsc-early\n");
    ck_assert(!tg_tsc_usable(prefix));
    unlink(prefix);
    ck_assert(!tg_tsc_usable("/nonexistent/current_clocksource"));
}
END_TEST

START_TEST(ticks_convert_with_the_fixed_point_scale)
{
    tg_tsc t = {.mult = 1ull << 31};   /* 0.5 ns per tick */
    ck_assert_uint_eq(tg_tsc_ticks_to_ns(&t, 0), 0);
    ck_assert_uint_eq(tg_tsc_ticks_to_ns(&t, 1000), 500);
    /* No overflow for days of ticks: the product needs more than 64 bits. */
    ck_assert_uint_eq(tg_tsc_ticks_to_ns(&t, 1ull << 50), 1ull << 49);
    t.mult = 10ull << 32;   /* 100 MHz, the slowest rate accepted */
    ck_assert_uint_eq(tg_tsc_ticks_to_ns(&t, 1ull << 40), 10ull << 40);
    t.mult = 1653283770ull;   /* ~2.598 GHz: truncates, never rounds up */
    ck_assert_uint_eq(tg_tsc_ticks_to_ns(&t, 2598000000ull), 1000061452ull);
}
END_TEST

/* Busy for `ns` of CLOCK_MONOTONIC. */
static void spin(uint64_t ns)
{
    uint64_t start = tg_clock_read(CLOCK_MONOTONIC);
    while (tg_clock_read(CLOCK_MONOTONIC) - start < ns) {
    }
}

/* Both clocks at (nearly) one moment: the TSC clock is read on both sides
 * of CLOCK_MONOTONIC and the tightest of a few tries is kept, so a
 * preemption or (under valgrind) a code translation between the two
 * readings does not count as disagreement. */
static void read_both(const tg_tsc *t, uint64_t *tsc, uint64_t *mono)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t before = tg_tsc_now(t), m = tg_clock_read(CLOCK_MONOTONIC), after = tg_tsc_now(t);
        if (after - before < best) {
            best = after - before;
            *tsc = before + (after - before) / 2;
            *mono = m;
        }
    }
}

START_TEST(calibrated_clock_keeps_step_with_clock_monotonic)
{
    tg_tsc t;
    if (!tg_tsc_calibrate(&t, 2000000)) return;   /* this machine keeps time otherwise */
    for (int round = 0; round < 2; round++) {
        uint64_t tsc0, mono0, tsc1, mono1;
        read_both(&t, &tsc0, &mono0);
        spin(20000000);
        read_both(&t, &tsc1, &mono1);
        /* 20 ms, read both ways: within 0.5% plus a preemption's worth. */
        double tsc_span = (double)(tsc1 - tsc0), mono_span = (double)(mono1 - mono0);
        ck_assert_msg(tsc_span > mono_span * 0.995 - 200000 && tsc_span < mono_span * 1.005 + 200000,
                      "TSC says %.0f ns, CLOCK_MONOTONIC %.0f ns", tsc_span, mono_span);
        /* On CLOCK_MONOTONIC's time line, not merely at its rate. */
        ck_assert_msg(tsc1 > mono1 - 1000000 && tsc1 < mono1 + 1000000, "TSC %llu vs monotonic %llu",
                      (unsigned long long)tsc1, (unsigned long long)mono1);
        tg_tsc_refine(&t);   /* the second round runs on the refined scale */
    }
}
END_TEST

static Suite *tsc_suite(void)
{
    Suite *s = suite_create("tsc");
    TCase *tc = tcase_create("tsc");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, trusted_only_when_the_kernel_keeps_time_with_it);
    tcase_add_test(tc, ticks_convert_with_the_fixed_point_scale);
    tcase_add_test(tc, calibrated_clock_keeps_step_with_clock_monotonic);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(tsc_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

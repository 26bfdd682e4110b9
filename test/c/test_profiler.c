/*
 * Unit tests of the aggregation core (tg_profiler) with synthetic event
 * sequences and a fake clock: every expected number is exact.
 */
#include <check.h>
#include <stdlib.h>

#include "tg_profiler.h"

static tg_profiler p;
static tg_context ctx;
static uint32_t A, B, C;

static void setup(void)
{
    ck_assert(tg_profiler_init(&p));
    uint32_t thread = tg_profiler_add_thread(&p);
    tg_context_init(&ctx, thread);
    tg_profiler_activate(&p, &ctx);
    A = tg_profiler_method(&p, 100, 1);
    B = tg_profiler_method(&p, 100, 2);
    C = tg_profiler_method(&p, 200, 1);
}

static void teardown(void)
{
    tg_context_free(&ctx);
    tg_profiler_free(&p);
}

#define CALL(m, t) tg_profiler_call(&p, &ctx, (m), 0, (t))
#define RET(m, t) tg_profiler_return(&p, &ctx, (m), 0, (t))

static const tg_edge_stats *edge(uint32_t caller, uint32_t callee)
{
    uint32_t e = tg_profiler_find_edge(&p, caller, callee);
    ck_assert_uint_ne(e, TG_NONE);
    return &p.edges[e];
}

static uint64_t self_sum(void)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < p.method_count; i++) sum += p.methods[i].self_time;
    return sum;
}

START_TEST(test_method_keys_are_stable)
{
    ck_assert_uint_eq(A, 0);
    ck_assert_uint_eq(B, 1);
    ck_assert_uint_eq(C, 2);
    ck_assert_uint_eq(tg_profiler_method(&p, 100, 2), B);
    ck_assert_uint_eq(p.method_count, 3);
}
END_TEST

START_TEST(test_nesting)
{
    /* A [0,100] calls B [10,30] and C [40,90]; C calls B [50,60]. */
    CALL(A, 0);
    CALL(B, 10); RET(B, 30);
    CALL(C, 40);
    CALL(B, 50); RET(B, 60);
    RET(C, 90);
    RET(A, 100);

    ck_assert_uint_eq(p.methods[A].calls, 1);
    ck_assert_uint_eq(p.methods[A].total_time, 100);
    ck_assert_uint_eq(p.methods[A].self_time, 30);
    ck_assert_uint_eq(p.methods[B].calls, 2);
    ck_assert_uint_eq(p.methods[B].total_time, 30);
    ck_assert_uint_eq(p.methods[B].self_time, 30);
    ck_assert_uint_eq(p.methods[C].total_time, 50);
    ck_assert_uint_eq(p.methods[C].self_time, 40);

    ck_assert_uint_eq(p.edge_count, 3);
    ck_assert_uint_eq(edge(A, B)->calls, 1);
    ck_assert_uint_eq(edge(A, B)->total_time, 20);
    ck_assert_uint_eq(edge(C, B)->total_time, 10);
    ck_assert_uint_eq(edge(C, B)->self_time, 10);
    ck_assert_uint_eq(edge(A, C)->total_time, 50);
    ck_assert_uint_eq(edge(A, C)->self_time, 40);
    ck_assert_uint_eq(p.thread_time[0], 100);
    ck_assert_uint_eq(self_sum(), 100);
}
END_TEST

START_TEST(test_loop_reuses_edge)
{
    /* A calls B 1000 times and C between: the one-entry edge cache must
     * still find the right edge each time. */
    CALL(A, 0);
    uint64_t t = 0;
    for (int i = 0; i < 1000; i++) {
        CALL(B, ++t); RET(B, ++t);
        if (i % 3 == 0) { CALL(C, ++t); RET(C, ++t); }
    }
    RET(A, ++t);
    ck_assert_uint_eq(edge(A, B)->calls, 1000);
    ck_assert_uint_eq(edge(A, C)->calls, 334);
    ck_assert_uint_eq(p.methods[B].total_time, 1000);
    ck_assert_uint_eq(p.methods[A].total_time, t);
    ck_assert_uint_eq(self_sum(), t);
}
END_TEST

START_TEST(test_direct_recursion_counts_each_moment_once)
{
    /* A recurses 30 deep; each level adds 1 ns on the way in and out. */
    uint64_t t = 0;
    for (int i = 0; i < 30; i++) CALL(A, t++);
    for (int i = 0; i < 30; i++) RET(A, t++);

    ck_assert_uint_eq(p.methods[A].calls, 30);
    ck_assert_uint_eq(p.methods[A].total_time, 59);
    ck_assert_uint_eq(p.methods[A].self_time, 59);
    ck_assert_uint_eq(edge(A, A)->calls, 29);
    /* The A->A edge is outermost at depth 2: from t=1 to t=58. */
    ck_assert_uint_eq(edge(A, A)->total_time, 57);
    ck_assert_uint_eq(p.methods[A].active, 0);
    ck_assert_uint_eq(edge(A, A)->active, 0);
}
END_TEST

START_TEST(test_mutual_recursion)
{
    /* A0 B10 A20 B30 ret B40 ret A50 ret B60 ret A70 */
    CALL(A, 0); CALL(B, 10); CALL(A, 20); CALL(B, 30);
    RET(B, 40); RET(A, 50); RET(B, 60); RET(A, 70);
    ck_assert_uint_eq(p.methods[A].calls, 2);
    ck_assert_uint_eq(p.methods[A].total_time, 70);
    ck_assert_uint_eq(p.methods[B].total_time, 50);
    ck_assert_uint_eq(p.methods[A].self_time, 20 + 20);
    ck_assert_uint_eq(p.methods[B].self_time, 20 + 10);
    ck_assert_uint_eq(edge(A, B)->calls, 2);
    ck_assert_uint_eq(edge(A, B)->total_time, 50);
    ck_assert_uint_eq(edge(B, A)->total_time, 30);
    ck_assert_uint_eq(self_sum(), 70);
}
END_TEST

START_TEST(test_unmatched_returns_are_ignored)
{
    /* Profiling started inside C and B: their returns match nothing. */
    RET(C, 5);
    CALL(A, 10); RET(A, 20);
    RET(B, 30);
    ck_assert_uint_eq(ctx.depth, 0);
    ck_assert_uint_eq(p.methods[A].total_time, 10);
    ck_assert_uint_eq(p.methods[B].calls, 0);
    ck_assert_uint_eq(p.methods[B].total_time, 0);
    ck_assert_uint_eq(self_sum(), 10);
}
END_TEST

START_TEST(test_return_below_top_closes_skipped_frames)
{
    /* A calls B calls C; C and B miss their returns (exception through C
     * code): A's return at 100 closes them at 100. */
    CALL(A, 0); CALL(B, 10); CALL(C, 20);
    RET(A, 100);
    ck_assert_uint_eq(ctx.depth, 0);
    ck_assert_uint_eq(p.methods[C].total_time, 80);
    ck_assert_uint_eq(p.methods[B].total_time, 90);
    ck_assert_uint_eq(p.methods[B].self_time, 10);
    ck_assert_uint_eq(p.methods[A].self_time, 10);
    ck_assert_uint_eq(self_sum(), 100);
}
END_TEST

START_TEST(test_return_of_unknown_method_keeps_stack)
{
    CALL(A, 0); CALL(B, 10);
    RET(C, 15);                 /* C is nowhere on the stack */
    ck_assert_uint_eq(ctx.depth, 2);
    RET(B, 20); RET(A, 30);
    ck_assert_uint_eq(p.methods[B].total_time, 10);
    ck_assert_uint_eq(p.methods[A].total_time, 30);
}
END_TEST

START_TEST(test_close_all_at_stop)
{
    CALL(A, 0); CALL(B, 10); CALL(B, 20);
    tg_profiler_close_all(&p, &ctx, 50);
    ck_assert_uint_eq(ctx.depth, 0);
    ck_assert_uint_eq(p.methods[A].total_time, 50);
    ck_assert_uint_eq(p.methods[A].self_time, 10);
    ck_assert_uint_eq(p.methods[B].total_time, 40);
    ck_assert_uint_eq(p.methods[B].calls, 2);
    ck_assert_uint_eq(self_sum(), 50);
}
END_TEST

START_TEST(test_suspended_context_is_not_charged)
{
    tg_context fiber;
    tg_context_init(&fiber, ctx.thread);

    CALL(A, 0);                       /* root calls A, which resumes a fiber */
    tg_context_suspend(&ctx, 10);
    tg_context_resume(&fiber, 10);
    tg_profiler_activate(&p, &fiber);
    tg_profiler_call(&p, &fiber, A, 0, 12);   /* A again, but in another stack */
    tg_profiler_call(&p, &fiber, B, 0, 15);
    tg_context_suspend(&fiber, 40);        /* Fiber.yield inside B */
    tg_context_resume(&ctx, 40);
    tg_profiler_activate(&p, &ctx);
    RET(A, 45);
    tg_profiler_close_all(&p, &fiber, 1000);  /* never resumed: closes at 40 */

    /* Root A: 0..10 and 40..45 = 15. Fiber A: 12..40 = 28, not nested in
     * root A's stack, so both count. Fiber B: 15..40 = 25. */
    ck_assert_uint_eq(p.methods[A].calls, 2);
    ck_assert_uint_eq(p.methods[A].total_time, 15 + 28);
    ck_assert_uint_eq(p.methods[B].total_time, 25);
    ck_assert_uint_eq(p.methods[A].self_time, 15 + 3);
    ck_assert_uint_eq(p.thread_time[ctx.thread], 15 + 28);
    ck_assert_uint_eq(self_sum(), 43);
    ck_assert_uint_eq(p.methods[A].active, 0);
    tg_context_free(&fiber);
}
END_TEST

START_TEST(test_interleaved_threads_keep_their_own_recursion)
{
    /* Two threads both inside A; thread 2's A is outermost in its stack. */
    uint32_t t2 = tg_profiler_add_thread(&p);
    tg_context other;
    tg_context_init(&other, t2);

    CALL(A, 0);
    tg_profiler_activate(&p, &other);
    tg_profiler_call(&p, &other, A, 0, 5);
    tg_profiler_call(&p, &other, A, 0, 6);
    tg_profiler_activate(&p, &ctx);
    RET(A, 10);
    tg_profiler_activate(&p, &other);
    tg_profiler_return(&p, &other, A, 0, 20);
    tg_profiler_return(&p, &other, A, 0, 25);

    ck_assert_uint_eq(p.methods[A].calls, 3);
    ck_assert_uint_eq(p.methods[A].total_time, 10 + 20);
    ck_assert_uint_eq(p.thread_time[0], 10);
    ck_assert_uint_eq(p.thread_time[t2], 20);
    tg_context_free(&other);
}
END_TEST

START_TEST(test_table_growth_to_100k_methods)
{
    CALL(A, 0);
    uint64_t t = 1;
    for (uint64_t i = 0; i < 100000; i++) {
        uint32_t m = tg_profiler_method(&p, 0x7f0000001000ull + i * 40, 7);
        ck_assert_uint_eq(m, 3 + i);
        CALL(m, t++);
        RET(m, t++);
    }
    RET(A, t);
    ck_assert_uint_eq(p.method_count, 100003);
    ck_assert_uint_eq(p.edge_count, 100000);
    for (uint64_t i = 0; i < 100000; i += 997) {
        uint32_t m = tg_profiler_method(&p, 0x7f0000001000ull + i * 40, 7);
        ck_assert_uint_eq(p.methods[m].calls, 1);
        ck_assert_uint_eq(p.methods[m].total_time, 1);
        ck_assert_uint_eq(edge(A, m)->calls, 1);
    }
    ck_assert_uint_eq(p.methods[A].self_time, 100001);
    ck_assert_uint_eq(self_sum(), t);
}
END_TEST

START_TEST(test_deep_stack_grows_and_shrinks)
{
    CALL(C, 0);
    for (uint64_t i = 1; i < 20000; i++) CALL(i % 2 ? A : B, i);
    ck_assert_uint_eq(ctx.depth, 20000);
    RET(B, 25000);   /* nearest B is just below the top A: closes two */
    ck_assert_uint_eq(ctx.depth, 19998);
    RET(C, 30000);   /* the bottom frame: closes everything above */
    ck_assert_uint_eq(ctx.depth, 0);
    ck_assert_uint_eq(p.methods[C].total_time, 30000);
    ck_assert_uint_eq(p.methods[A].active + p.methods[B].active, 0);
    ck_assert_uint_eq(self_sum(), 30000);
}
END_TEST

/* Positions: real frames at smaller numbers are deeper. */
#define CALL_AT(m, pos, t) tg_profiler_call(&p, &ctx, (m), (pos), (t))
#define RET_AT(m, pos, t) tg_profiler_return(&p, &ctx, (m), (pos), (t))

START_TEST(test_positions_close_frames_whose_returns_were_skipped)
{
    /* A at 1000 recurses into B at 900, 800, ...; a stack overflow unwinds
     * B's frames without return events, and A calls C at 900. */
    CALL_AT(A, 1000, 0);
    uint64_t t = 1;
    for (uint64_t pos = 900; pos > 100; pos -= 100) CALL_AT(B, pos, t++);
    ck_assert_uint_eq(ctx.depth, 9);
    CALL_AT(C, 900, 20);      /* closes every B at 20 before pushing C */
    ck_assert_uint_eq(ctx.depth, 2);
    RET_AT(C, 900, 25);
    RET_AT(A, 1000, 30);
    ck_assert_uint_eq(ctx.depth, 0);
    ck_assert_uint_eq(p.methods[B].calls, 8);
    ck_assert_uint_eq(p.methods[B].total_time, 19);
    ck_assert_uint_eq(edge(A, C)->calls, 1);
    ck_assert_uint_eq(tg_profiler_find_edge(&p, B, C), TG_NONE);
    ck_assert_uint_eq(p.methods[A].self_time, 30 - 19 - 5);
    ck_assert_uint_eq(self_sum(), 30);
}
END_TEST

START_TEST(test_positions_match_returns_exactly)
{
    /* A at 1000 calls C method B at 900; an exception unwinds B, whose
     * return the binding reports first from the slot below it (800). */
    CALL_AT(A, 1000, 0);
    CALL_AT(B, 900, 1);
    ck_assert(!RET_AT(B, 800, 2));   /* nothing in that slot: no change */
    ck_assert_uint_eq(ctx.depth, 2);
    ck_assert(RET_AT(B, 900, 3));    /* B's own slot */
    ck_assert_uint_eq(ctx.depth, 1);
    ck_assert(!RET_AT(C, 1000, 4));  /* not the method in that slot */
    ck_assert_uint_eq(ctx.depth, 1);
    ck_assert(!RET_AT(A, 1100, 5));  /* a caller from before the start: A is gone */
    ck_assert_uint_eq(ctx.depth, 0);
    ck_assert_uint_eq(p.methods[B].total_time, 2);
    ck_assert_uint_eq(p.methods[A].total_time, 5);
    ck_assert_uint_eq(self_sum(), 5);
}
END_TEST

START_TEST(test_positions_keep_c_frames_that_yield)
{
    /* A (at 1000) calls C method B, placed just below its caller (999);
     * B yields to a block of A at 800, which calls C at 799 then A at 700. */
    CALL_AT(A, 1000, 0);
    CALL_AT(B, 999, 1);
    CALL_AT(C, 799, 2); RET_AT(C, 799, 3);
    CALL_AT(A, 700, 4); RET_AT(A, 700, 5);
    RET_AT(B, 999, 6);
    RET_AT(A, 1000, 7);
    ck_assert_uint_eq(edge(B, C)->calls, 1);
    ck_assert_uint_eq(edge(B, A)->calls, 1);
    ck_assert_uint_eq(p.methods[B].total_time, 5);
    ck_assert_uint_eq(p.methods[A].total_time, 7);
}
END_TEST

START_TEST(test_positions_ignore_returns_of_frames_from_before_start)
{
    CALL_AT(A, 500, 0);
    RET_AT(A, 500, 10);
    RET_AT(A, 900, 20);       /* an A called before profiling started */
    ck_assert_uint_eq(p.methods[A].total_time, 10);
    CALL_AT(B, 500, 30);
    RET_AT(C, 1000, 40);      /* a caller from before start returns: B's frame is gone */
    ck_assert_uint_eq(ctx.depth, 0);
    ck_assert_uint_eq(p.methods[B].total_time, 10);
}
END_TEST

static Suite *profiler_suite(void)
{
    Suite *s = suite_create("profiler");
    TCase *tc = tcase_create("events");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_method_keys_are_stable);
    tcase_add_test(tc, test_nesting);
    tcase_add_test(tc, test_loop_reuses_edge);
    tcase_add_test(tc, test_direct_recursion_counts_each_moment_once);
    tcase_add_test(tc, test_mutual_recursion);
    tcase_add_test(tc, test_unmatched_returns_are_ignored);
    tcase_add_test(tc, test_return_below_top_closes_skipped_frames);
    tcase_add_test(tc, test_return_of_unknown_method_keeps_stack);
    tcase_add_test(tc, test_close_all_at_stop);
    tcase_add_test(tc, test_suspended_context_is_not_charged);
    tcase_add_test(tc, test_interleaved_threads_keep_their_own_recursion);
    tcase_add_test(tc, test_table_growth_to_100k_methods);
    tcase_add_test(tc, test_deep_stack_grows_and_shrinks);
    tcase_add_test(tc, test_positions_close_frames_whose_returns_were_skipped);
    tcase_add_test(tc, test_positions_match_returns_exactly);
    tcase_add_test(tc, test_positions_keep_c_frames_that_yield);
    tcase_add_test(tc, test_positions_ignore_returns_of_frames_from_before_start);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(profiler_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

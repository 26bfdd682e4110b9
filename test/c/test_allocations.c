/*
 * Allocation counts in the core (tg_profiler.count_allocations): frames
 * book the context's allocation count as they book time. The binding adds
 * to tg_context.allocations; here ALLOC(n) does. Every number is exact.
 */
#include <check.h>
#include <stdlib.h>

#include "tg_gc.h"
#include "tg_profiler.h"

static tg_profiler p;
static tg_context ctx, other;
static uint32_t A, B, C, L;   /* L is a "C method", pushed as a leaf */

static void setup(void)
{
    ck_assert(tg_profiler_init(&p));
    tg_profiler_count_allocations(&p);
    uint32_t thread = tg_profiler_add_thread(&p);
    tg_context_init(&ctx, thread);
    tg_context_init(&other, thread);
    tg_profiler_activate(&p, &ctx);
    A = tg_profiler_method(&p, 100, 1);
    B = tg_profiler_method(&p, 100, 2);
    C = tg_profiler_method(&p, 100, 3);
    L = tg_profiler_method(&p, 200, 1);
}

static void teardown(void)
{
    tg_context_free(&ctx);
    tg_context_free(&other);
    tg_profiler_free(&p);
}

/* Time plays no part here: every event is at time 0. */
#define CALL(m) tg_profiler_call(&p, &ctx, (m), 0, 0)
#define LEAF(m) tg_profiler_push_leaf(&p, &ctx, (m), 0, 0)
#define RET(m) tg_profiler_return(&p, &ctx, (m), 0, 0)
#define ALLOC(n) (ctx.allocations += (n))

/* The allocation counts of the edge caller -> callee. */
static const tg_allocation_stats *edge(uint32_t caller, uint32_t callee)
{
    uint32_t e = tg_profiler_find_edge(&p, caller, callee);
    ck_assert_uint_ne(e, TG_NONE);
    return &p.edge_allocations[e];
}

#define ASSERT_METHOD(m, total_, self_)                               \
    do {                                                              \
        ck_assert_uint_eq(p.method_allocations[m].total, (total_));   \
        ck_assert_uint_eq(p.method_allocations[m].self, (self_));     \
    } while (0)
#define ASSERT_EDGE(a, b, total_, self_)                              \
    do {                                                              \
        ck_assert_uint_eq(edge((a), (b))->total, (total_));           \
        ck_assert_uint_eq(edge((a), (b))->self, (self_));             \
    } while (0)

START_TEST(nesting)
{
    /* A allocates 1, calls B (3), allocates 2, calls C, which allocates 4
     * and calls B (5), and C allocates 6 more. */
    CALL(A);   ALLOC(1);
    CALL(B);   ALLOC(3);   RET(B);
    ALLOC(2);
    CALL(C);   ALLOC(4);
    CALL(B);   ALLOC(5);   RET(B);
    ALLOC(6);  RET(C);
    RET(A);
    ASSERT_METHOD(A, 21, 3);
    ASSERT_METHOD(B, 8, 8);
    ASSERT_METHOD(C, 15, 10);
    ASSERT_EDGE(A, B, 3, 3);
    ASSERT_EDGE(A, C, 15, 10);
    ASSERT_EDGE(C, B, 5, 5);
}
END_TEST

START_TEST(allocations_outside_frames_belong_to_no_method)
{
    ALLOC(7);
    CALL(A);   ALLOC(2);   RET(A);
    ALLOC(9);
    ASSERT_METHOD(A, 2, 2);
}
END_TEST

START_TEST(leaf_books_what_a_frame_would)
{
    CALL(A);
    LEAF(L);   ALLOC(3);   RET(L);
    LEAF(L);   RET(L);                 /* allocates nothing */
    LEAF(L);   ALLOC(4);   RET(L);
    ALLOC(1);
    RET(A);
    ck_assert_uint_eq(p.methods[L].calls, 3);
    ASSERT_METHOD(L, 7, 7);
    ASSERT_METHOD(A, 8, 1);
    ASSERT_EDGE(A, L, 7, 7);
}
END_TEST

START_TEST(leaf_that_calls_keeps_its_count_from_its_call)
{
    /* The leaf allocates 2 before it yields to B: settled into a frame,
     * it still owns them. */
    CALL(A);
    LEAF(L);   ALLOC(2);
    CALL(B);   ALLOC(5);   RET(B);
    ALLOC(1);  RET(L);
    RET(A);
    ASSERT_METHOD(L, 8, 3);
    ASSERT_METHOD(B, 5, 5);
    ASSERT_METHOD(A, 8, 0);
    ASSERT_EDGE(L, B, 5, 5);
}
END_TEST

START_TEST(recursion_counts_once_in_totals)
{
    /* A -> A -> A, each allocating 1 before the call and 10 after. */
    CALL(A);   ALLOC(1);
    CALL(A);   ALLOC(1);
    CALL(A);   ALLOC(1);   ALLOC(10);   RET(A);
    ALLOC(10); RET(A);
    ALLOC(10); RET(A);
    ASSERT_METHOD(A, 33, 33);
    /* The A->A edge: its outermost activation holds 22. */
    ASSERT_EDGE(A, A, 22, 22);
}
END_TEST

START_TEST(recursive_leaf_counts_once)
{
    /* L yields to B, which calls L again as a leaf. */
    CALL(A);
    LEAF(L);   ALLOC(1);
    CALL(B);   LEAF(L);   ALLOC(4);   RET(L);   RET(B);
    RET(L);
    RET(A);
    ASSERT_METHOD(L, 5, 5);
    ASSERT_METHOD(B, 4, 0);
    ASSERT_METHOD(A, 5, 0);
}
END_TEST

START_TEST(each_context_counts_its_own)
{
    /* A fiber: what `other` allocates is not A's, which stays open on ctx. */
    CALL(A);   ALLOC(2);
    tg_profiler_activate(&p, &other);
    tg_profiler_call(&p, &other, B, 0, 0);
    other.allocations += 6;
    tg_profiler_return(&p, &other, B, 0, 0);
    tg_profiler_activate(&p, &ctx);
    ALLOC(1);  RET(A);
    ASSERT_METHOD(A, 3, 3);
    ASSERT_METHOD(B, 6, 6);
}
END_TEST

START_TEST(close_all_books_open_frames)
{
    CALL(A);   CALL(B);   LEAF(L);   ALLOC(5);
    tg_profiler_close_all(&p, &ctx, 0);
    ASSERT_METHOD(L, 5, 5);
    ASSERT_METHOD(B, 5, 0);
    ASSERT_METHOD(A, 5, 0);
}
END_TEST

START_TEST(gc_frames_own_no_allocations)
{
    /* Ruby allocates nothing inside the collector: a step between two
     * allocations of B's leaves them all B's. */
    uint32_t step = tg_profiler_method(&p, 0, TG_GC_NODE_STEP);
    uint32_t marking = tg_profiler_method(&p, 0, TG_GC_NODE_MARKING);
    tg_gc gc;
    tg_gc_init(&gc, step, marking, TG_NONE, TG_GC_IDLE);
    CALL(B);   ALLOC(2);
    tg_gc_event_at(&gc, &p, &ctx, TG_GC_ENTER, 0);
    tg_gc_event_at(&gc, &p, &ctx, TG_GC_START, 0);
    tg_gc_event_at(&gc, &p, &ctx, TG_GC_EXIT, 0);
    ALLOC(1);  RET(B);
    ck_assert_uint_eq(p.methods[step].calls, 1);
    ASSERT_METHOD(step, 0, 0);
    ASSERT_METHOD(B, 3, 3);
}
END_TEST

START_TEST(off_keeps_no_counts)
{
    tg_profiler off;
    ck_assert(tg_profiler_init(&off));
    tg_context c;
    tg_context_init(&c, tg_profiler_add_thread(&off));
    tg_profiler_activate(&off, &c);
    uint32_t a = tg_profiler_method(&off, 1, 1), l = tg_profiler_method(&off, 1, 2);
    tg_profiler_call(&off, &c, a, 0, 0);
    c.allocations += 2;
    tg_profiler_push_leaf(&off, &c, l, 0, 1);
    c.allocations += 3;
    tg_profiler_return(&off, &c, l, 0, 2);
    tg_profiler_return(&off, &c, a, 0, 3);
    ck_assert_ptr_null(off.method_allocations);
    ck_assert_ptr_null(off.edge_allocations);
    ck_assert_uint_eq(off.methods[a].total_time, 3);
    ck_assert_uint_eq(off.methods[l].calls, 1);
    tg_context_free(&c);
    tg_profiler_free(&off);
}
END_TEST

static Suite *allocations_suite(void)
{
    Suite *s = suite_create("allocations");
    TCase *tc = tcase_create("allocations");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, nesting);
    tcase_add_test(tc, allocations_outside_frames_belong_to_no_method);
    tcase_add_test(tc, leaf_books_what_a_frame_would);
    tcase_add_test(tc, leaf_that_calls_keeps_its_count_from_its_call);
    tcase_add_test(tc, recursion_counts_once_in_totals);
    tcase_add_test(tc, recursive_leaf_counts_once);
    tcase_add_test(tc, each_context_counts_its_own);
    tcase_add_test(tc, close_all_books_open_frames);
    tcase_add_test(tc, gc_frames_own_no_allocations);
    tcase_add_test(tc, off_keeps_no_counts);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(allocations_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

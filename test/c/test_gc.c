/*
 * Unit tests of garbage collection as frames (tg_gc): synthetic event
 * sequences in the orders Ruby sends them, with a fake clock.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tg_gc.h"

static tg_profiler p;
static tg_context ctx, other;
static tg_gc gc;
static uint32_t A, B, STEP, MARK, SWEEP;

static void reserve(tg_gc_phase phase)
{
    STEP = tg_profiler_method(&p, 0, TG_GC_NODE_STEP);
    MARK = tg_profiler_method(&p, 0, TG_GC_NODE_MARKING);
    SWEEP = tg_profiler_method(&p, 0, TG_GC_NODE_SWEEPING);
    tg_gc_init(&gc, STEP, MARK, SWEEP, phase);
}

static void setup(void)
{
    ck_assert(tg_profiler_init(&p));
    tg_context_init(&ctx, tg_profiler_add_thread(&p));
    tg_context_init(&other, tg_profiler_add_thread(&p));
    tg_profiler_activate(&p, &ctx);
    reserve(TG_GC_IDLE);
    A = tg_profiler_method(&p, 100, 1);
    B = tg_profiler_method(&p, 100, 2);
}

static void teardown(void)
{
    tg_context_free(&ctx);
    tg_context_free(&other);
    tg_profiler_free(&p);
}

#define EV(e, t) tg_gc_event_at(&gc, &p, &ctx, (e), (t))

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

START_TEST(test_names)
{
    ck_assert_str_eq(tg_gc_node_name(TG_GC_NODE_STEP), "(garbage collection)");
    ck_assert_str_eq(tg_gc_node_name(TG_GC_NODE_MARKING), "(garbage collection: marking)");
    ck_assert_str_eq(tg_gc_node_name(TG_GC_NODE_SWEEPING), "(garbage collection: sweeping)");
    ck_assert_ptr_null(tg_gc_node_name(0));
    ck_assert_ptr_null(tg_gc_node_name(4));
}
END_TEST

START_TEST(test_a_whole_collection_in_one_step)
{
    /* GC.start: A [0,40] runs a step [10,30] that marks [12,20] and sweeps [20,25]. */
    tg_profiler_call(&p, &ctx, A, 0, 0);
    EV(TG_GC_ENTER, 10);
    ck_assert(tg_gc_in_step(&gc));
    EV(TG_GC_START, 12);
    EV(TG_GC_END_MARK, 20);
    EV(TG_GC_END_SWEEP, 25);
    EV(TG_GC_EXIT, 30);
    ck_assert(!tg_gc_in_step(&gc));
    ck_assert_uint_eq(ctx.depth, 1);
    ck_assert(tg_profiler_return(&p, &ctx, A, 0, 40));

    ck_assert_uint_eq(gc.runs, 1);
    ck_assert_uint_eq(p.methods[STEP].calls, 1);
    ck_assert_uint_eq(p.methods[STEP].total_time, 20);
    ck_assert_uint_eq(p.methods[STEP].self_time, 7);
    ck_assert_uint_eq(p.methods[MARK].calls, 1);
    ck_assert_uint_eq(p.methods[MARK].total_time, 8);
    ck_assert_uint_eq(p.methods[SWEEP].calls, 1);
    ck_assert_uint_eq(p.methods[SWEEP].total_time, 5);
    ck_assert_uint_eq(edge(A, STEP)->calls, 1);
    ck_assert_uint_eq(edge(A, STEP)->total_time, 20);
    ck_assert_uint_eq(edge(STEP, MARK)->calls, 1);
    ck_assert_uint_eq(edge(STEP, SWEEP)->calls, 1);
    ck_assert_uint_eq(p.methods[A].self_time, 20);
    ck_assert_uint_eq(p.methods[A].total_time, 40);
    ck_assert_uint_eq(self_sum(), 40);
    ck_assert_uint_eq(p.thread_time[ctx.thread], 40);
    ck_assert_uint_eq(gc.phase, TG_GC_IDLE);
}
END_TEST

START_TEST(test_lazy_sweeping_spans_steps)
{
    /* A minor GC marks and starts sweeping in one step; two more steps
     * sweep lazily, the last one to the end. Each step is one call. */
    tg_profiler_call(&p, &ctx, A, 0, 0);
    EV(TG_GC_ENTER, 10);
    EV(TG_GC_START, 10);
    EV(TG_GC_END_MARK, 15);
    EV(TG_GC_EXIT, 17);          /* sweeping [15,17] */
    tg_profiler_call(&p, &ctx, B, 0, 20);
    EV(TG_GC_ENTER, 21);         /* sweeping [21,24] */
    EV(TG_GC_EXIT, 24);
    ck_assert(tg_profiler_return(&p, &ctx, B, 0, 30));
    EV(TG_GC_ENTER, 31);
    EV(TG_GC_END_SWEEP, 33);     /* sweeping [31,33], then the step's own [33,34] */
    EV(TG_GC_EXIT, 34);
    tg_profiler_close_all(&p, &ctx, 50);

    ck_assert_uint_eq(gc.runs, 1);
    ck_assert_uint_eq(p.methods[STEP].calls, 3);
    ck_assert_uint_eq(p.methods[STEP].total_time, 7 + 3 + 3);
    ck_assert_uint_eq(p.methods[STEP].self_time, 1);
    ck_assert_uint_eq(p.methods[MARK].calls, 1);
    ck_assert_uint_eq(p.methods[MARK].total_time, 5);
    ck_assert_uint_eq(p.methods[SWEEP].calls, 3);
    ck_assert_uint_eq(p.methods[SWEEP].total_time, 2 + 3 + 2);
    ck_assert_uint_eq(edge(A, STEP)->calls, 2);
    ck_assert_uint_eq(edge(B, STEP)->calls, 1);
    ck_assert_uint_eq(edge(B, STEP)->total_time, 3);
    ck_assert_uint_eq(p.methods[B].self_time, 7);
    ck_assert_uint_eq(self_sum(), 50);
}
END_TEST

START_TEST(test_incremental_marking_spans_steps)
{
    /* A major GC marks incrementally over two steps, then sweeps. */
    tg_profiler_call(&p, &ctx, A, 0, 0);
    EV(TG_GC_ENTER, 10);
    EV(TG_GC_START, 10);
    EV(TG_GC_EXIT, 12);
    EV(TG_GC_ENTER, 20);
    EV(TG_GC_EXIT, 25);
    EV(TG_GC_ENTER, 30);
    EV(TG_GC_END_MARK, 31);
    EV(TG_GC_END_SWEEP, 35);
    EV(TG_GC_EXIT, 35);
    tg_profiler_close_all(&p, &ctx, 40);

    ck_assert_uint_eq(gc.runs, 1);
    ck_assert_uint_eq(p.methods[STEP].calls, 3);
    ck_assert_uint_eq(p.methods[MARK].calls, 3);
    ck_assert_uint_eq(p.methods[MARK].total_time, 2 + 5 + 1);
    ck_assert_uint_eq(p.methods[SWEEP].calls, 1);
    ck_assert_uint_eq(p.methods[SWEEP].total_time, 4);
    ck_assert_uint_eq(self_sum(), 40);
}
END_TEST

START_TEST(test_the_allocating_leaf_is_the_caller)
{
    /* A calls the C method B, a pending leaf, whose allocation runs GC. */
    tg_profiler_call(&p, &ctx, A, 0, 0);
    tg_profiler_push_leaf(&p, &ctx, B, 0, 10);
    EV(TG_GC_ENTER, 12);
    EV(TG_GC_START, 12);
    EV(TG_GC_END_MARK, 14);
    EV(TG_GC_END_SWEEP, 16);
    EV(TG_GC_EXIT, 16);
    ck_assert(tg_profiler_return(&p, &ctx, B, 0, 20));
    ck_assert(tg_profiler_return(&p, &ctx, A, 0, 30));

    ck_assert_uint_eq(edge(A, B)->calls, 1);
    ck_assert_uint_eq(edge(B, STEP)->calls, 1);
    ck_assert_uint_eq(p.methods[B].calls, 1);
    ck_assert_uint_eq(p.methods[B].total_time, 10);
    ck_assert_uint_eq(p.methods[B].self_time, 6);
    ck_assert_uint_eq(self_sum(), 30);
}
END_TEST

START_TEST(test_a_step_on_an_empty_stack_is_a_bottom_frame)
{
    EV(TG_GC_ENTER, 5);
    EV(TG_GC_START, 6);
    EV(TG_GC_END_MARK, 7);
    EV(TG_GC_END_SWEEP, 8);
    EV(TG_GC_EXIT, 9);
    ck_assert_uint_eq(ctx.depth, 0);
    ck_assert_uint_eq(p.methods[STEP].calls, 1);
    ck_assert_uint_eq(p.methods[STEP].total_time, 4);
    ck_assert_uint_eq(p.methods[STEP].self_time, 2);
    ck_assert_uint_eq(p.edge_count, 2);   /* the step -> marking, sweeping: nothing calls it */
    ck_assert_uint_eq(p.methods[MARK].calls + p.methods[SWEEP].calls, 2);
    ck_assert_uint_eq(p.thread_time[ctx.thread], 4);
}
END_TEST

/* Ruby 3.3 and later enter the collector whenever the heap wants a page,
 * to continue a collection there may not be: a step that begins idle and
 * starts no collection did nothing, and is not recorded. */
START_TEST(test_an_idle_step_that_starts_no_collection_is_not_recorded)
{
    tg_profiler_call(&p, &ctx, A, 0, 0);
    EV(TG_GC_ENTER, 10);
    ck_assert(tg_gc_in_step(&gc));
    EV(TG_GC_EXIT, 12);
    ck_assert(!tg_gc_in_step(&gc));
    ck_assert_uint_eq(p.methods[STEP].calls, 0);
    ck_assert_uint_eq(ctx.depth, 1);
    /* One that starts a collection counts from its entry. */
    EV(TG_GC_ENTER, 20);
    EV(TG_GC_START, 23);
    EV(TG_GC_EXIT, 30);
    ck_assert_uint_eq(p.methods[STEP].calls, 1);
    ck_assert_uint_eq(p.methods[STEP].total_time, 10);
    ck_assert_uint_eq(p.methods[STEP].self_time, 3);
    ck_assert_uint_eq(p.methods[MARK].calls, 1);
    ck_assert_uint_eq(p.methods[MARK].total_time, 7);
    ck_assert_uint_eq(gc.runs, 1);
    tg_profiler_close_all(&p, &ctx, 40);
    ck_assert_uint_eq(p.methods[A].self_time, 30);
    ck_assert_uint_eq(self_sum(), 40);
}
END_TEST

START_TEST(test_unrecorded_threads_move_the_phase_only)
{
    /* Another thread (not recorded) starts a collection and leaves it
     * sweeping; this context's next step sweeps. */
    tg_profiler_call(&p, &ctx, A, 0, 0);
    tg_gc_event_at(&gc, &p, NULL, TG_GC_ENTER, 1);
    tg_gc_event_at(&gc, &p, NULL, TG_GC_START, 1);
    tg_gc_event_at(&gc, &p, NULL, TG_GC_END_MARK, 2);
    tg_gc_event_at(&gc, &p, NULL, TG_GC_EXIT, 3);
    ck_assert(!tg_gc_in_step(&gc));
    ck_assert_uint_eq(gc.runs, 0);
    ck_assert_uint_eq(p.methods[STEP].calls, 0);
    EV(TG_GC_ENTER, 10);
    EV(TG_GC_EXIT, 12);
    ck_assert_uint_eq(p.methods[SWEEP].calls, 1);
    ck_assert_uint_eq(p.methods[SWEEP].total_time, 2);
    ck_assert_uint_eq(gc.runs, 0);
}
END_TEST

START_TEST(test_the_phase_at_start_comes_from_the_binding)
{
    reserve(TG_GC_SWEEPING);   /* recording began during a lazy sweep */
    EV(TG_GC_ENTER, 0);
    EV(TG_GC_END_SWEEP, 3);
    EV(TG_GC_EXIT, 4);
    ck_assert_uint_eq(p.methods[SWEEP].total_time, 3);
    ck_assert_uint_eq(p.methods[STEP].self_time, 1);
    tg_gc_set_phase(&gc, TG_GC_MARKING);   /* after a pause */
    EV(TG_GC_ENTER, 10);
    EV(TG_GC_EXIT, 11);
    ck_assert_uint_eq(p.methods[MARK].calls, 1);
    ck_assert_uint_eq(p.methods[MARK].total_time, 1);
}
END_TEST

START_TEST(test_a_missed_exit_closes_the_step_at_the_next_enter)
{
    tg_profiler_call(&p, &ctx, A, 0, 0);
    EV(TG_GC_ENTER, 10);
    EV(TG_GC_START, 10);
    EV(TG_GC_ENTER, 20);   /* the first step's exit never came */
    EV(TG_GC_EXIT, 22);
    ck_assert_uint_eq(ctx.depth, 1);
    ck_assert_uint_eq(p.methods[STEP].calls, 2);
    ck_assert_uint_eq(p.methods[STEP].total_time, 12);
    ck_assert_uint_eq(p.methods[MARK].calls, 2);
    tg_profiler_close_all(&p, &ctx, 30);
    ck_assert_uint_eq(self_sum(), 30);
}
END_TEST

START_TEST(test_a_missed_exit_on_another_context_ends_where_it_began)
{
    tg_gc_set_phase(&gc, TG_GC_SWEEPING);   /* so each step is recorded from its entry */
    tg_profiler_call(&p, &ctx, A, 0, 0);
    EV(TG_GC_ENTER, 10);
    tg_profiler_activate(&p, &other);
    tg_gc_event_at(&gc, &p, &other, TG_GC_ENTER, 50);
    tg_gc_event_at(&gc, &p, &other, TG_GC_EXIT, 55);
    ck_assert_ptr_eq(p.running, &other);
    ck_assert_uint_eq(ctx.depth, 1);
    ck_assert_uint_eq(p.methods[STEP].calls, 2);
    ck_assert_uint_eq(p.methods[STEP].total_time, 5);
    ck_assert_uint_eq(p.methods[STEP].active, 0);
    tg_profiler_close_all(&p, &ctx, 60);
    tg_profiler_close_all(&p, &other, 60);
    ck_assert_uint_eq(self_sum(), 65);
}
END_TEST

START_TEST(test_no_reserved_methods_records_nothing)
{
    tg_gc_init(&gc, TG_NONE, TG_NONE, TG_NONE, TG_GC_IDLE);
    EV(TG_GC_ENTER, 1);
    EV(TG_GC_START, 1);
    EV(TG_GC_EXIT, 2);
    ck_assert(!tg_gc_in_step(&gc));
    ck_assert_uint_eq(ctx.depth, 0);
    ck_assert_uint_eq(gc.runs, 0);
    ck_assert_uint_eq(gc.phase, TG_GC_MARKING);
}
END_TEST

START_TEST(test_memory_does_not_grow_with_collections)
{
    tg_profiler_call(&p, &ctx, A, 0, 0);
    uint64_t t = 1;
    for (int i = 0; i < 100000; i++) {
        EV(TG_GC_ENTER, t++);
        EV(TG_GC_START, t++);
        EV(TG_GC_END_MARK, t++);
        EV(TG_GC_END_SWEEP, t++);
        EV(TG_GC_EXIT, t++);
    }
    ck_assert_uint_eq(gc.runs, 100000);
    ck_assert_uint_eq(p.method_count, 5);
    ck_assert_uint_eq(p.edge_count, 3);
    ck_assert_uint_le(ctx.capacity, 16);
    ck_assert_uint_eq(ctx.depth, 1);
}
END_TEST

static Suite *gc_suite(void)
{
    Suite *s = suite_create("gc");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_a_whole_collection_in_one_step);
    tcase_add_test(tc, test_lazy_sweeping_spans_steps);
    tcase_add_test(tc, test_incremental_marking_spans_steps);
    tcase_add_test(tc, test_the_allocating_leaf_is_the_caller);
    tcase_add_test(tc, test_a_step_on_an_empty_stack_is_a_bottom_frame);
    tcase_add_test(tc, test_an_idle_step_that_starts_no_collection_is_not_recorded);
    tcase_add_test(tc, test_unrecorded_threads_move_the_phase_only);
    tcase_add_test(tc, test_the_phase_at_start_comes_from_the_binding);
    tcase_add_test(tc, test_a_missed_exit_closes_the_step_at_the_next_enter);
    tcase_add_test(tc, test_a_missed_exit_on_another_context_ends_where_it_began);
    tcase_add_test(tc, test_no_reserved_methods_records_nothing);
    tcase_add_test(tc, test_memory_does_not_grow_with_collections);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(gc_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * Pending leaves (tg_profiler_push_leaf) must book exactly what a frame
 * pushed and popped would, times and allocation counts. Explicit cases
 * first, then a differential test: random event streams (nesting,
 * recursion, skipped returns, returns from before the start, context
 * switches, allocations) fed to two profilers, one pushing every call,
 * one pushing "C" methods as leaves the way the binding does, must agree
 * on every number.
 */
#include <check.h>
#include <stdlib.h>

#include "tg_profiler.h"

enum { METHODS = 6, FIRST_C = 3, CONTEXTS = 2 };   /* methods 3..5 are "C" */

typedef struct world {
    tg_profiler p;
    tg_context ctx[CONTEXTS];
} world;

static void world_init(world *w)
{
    ck_assert(tg_profiler_init(&w->p));
    tg_profiler_count_allocations(&w->p);
    uint32_t thread = tg_profiler_add_thread(&w->p);
    for (int i = 0; i < CONTEXTS; i++) tg_context_init(&w->ctx[i], thread);
    for (uint64_t m = 0; m < METHODS; m++) ck_assert_uint_eq(tg_profiler_method(&w->p, 1, m), m);
    tg_profiler_activate(&w->p, &w->ctx[0]);
}

static void world_free(world *w)
{
    for (int i = 0; i < CONTEXTS; i++) tg_context_free(&w->ctx[i]);
    tg_profiler_free(&w->p);
}

/* A call as the binding makes it: close stale frames, then push. */
static void call(world *w, int c, uint32_t m, uint64_t pos, uint64_t t, bool leaves)
{
    tg_context *ctx = &w->ctx[c];
    tg_profiler_drop_stale(&w->p, ctx, pos, t);
    if (leaves && m >= FIRST_C) tg_profiler_push_leaf(&w->p, ctx, m, pos, t);
    else tg_profiler_push(&w->p, ctx, m, pos, t);
}

static void assert_same(const world *a, const world *b)
{
    ck_assert_uint_eq(a->p.method_count, b->p.method_count);
    for (uint32_t m = 0; m < a->p.method_count; m++) {
        ck_assert_uint_eq(a->p.methods[m].calls, b->p.methods[m].calls);
        ck_assert_uint_eq(a->p.methods[m].total_time, b->p.methods[m].total_time);
        ck_assert_uint_eq(a->p.methods[m].self_time, b->p.methods[m].self_time);
        ck_assert_uint_eq(a->p.method_allocations[m].total, b->p.method_allocations[m].total);
        ck_assert_uint_eq(a->p.method_allocations[m].self, b->p.method_allocations[m].self);
    }
    /* Edge indexes may differ (a leaf's edge is made at its return). */
    ck_assert_uint_eq(a->p.edge_count, b->p.edge_count);
    for (uint32_t e = 0; e < a->p.edge_count; e++) {
        const tg_edge_stats *x = &a->p.edges[e];
        uint32_t f = tg_profiler_find_edge(&b->p, x->caller, x->callee);
        ck_assert_uint_ne(f, TG_NONE);
        const tg_edge_stats *y = &b->p.edges[f];
        ck_assert_uint_eq(x->calls, y->calls);
        ck_assert_uint_eq(x->total_time, y->total_time);
        ck_assert_uint_eq(x->self_time, y->self_time);
        ck_assert_uint_eq(a->p.edge_allocations[e].total, b->p.edge_allocations[f].total);
        ck_assert_uint_eq(a->p.edge_allocations[e].self, b->p.edge_allocations[f].self);
    }
    ck_assert_uint_eq(a->p.thread_time[0], b->p.thread_time[0]);
}

static world frames, leaves;

static void setup(void)
{
    world_init(&frames);
    world_init(&leaves);
}

static void teardown(void)
{
    world_free(&frames);
    world_free(&leaves);
}

/* Runs the same events on both worlds. */
#define BOTH(stmt_with_w_and_l) \
    do { \
        world *w = &frames; bool l = false; stmt_with_w_and_l; \
        w = &leaves; l = true; stmt_with_w_and_l; \
    } while (0)
#define CALL(m, pos, t) BOTH(call(w, 0, (m), (pos), (t), l))
#define RET(m, pos, t) BOTH((void)l; tg_profiler_return(&w->p, &w->ctx[0], (m), (pos), (t)))

START_TEST(leaf_is_booked_like_a_frame)
{
    CALL(0, 1000, 0);
    CALL(3, 936, 10);   RET(3, 936, 15);     /* a leaf */
    CALL(3, 936, 20);   RET(3, 936, 22);     /* the same edge again */
    RET(0, 1000, 30);
    ck_assert_uint_eq(leaves.ctx[0].depth, 0);
    ck_assert_uint_eq(leaves.p.methods[3].calls, 2);
    ck_assert_uint_eq(leaves.p.methods[3].total_time, 7);
    ck_assert_uint_eq(leaves.p.methods[0].self_time, 23);
    assert_same(&frames, &leaves);
}
END_TEST

START_TEST(leaf_that_calls_becomes_a_frame)
{
    CALL(0, 1000, 0);
    CALL(4, 936, 1);                         /* a C method that yields */
    CALL(1, 872, 2);   CALL(5, 808, 3);   RET(5, 808, 4);   RET(1, 872, 6);
    ck_assert_uint_eq(leaves.ctx[0].depth, 2);
    RET(4, 936, 9);
    RET(0, 1000, 10);
    ck_assert_uint_eq(leaves.p.methods[4].total_time, 8);
    ck_assert_uint_eq(leaves.p.methods[4].self_time, 4);
    assert_same(&frames, &leaves);
}
END_TEST

START_TEST(leaf_inside_its_own_method_counts_time_once)
{
    /* C method 3 yields to 1, which calls 3 again as a leaf: the inner
     * call is not outermost, so it adds no total time of its own. */
    CALL(3, 1000, 0);
    CALL(1, 900, 1);   CALL(3, 836, 2);   RET(3, 836, 5);   RET(1, 900, 6);
    RET(3, 1000, 10);
    ck_assert_uint_eq(leaves.p.methods[3].calls, 2);
    ck_assert_uint_eq(leaves.p.methods[3].total_time, 10);
    ck_assert_uint_eq(leaves.p.methods[3].self_time, 8);   /* 5 outside 1, 3 inside */
    assert_same(&frames, &leaves);
}
END_TEST

START_TEST(leaf_survives_a_context_switch_and_stop)
{
    CALL(0, 1000, 0);
    CALL(3, 936, 1);                         /* Fiber#resume, say */
    BOTH((void)l; tg_context_suspend(&w->ctx[0], 2); tg_context_resume(&w->ctx[1], 2);
         tg_profiler_activate(&w->p, &w->ctx[1]));
    ck_assert_uint_eq(leaves.ctx[0].depth, 2);   /* the leaf got its frame */
    BOTH(call(w, 1, 1, 5000, 3, l));
    BOTH(call(w, 1, 5, 4936, 4, l));
    BOTH((void)l; tg_profiler_close_all(&w->p, &w->ctx[1], 8); tg_profiler_close_all(&w->p, &w->ctx[0], 9));
    ck_assert_uint_eq(leaves.p.methods[5].calls, 1);
    ck_assert_uint_eq(leaves.p.methods[3].total_time, 1);   /* suspended from 2 on */
    assert_same(&frames, &leaves);
}
END_TEST

START_TEST(leaf_whose_return_was_skipped_is_closed_by_position)
{
    CALL(0, 1000, 0);
    CALL(3, 936, 1);                         /* raises: no return event */
    CALL(4, 936, 5);   RET(4, 936, 6);       /* the next call in that slot */
    RET(0, 1000, 7);
    ck_assert_uint_eq(leaves.p.methods[3].total_time, 4);
    assert_same(&frames, &leaves);
}
END_TEST

/* A small deterministic generator (xorshift), so a failure reproduces. */
static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

START_TEST(random_streams_agree)
{
    enum { SLOT = 64, TOP = 1u << 20, MAX_DEPTH = 40 };
    for (int round = 0; round < 200; round++) {
        world_free(&frames);
        world_free(&leaves);
        world_init(&frames);
        world_init(&leaves);
        rng_state = 0x9E3779B97F4A7C15ull + (uint64_t)round;
        /* The real stacks: methods by depth; position = TOP - depth * SLOT. */
        uint32_t stack[CONTEXTS][MAX_DEPTH];
        uint32_t depth[CONTEXTS] = {0};
        int running = 0;
        uint64_t t = 0;
        for (int step = 0; step < 400; step++) {
            t += rnd(5);
            /* Objects allocated since the last event, on the running stack. */
            uint64_t allocated = rnd(4);
            BOTH((void)l; w->ctx[running].allocations += allocated);
            uint32_t r = rnd(100);
            uint32_t *d = &depth[running];
            if (r < 50 && *d < MAX_DEPTH) {           /* a call */
                uint32_t m = rnd(METHODS);
                stack[running][(*d)++] = m;
                uint64_t pos = TOP - (uint64_t)*d * SLOT;
                BOTH(call(w, running, m, pos, t, l));
            } else if (r < 90 && *d > 0) {             /* a return */
                uint64_t pos = TOP - (uint64_t)*d * SLOT;
                uint32_t m = stack[running][--(*d)];
                BOTH((void)l; tg_profiler_return(&w->p, &w->ctx[running], m, pos, t));
            } else if (r < 94 && *d > 0) {             /* unwound without an event */
                (*d)--;
            } else if (r < 96) {                       /* a return from before the start */
                BOTH((void)l; tg_profiler_return(&w->p, &w->ctx[running], rnd(METHODS), TOP + SLOT, t));
                *d = 0;
            } else {                                   /* switch to the other context */
                int next = 1 - running;
                BOTH((void)l; tg_context_suspend(&w->ctx[running], t); tg_context_resume(&w->ctx[next], t);
                     tg_profiler_activate(&w->p, &w->ctx[next]));
                running = next;
            }
        }
        BOTH((void)l; for (int c = 0; c < CONTEXTS; c++) tg_profiler_close_all(&w->p, &w->ctx[c], t + 1));
        assert_same(&frames, &leaves);
    }
}
END_TEST

static Suite *leaf_suite(void)
{
    Suite *s = suite_create("leaf");
    TCase *tc = tcase_create("leaf");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, leaf_is_booked_like_a_frame);
    tcase_add_test(tc, leaf_that_calls_becomes_a_frame);
    tcase_add_test(tc, leaf_inside_its_own_method_counts_time_once);
    tcase_add_test(tc, leaf_survives_a_context_switch_and_stop);
    tcase_add_test(tc, leaf_whose_return_was_skipped_is_closed_by_position);
    tcase_add_test(tc, random_streams_agree);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(leaf_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

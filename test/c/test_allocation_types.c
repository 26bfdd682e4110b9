/*
 * Allocations by type in the core (tg_profiler_allocation): each object
 * goes, by its type bucket, to the method on top of the allocating
 * context's stack, and once every frame is closed a method's buckets add
 * up to its self allocations exactly. Explicit cases first, then random
 * event streams (nesting, recursion, leaves, skipped returns, returns
 * from before the start, stale frames closed by position, objects
 * allocated on a context that is not the running one), with and without
 * the call tree (which pushes leaves as frames).
 */
#include <check.h>
#include <stdlib.h>

#include "tg_profiler.h"

enum { STRING = 0, ARRAY = 1, HASH = 2, OTHER = TG_ALLOCATION_TYPES - 1 };

static tg_profiler p;
static tg_context ctx, other;
static uint32_t A, B, L;   /* L is a "C method", pushed as a leaf */

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
    L = tg_profiler_method(&p, 200, 1);
}

static void teardown(void)
{
    tg_context_free(&ctx);
    tg_context_free(&other);
    tg_profiler_free(&p);
}

#define CALL(m) tg_profiler_call(&p, &ctx, (m), 0, 0)
#define LEAF(m) tg_profiler_push_leaf(&p, &ctx, (m), 0, 0)
#define RET(m) tg_profiler_return(&p, &ctx, (m), 0, 0)

/* n objects of bucket `type` allocated on context c. */
static void allocate(tg_profiler *prof, tg_context *c, unsigned type, unsigned n)
{
    for (unsigned i = 0; i < n; i++) tg_profiler_allocation(prof, c, type);
}
#define ALLOC(type, n) allocate(&p, &ctx, (type), (n))

static uint64_t type_sum(const tg_profiler *prof, uint32_t m)
{
    uint64_t sum = 0;
    for (unsigned t = 0; t < TG_ALLOCATION_TYPES; t++) sum += prof->method_allocation_types[m].count[t];
    return sum;
}

/* Every method's buckets add up to its self allocations. */
static void assert_types_add_up(const tg_profiler *prof)
{
    for (uint32_t m = 0; m < prof->method_count; m++)
        ck_assert_uint_eq(type_sum(prof, m), prof->method_allocations[m].self);
}

#define TYPES(m, type) (p.method_allocation_types[(m)].count[(type)])

START_TEST(each_object_goes_to_the_frame_on_top)
{
    /* A makes 2 strings, calls B (3 arrays, 1 hash), makes 1 more string,
     * calls B again (1 array). */
    CALL(A);   ALLOC(STRING, 2);
    CALL(B);   ALLOC(ARRAY, 3);   ALLOC(HASH, 1);   RET(B);
    ALLOC(STRING, 1);
    CALL(B);   ALLOC(ARRAY, 1);   RET(B);
    RET(A);
    ck_assert_uint_eq(TYPES(A, STRING), 3);
    ck_assert_uint_eq(TYPES(A, ARRAY), 0);
    ck_assert_uint_eq(TYPES(B, ARRAY), 4);
    ck_assert_uint_eq(TYPES(B, HASH), 1);
    ck_assert_uint_eq(TYPES(B, STRING), 0);
    ck_assert_uint_eq(p.method_allocations[A].total, 8);
    assert_types_add_up(&p);
}
END_TEST

START_TEST(a_pending_leaf_is_on_top)
{
    CALL(A);
    LEAF(L);   ALLOC(STRING, 5);   RET(L);
    LEAF(L);   ALLOC(OTHER, 1);
    CALL(B);   ALLOC(ARRAY, 2);   RET(B);   /* the leaf becomes a frame */
    ALLOC(OTHER, 1);   RET(L);
    RET(A);
    ck_assert_uint_eq(TYPES(L, STRING), 5);
    ck_assert_uint_eq(TYPES(L, OTHER), 2);
    ck_assert_uint_eq(TYPES(B, ARRAY), 2);
    ck_assert_uint_eq(type_sum(&p, A), 0);
    assert_types_add_up(&p);
}
END_TEST

START_TEST(objects_outside_frames_belong_to_no_method)
{
    ALLOC(STRING, 7);
    CALL(A);   ALLOC(HASH, 2);   RET(A);
    ALLOC(ARRAY, 9);
    ck_assert_uint_eq(ctx.allocations, 18);
    ck_assert_uint_eq(type_sum(&p, A), 2);
    ck_assert_uint_eq(type_sum(&p, B) + type_sum(&p, L), 0);
    assert_types_add_up(&p);
}
END_TEST

START_TEST(recursion_books_each_level_s_own)
{
    CALL(A);   ALLOC(STRING, 1);
    CALL(A);   ALLOC(STRING, 1);
    CALL(A);   ALLOC(ARRAY, 10);   RET(A);
    ALLOC(HASH, 1);   RET(A);
    RET(A);
    ck_assert_uint_eq(TYPES(A, STRING), 2);
    ck_assert_uint_eq(TYPES(A, ARRAY), 10);
    ck_assert_uint_eq(TYPES(A, HASH), 1);
    ck_assert_uint_eq(p.method_allocations[A].self, 13);
    assert_types_add_up(&p);
}
END_TEST

START_TEST(a_context_that_is_not_running_books_its_own_top)
{
    /* `other` (another thread's stack) allocates while ctx is the core's
     * running context: B, on top of `other`, has them. */
    CALL(A);
    tg_profiler_activate(&p, &other);
    tg_profiler_call(&p, &other, B, 0, 0);
    tg_profiler_activate(&p, &ctx);
    allocate(&p, &other, HASH, 4);
    ALLOC(STRING, 1);
    tg_profiler_activate(&p, &other);
    tg_profiler_return(&p, &other, B, 0, 0);
    tg_profiler_activate(&p, &ctx);
    RET(A);
    ck_assert_uint_eq(TYPES(B, HASH), 4);
    ck_assert_uint_eq(TYPES(A, STRING), 1);
    assert_types_add_up(&p);
}
END_TEST

START_TEST(frames_closed_at_stop_or_by_position_add_up)
{
    /* B's return is skipped (an exception Ruby does not report); the next
     * call in its slot closes it, and what it allocated meanwhile is its. */
    tg_profiler_call(&p, &ctx, A, 1000, 0);
    tg_profiler_call(&p, &ctx, B, 936, 1);
    ALLOC(ARRAY, 3);
    tg_profiler_call(&p, &ctx, L, 936, 2);   /* B is gone */
    ALLOC(STRING, 1);
    tg_profiler_return(&p, &ctx, L, 936, 3);
    LEAF(L);   ALLOC(HASH, 2);   /* still open at stop */
    tg_profiler_close_all(&p, &ctx, 4);
    ck_assert_uint_eq(TYPES(B, ARRAY), 3);
    ck_assert_uint_eq(TYPES(L, STRING), 1);
    ck_assert_uint_eq(TYPES(L, HASH), 2);
    assert_types_add_up(&p);
}
END_TEST

START_TEST(off_keeps_no_types)
{
    tg_profiler off;
    ck_assert(tg_profiler_init(&off));
    ck_assert_uint_ne(tg_profiler_method(&off, 1, 1), TG_NONE);
    ck_assert_ptr_null(off.method_allocation_types);
    tg_profiler_free(&off);
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

START_TEST(random_streams_add_up)
{
    enum { METHODS = 6, FIRST_C = 3, CONTEXTS = 2, SLOT = 64, TOP = 1u << 20, MAX_DEPTH = 40 };
    for (int round = 0; round < 200; round++) {
        tg_profiler q;
        tg_context c[CONTEXTS];
        tg_calltree tree;
        ck_assert(tg_profiler_init(&q));
        tg_profiler_count_allocations(&q);
        bool with_tree = round % 2;
        if (with_tree) {
            ck_assert(tg_calltree_init(&tree, 50));   /* small: some calls fold */
            q.tree = &tree;
        }
        uint32_t thread = tg_profiler_add_thread(&q);
        for (int i = 0; i < CONTEXTS; i++) tg_context_init(&c[i], thread);
        for (uint64_t m = 0; m < METHODS; m++) ck_assert_uint_eq(tg_profiler_method(&q, 1, m), m);
        tg_profiler_activate(&q, &c[0]);
        rng_state = 0xD1B54A32D192ED03ull + (uint64_t)round;
        /* The real stacks: methods by depth; position = TOP - depth * SLOT. */
        uint32_t stack[CONTEXTS][MAX_DEPTH];
        uint32_t depth[CONTEXTS] = {0};
        int running = 0;
        uint64_t t = 0, allocated = 0;
        for (int step = 0; step < 400; step++) {
            t += rnd(5);
            /* Objects allocated since the last event, mostly on the running
             * stack, now and then on the other. */
            unsigned n = rnd(4);
            allocate(&q, &c[rnd(8) ? running : 1 - running], rnd(TG_ALLOCATION_TYPES), n);
            allocated += n;
            uint32_t r = rnd(100);
            uint32_t *d = &depth[running];
            tg_context *ctx_r = &c[running];
            if (r < 50 && *d < MAX_DEPTH) {           /* a call */
                uint32_t m = rnd(METHODS);
                stack[running][(*d)++] = m;
                uint64_t pos = TOP - (uint64_t)*d * SLOT;
                tg_profiler_drop_stale(&q, ctx_r, pos, t);
                if (m >= FIRST_C) tg_profiler_push_leaf(&q, ctx_r, m, pos, t);
                else tg_profiler_push(&q, ctx_r, m, pos, t);
            } else if (r < 90 && *d > 0) {             /* a return */
                uint64_t pos = TOP - (uint64_t)*d * SLOT;
                tg_profiler_return(&q, ctx_r, stack[running][--(*d)], pos, t);
            } else if (r < 94 && *d > 0) {             /* unwound without an event */
                (*d)--;
            } else if (r < 96) {                       /* a return from before the start */
                tg_profiler_return(&q, ctx_r, rnd(METHODS), TOP + SLOT, t);
                *d = 0;
            } else {                                   /* switch to the other context */
                int next = 1 - running;
                tg_context_suspend(ctx_r, t);
                tg_context_resume(&c[next], t);
                tg_profiler_activate(&q, &c[next]);
                running = next;
            }
        }
        for (int i = 0; i < CONTEXTS; i++) tg_profiler_close_all(&q, &c[i], t + 1);
        assert_types_add_up(&q);
        /* And no object went missing or was counted twice: those with no
         * frame open belong to no method in either count. */
        uint64_t booked = 0;
        for (uint32_t m = 0; m < q.method_count; m++) booked += type_sum(&q, m);
        ck_assert_uint_le(booked, allocated);
        ck_assert_uint_eq(c[0].allocations + c[1].allocations, allocated);
        for (int i = 0; i < CONTEXTS; i++) tg_context_free(&c[i]);
        if (with_tree) tg_calltree_free(&tree);
        tg_profiler_free(&q);
    }
}
END_TEST

static Suite *allocation_types_suite(void)
{
    Suite *s = suite_create("allocation_types");
    TCase *tc = tcase_create("allocation_types");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, each_object_goes_to_the_frame_on_top);
    tcase_add_test(tc, a_pending_leaf_is_on_top);
    tcase_add_test(tc, objects_outside_frames_belong_to_no_method);
    tcase_add_test(tc, recursion_books_each_level_s_own);
    tcase_add_test(tc, a_context_that_is_not_running_books_its_own_top);
    tcase_add_test(tc, frames_closed_at_stop_or_by_position_add_up);
    tcase_add_test(tc, off_keeps_no_types);
    tcase_add_test(tc, random_streams_add_up);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(allocation_types_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

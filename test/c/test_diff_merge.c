/*
 * test_diff_merge.c - two models matched by method name (tg_diff_merge.h):
 * one node per name with both sides' numbers, same-named methods summed,
 * base times scaled and allocation counts never, edges merged by name
 * pair, and the weight each is cut and capped by.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "tg_diff_merge.h"

#define MS 1000000ull

/* base: main -> a, main -> gone. head: main -> a (twice, from two methods named "a"), main -> fresh. */
static const tg_model_method base_methods[] = {
    { "main", "m.rb", 1, false, 1, 100 * MS, 10 * MS },
    { "a", "m.rb", 5, false, 4, 60 * MS, 60 * MS },
    { "gone", "m.rb", 9, false, 2, 30 * MS, 30 * MS },
};
static const tg_model_edge base_edges[] = {
    { 0, 1, 4, 60 * MS, 60 * MS },
    { 0, 2, 2, 30 * MS, 30 * MS },
    { 0, 7, 1, 1 * MS, 1 * MS },   /* broken: skipped */
};
static const tg_model_method head_methods[] = {
    { "fresh", "m.rb", 12, false, 1, 40 * MS, 40 * MS },
    { "a", "m.rb", 5, false, 3, 50 * MS, 50 * MS },
    { "main", "m.rb", 1, false, 1, 200 * MS, 20 * MS },
    { "a", "other.rb", 2, true, 2, 90 * MS, 90 * MS },
};
static const tg_model_edge head_edges[] = {
    { 2, 1, 3, 50 * MS, 50 * MS },
    { 2, 3, 2, 90 * MS, 90 * MS },
    { 2, 0, 1, 40 * MS, 40 * MS },
};

static tg_model model(const tg_model_method *m, size_t nm, const tg_model_edge *e, size_t ne, uint64_t total)
{
    return (tg_model){ .program = "m.rb", .clock = "wall", .total_time = total, .methods = m, .method_count = nm,
                        .edges = e, .edge_count = ne };
}

START_TEST(methods_and_edges_are_matched_by_name)
{
    tg_model base = model(base_methods, 3, base_edges, 3, 100 * MS);
    tg_model head = model(head_methods, 4, head_edges, 3, 200 * MS);
    tg_diff_merge m;
    ck_assert(tg_diff_merge_build(&m, &base, &head, NULL, NULL, 1.0, false));
    /* Sorted by name: a, fresh, gone, main. */
    ck_assert_uint_eq(m.node_count, 4);
    ck_assert_str_eq(m.nodes[0].name, "a");
    ck_assert_str_eq(m.nodes[1].name, "fresh");
    ck_assert_str_eq(m.nodes[2].name, "gone");
    ck_assert_str_eq(m.nodes[3].name, "main");
    ck_assert_uint_eq(m.only_head, 1);
    ck_assert_uint_eq(m.only_base, 1);

    const tg_diff_node *a = &m.nodes[0];
    ck_assert(a->head.present && a->base.present);
    ck_assert_uint_eq(a->head.calls, 5);          /* the two "a" of head, summed */
    ck_assert_uint_eq(a->head.total, 140 * MS);
    ck_assert_uint_eq(a->base.total, 60 * MS);
    ck_assert_uint_eq(a->weight, 140 * MS);
    ck_assert_int_eq(a->meta->line, 5);           /* head's first by file: m.rb before other.rb */
    ck_assert(!m.nodes[1].base.present);
    ck_assert(!m.nodes[2].head.present);
    ck_assert_uint_eq(m.nodes[2].weight, 30 * MS);

    /* Edges by (from, to): main -> a, main -> fresh, main -> gone. */
    ck_assert_uint_eq(m.edge_count, 3);
    ck_assert_uint_eq(m.edges[0].from, 3);
    ck_assert_uint_eq(m.edges[0].to, 0);
    ck_assert_uint_eq(m.edges[0].head.calls, 5);
    ck_assert_uint_eq(m.edges[0].head.total, 140 * MS);
    ck_assert_uint_eq(m.edges[0].base.total, 60 * MS);
    ck_assert_uint_eq(m.edges[1].to, 1);
    ck_assert(!m.edges[1].base.present);
    ck_assert_uint_eq(m.edges[2].to, 2);
    ck_assert(!m.edges[2].head.present);
    ck_assert_uint_eq(m.edges[2].weight, 30 * MS);
    tg_diff_merge_free(&m);
}
END_TEST

START_TEST(base_times_are_scaled_and_allocations_never)
{
    tg_model base = model(base_methods, 3, base_edges, 3, 100 * MS);
    tg_model head = model(head_methods, 4, head_edges, 3, 200 * MS);
    static const uint64_t base_self[] = { 1, 2, 3 }, base_total[] = { 6, 2, 3 }, base_edge[] = { 2, 3, 9 };
    static const uint64_t head_self[] = { 4, 5, 6, 7 }, head_total[] = { 4, 5, 22, 7 }, head_edge[] = { 5, 7, 4 };
    tg_diff_dot_allocations ba = { base_self, base_total, base_edge, 6 }, ha = { head_self, head_total, head_edge, 22 };
    tg_diff_merge m;
    ck_assert(tg_diff_merge_build(&m, &base, &head, &ba, &ha, 2.0, true));
    const tg_diff_node *a = &m.nodes[0], *gone = &m.nodes[2];
    ck_assert_uint_eq(a->base.total, 120 * MS);   /* scaled x2 */
    ck_assert_uint_eq(a->base.self, 120 * MS);
    ck_assert_uint_eq(a->base.calls, 4);          /* calls are counts: never scaled */
    ck_assert_uint_eq(a->base.self_allocs, 2);
    ck_assert_uint_eq(a->head.self_allocs, 12);   /* 5 + 7 */
    ck_assert_uint_eq(a->weight, 12);             /* by allocations: max(12, 2) */
    ck_assert_uint_eq(gone->weight, 3);
    ck_assert_uint_eq(m.edges[0].head.allocs, 12);
    ck_assert_uint_eq(m.edges[0].base.allocs, 2);
    ck_assert_uint_eq(m.edges[0].weight, 12);
    tg_diff_merge_free(&m);

    /* One model's counts alone are ignored. */
    ck_assert(tg_diff_merge_build(&m, &base, &head, &ba, NULL, 1.0, false));
    ck_assert_uint_eq(m.nodes[0].head.self_allocs, 0);
    ck_assert_uint_eq(m.nodes[0].base.self_allocs, 0);
    tg_diff_merge_free(&m);
}
END_TEST

static Suite *diff_merge_suite(void)
{
    Suite *s = suite_create("diff_merge");
    TCase *tc = tcase_create("diff_merge");
    tcase_add_test(tc, methods_and_edges_are_matched_by_name);
    tcase_add_test(tc, base_times_are_scaled_and_allocations_never);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(diff_merge_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * test_diff_dot.c - the differential call graph: matching by name, labels
 * with both values and the change, red/blue colours, ghosts for what
 * vanished, "new" for what appeared, normalization, pruning on the
 * heavier side, legend, determinism, escaping, the graph by allocations,
 * and that `dot` itself lays the output out without a single warning.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dot_checks.h"
#include "tg_diff_dot.h"

#define MS 1000000ull
#define ARROW "\xE2\x86\x92"   /* → */
#define TIMES "\xC3\x97"       /* × */
#define DOT_ "\xC2\xB7"        /* · */

/* ---- helpers ---- */

static tg_diff_dot_options keep_all(void)
{
    tg_diff_dot_options o;
    tg_diff_dot_options_default(&o);
    o.node_fraction = 0;
    o.edge_fraction = 0;
    o.max_nodes = 0;
    return o;
}

static char *render(const tg_model *base, const tg_model *head, const tg_diff_dot_options *o)
{
    size_t len = 0;
    char *s = tg_diff_dot_render(base, head, o, &len);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(len, strlen(s));
    return s;
}

/* The whole DOT statement (one line) that contains `part`; caller frees. */
static char *line_with(const char *s, const char *part)
{
    const char *p = strstr(s, part);
    ck_assert_msg(p != NULL, "no line containing %s", part);
    const char *start = p;
    while (start > s && start[-1] != '\n') start--;
    const char *end = strchr(p, '\n');
    size_t n = end ? (size_t)(end - start) : strlen(start);
    char *line = malloc(n + 1);
    memcpy(line, start, n);
    line[n] = '\0';
    return line;
}

/*
 * The reference pair, times in ms. Base (total 120):
 *   <main> (self 10) -> work (self 60, 300 calls) -> old (30, gone in head)
 *   <main> -> each [C] (20)        work -> each (1 ms, gone in head)
 * Head (total 150), methods listed in another order:
 *   <main> (self 10) -> work (self 90, 450 calls) -> fresh (30, new)
 *   <main> -> each [C] (20)
 */
static const tg_model_method base_methods[] = {
    { "<main>", "/app/demo.rb", 1, false, 1, 120 * MS, 10 * MS },
    { "Object#work", "/app/lib/work.rb", 10, false, 300, 100 * MS, 60 * MS },
    { "Object#old", "/app/lib/old.rb", 5, false, 20, 30 * MS, 30 * MS },
    { "Array#each", NULL, 0, true, 4, 20 * MS, 20 * MS },
};
static const tg_model_edge base_edges[] = {
    { 0, 1, 300, 100 * MS, 60 * MS },
    { 1, 2, 20, 30 * MS, 30 * MS },
    { 0, 3, 4, 20 * MS, 20 * MS },
    { 1, 3, 1, 1 * MS, 1 * MS },
};
static const tg_model_method head_methods[] = {
    { "Array#each", NULL, 0, true, 4, 20 * MS, 20 * MS },
    { "Object#work", "/app/lib/work.rb", 10, false, 450, 130 * MS, 90 * MS },
    { "<main>", "/app/demo.rb", 1, false, 1, 150 * MS, 10 * MS },
    { "Object#fresh", "/app/lib/fresh.rb", 7, false, 9, 30 * MS, 30 * MS },
};
static const tg_model_edge head_edges[] = {
    { 2, 1, 450, 130 * MS, 90 * MS },
    { 1, 3, 9, 30 * MS, 30 * MS },
    { 2, 0, 4, 20 * MS, 20 * MS },
};

static tg_model base_report(void)
{
    return (tg_model){ "demo.rb", "wall", 120 * MS, base_methods, 4, base_edges, 4, NULL };
}

static tg_model head_report(void)
{
    return (tg_model){ "demo.rb", "wall", 150 * MS, head_methods, 4, head_edges, 3, NULL };
}

/* One method per model, for colour and label checks. */
static char *render_one(uint64_t base_self, uint64_t head_self, uint64_t total, const tg_diff_dot_options *o)
{
    static tg_model_method bm[1], hm[1];
    bm[0] = (tg_model_method){ "M#m", NULL, 0, false, 1, base_self, base_self };
    hm[0] = (tg_model_method){ "M#m", NULL, 0, false, 1, head_self, head_self };
    tg_model b = { NULL, "cpu", total, bm, 1, NULL, 0, NULL }, h = { NULL, "cpu", total, hm, 1, NULL, 0, NULL };
    return render(&b, &h, o);
}

/* ---- options and shell ---- */

#define ARROW_TIP "\xE2\x86\x92"

START_TEST(defaults_match_tg_dot)
{
    tg_diff_dot_options o;
    memset(&o, 0xAB, sizeof o);
    tg_diff_dot_options_default(&o);
    ck_assert(o.node_fraction == 0.005);
    ck_assert(o.edge_fraction == 0.001);
    ck_assert_uint_eq(o.max_nodes, 80);
    ck_assert(!o.normalize);
    ck_assert_ptr_null(o.cwd);
    ck_assert_ptr_null(o.base_allocations);
    ck_assert_ptr_null(o.head_allocations);
    ck_assert_int_eq(o.metric, TG_DOT_BY_TIME);
    ck_assert_ptr_null(o.base_focus);
    ck_assert_ptr_null(o.head_focus);
    ck_assert_ptr_null(o.base_ignore);
    ck_assert_ptr_null(o.head_ignore);
}
END_TEST

START_TEST(graph_header_legend_and_dot_accepts_it)
{
    tg_model b = base_report(), h = head_report();
    char *s = render(&b, &h, NULL);
    ck_assert(strncmp(s, "digraph tracegraph_diff {\n", 26) == 0);
    ck_assert_has(s, "{ rank=source; legend [shape=note");
    ck_assert_has(s, "label=\"tracegraph diff: demo.rb\\lClock: wall\\l");
    ck_assert_has(s, "\\ltotal 120 ms " ARROW " 150 ms (+25.0%) " DOT_ " calls 325 " ARROW " 464\\l");
    ck_assert_has(s, "\\lNot normalized: base times as measured\\l");
    ck_assert_has(s, "\\lShowing 5 of 5 methods (1 new in head, 1 gone from base)\\l");
    ck_assert_has(s, "\\lNothing dropped\\l");
    ck_assert_has(s, "Box size = head self time " DOT_ " colour = change in self time\\l");
    ck_assert_has(s, "Red = grew, blue = shrank, white = held");
    ck_assert_has(s, "\\lNumbers are head's, (change) from base; none: it held\\lDashed blue = only in base (gone) "
                     DOT_ " \\\"new\\\" = only in head\\l");
    /* The colour scale, as a swatch: each cell the colour of its change. */
    ck_assert_has(s, "  { rank=source; legend_scale [shape=plaintext");
    ck_assert_has(s, "<td bgcolor=\"#2166ac\"><font color=\"#ffffff\">-25%</font></td>");
    ck_assert_has(s, "<td bgcolor=\"#f7f7f7\"><font color=\"#000000\">0%</font></td>");
    ck_assert_has(s, "<td bgcolor=\"#b2182b\"><font color=\"#ffffff\">+25%</font></td>");
    ck_assert(strcmp(s + strlen(s) - 2, "}\n") == 0);
    assert_dot_accepts(s);
    free(s);
}
END_TEST

/* Grouped profiles without call trees: the arrows give calls alone. */
START_TEST(arrows_with_calls_only)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o;
    tg_diff_dot_options_default(&o);
    o.edge_calls_only = true;
    char *s = render(&b, &h, &o);
    ck_assert_has(s, "label=\" \xC3\x97" "450 \\n (was \xC3\x97" "300) \", tooltip=\"<main> " ARROW " Object#work"
                     "\\ncalls: 300 " ARROW " 450 (times not counted: see the legend)\"");
    ck_assert_has(s, "label=\" gone \\n was \xC3\x97" "20 \"");
    ck_assert_has(s, "Edge = calls (grey: their time is not known)\\l");
    char *w = line_with(s, "tooltip=\"<main> " ARROW " Object#work");
    ck_assert_lacks(w, "ms");
    ck_assert_has(w, "color=\"#5b5b5b\"");
    free(w);
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(empty_pair_has_only_the_legend)
{
    tg_model b = { NULL, "cpu", 0, NULL, 0, NULL, 0, NULL }, h = { NULL, "cpu", 0, NULL, 0, NULL, 0, NULL };
    char *s = render(&b, &h, NULL);
    ck_assert_has(s, "tracegraph diff\\lClock: cpu\\ltotal 0 ns " ARROW " 0 ns (no change) " DOT_ " calls 0 " ARROW " 0\\l");
    ck_assert_has(s, "Nothing was recorded (0 methods).\\l");
    ck_assert_lacks(s, "N1");
    ck_assert_lacks(s, "->");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(programs_and_clocks_that_differ_are_named)
{
    tg_model b = base_report(), h = head_report();
    b.program = "old.rb";
    h.program = "new.rb";
    b.clock = "cpu";
    char *s = render(&b, &h, NULL);
    ck_assert_has(s, "tracegraph diff: old.rb " ARROW " new.rb\\l");
    ck_assert_has(s, "Clock: cpu " ARROW " wall\\l(different clocks: changes mix what they measure)\\l");
    free(s);
}
END_TEST

/* ---- nodes ---- */

START_TEST(changed_node_label_golden)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = keep_all();
    o.cwd = "/app";
    char *s = render(&b, &h, &o);
    char *n2 = line_with(s, "  N2 [");
    ck_assert_str_eq(n2,
        "  N2 [label=\"Object#work\\nlib/work.rb:10\\nself 90.0 ms\\n(+30.0 ms, +50.0%)\\n"
        "total 130 ms\\n(+30.0 ms, +30.0%)\\ncalls 300 " ARROW " 450\", "
        "tooltip=\"Object#work\\n/app/lib/work.rb:10\\nself: 60.0 ms " ARROW " 90.0 ms (+30.0 ms, +50.0%)\\n"
        "total: 100 ms " ARROW " 130 ms (+30.0 ms, +30.0%)\\ncalls: 300 " ARROW " 450\", "
        "fontsize=24.0, fillcolor=\"#c13639\", color=\"#732022\", fontcolor=\"#ffffff\"];");
    free(n2);
    /* Held: no change, neutral colour; N1 is <main>, the heaviest. */
    char *n1 = line_with(s, "  N1 [");
    ck_assert_has(n1, "label=\"<main>\\ndemo.rb:1\\nself 10.0 ms\\ntotal 150 ms\\n(+30.0 ms, +25.0%)\\n"
                      "1 call\"");
    ck_assert_has(n1, "fillcolor=\"#f7f7f7\"");
    free(n1);
    free(s);
}
END_TEST

START_TEST(new_method_is_marked_new)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = keep_all();
    char *s = render(&b, &h, &o);
    char *n = line_with(s, "label=\"Object#fresh");
    ck_assert_has(n, "label=\"Object#fresh\\n/app/lib/fresh.rb:7\\nnew (only in head)\\nself 30.0 ms\\n"
                     "total 30.0 ms\\n9 calls\"");
    ck_assert_has(n, "\\nself: none " ARROW " 30.0 ms (+30.0 ms)\\n");
    ck_assert_has(n, "\\ncalls: 0 " ARROW " 9\"");
    ck_assert_lacks(n, "dashed");
    ck_assert_has(n, "fillcolor=\"#c13639\"");   /* grew by 30 ms of 150: red, like work */
    free(n);
    free(s);
}
END_TEST

START_TEST(vanished_method_is_a_dashed_blue_ghost_with_base_numbers)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = keep_all();
    char *s = render(&b, &h, &o);
    char *n = line_with(s, "label=\"Object#old");
    ck_assert_has(n, "label=\"Object#old\\n/app/lib/old.rb:5\\ngone (only in base)\\nbase self 30.0 ms\\n"
                     "base total 30.0 ms\\nbase 20 calls\"");
    ck_assert_has(n, "\\nself: 30.0 ms " ARROW " none (-30.0 ms, -100.0%)\\n");
    ck_assert_has(n, "fillcolor=\"#f4f8fc\", color=\"#2166ac\", fontcolor=\"#2166ac\", penwidth=2.0, "
                     "style=\"filled,rounded,dashed\"");
    /* Sized by its base self on the same scale: as big as fresh (30 of 90). */
    ck_assert_has(n, "fontsize=17.7");
    free(n);
    free(s);
}
END_TEST

START_TEST(c_methods_keep_the_dashed_border)
{
    tg_model b = base_report(), h = head_report();
    char *s = render(&b, &h, NULL);
    char *n = line_with(s, "label=\"Array#each");
    ck_assert_has(n, "label=\"Array#each\\nself 20.0 ms\\n");
    ck_assert_has(n, "\\nimplemented in C\"");
    ck_assert_has(n, "style=\"filled,rounded,dashed\"");
    ck_assert_lacks(n, "2166ac");
    free(n);
    free(s);
}
END_TEST

START_TEST(colour_is_red_for_growth_blue_for_shrinkage_white_when_held)
{
    /* |change| / total = 1: the deepest red and blue. */
    char *s = render_one(0, 100 * MS, 100 * MS, NULL);
    ck_assert_has(s, "fillcolor=\"#b2182b\", color=\"#6a0e19\", fontcolor=\"#ffffff\"");
    free(s);
    s = render_one(100 * MS, 0, 100 * MS, NULL);
    ck_assert_has(s, "fillcolor=\"#2166ac\"");
    ck_assert_has(s, "fontcolor=\"#ffffff\"");
    ck_assert_has(s, "self 0 ns\\n(-100 ms, -100.0%)");
    free(s);
    s = render_one(50 * MS, 50 * MS, 100 * MS, NULL);
    ck_assert_has(s, "fillcolor=\"#f7f7f7\"");
    ck_assert_has(s, "self 50.0 ms\\ntotal");
    free(s);
    /* A quarter of the total is already the deepest. */
    s = render_one(50 * MS, 75 * MS, 100 * MS, NULL);
    ck_assert_has(s, "fillcolor=\"#b2182b\"");
    free(s);
    /* 1/64 of the total: sqrt scale puts it at the first stop. */
    s = render_one(50 * MS, 50 * MS + 1562500, 100 * MS, NULL);
    ck_assert_has(s, "fillcolor=\"#fddbc7\"");
    ck_assert_has(s, "self 51.6 ms\\n(+1.56 ms, ");
    free(s);
    s = render_one(50 * MS, 50 * MS - 1562500, 100 * MS, NULL);
    ck_assert_has(s, "fillcolor=\"#d1e5f0\"");
    ck_assert_has(s, "self 48.4 ms\\n(-1.56 ms, ");
    free(s);
}
END_TEST

START_TEST(intensity_is_relative_to_the_larger_total)
{
    /* The same 6.25 ms change is paler when the bigger run is 4x longer. */
    tg_model_method bm[] = { { "M#m", NULL, 0, false, 1, 50 * MS, 50 * MS } };
    tg_model_method hm[] = { { "M#m", NULL, 0, false, 1, 56250000, 56250000 } };
    tg_model b = { NULL, "wall", 400 * MS, bm, 1, NULL, 0, NULL }, h = { NULL, "wall", 100 * MS, hm, 1, NULL, 0, NULL };
    char *s = render(&b, &h, NULL);
    ck_assert_lacks(s, "fillcolor=\"#f4a582\"");   /* where 6.25 ms of 100 ms is */
    ck_assert_has(s, "fillcolor=\"#fddbc7\"");
    free(s);
}
END_TEST

START_TEST(size_follows_head_self_time)
{
    tg_model b = base_report(), h = head_report();
    char *s = render(&b, &h, NULL);
    char *work = line_with(s, "label=\"Object#work");
    ck_assert_has(work, "fontsize=24.0");   /* the biggest head self */
    free(work);
    char *each = line_with(s, "label=\"Array#each");
    ck_assert_has(each, "fontsize=16.1");   /* 9 + 15 sqrt(20/90) */
    free(each);
    free(s);
}
END_TEST

START_TEST(methods_with_the_same_name_are_summed)
{
    tg_model_method bm[] = { { "#<Class:0x1>#m", "/a.rb", 1, false, 2, 20 * MS, 20 * MS },
                              { "#<Class:0x1>#m", "/b.rb", 2, false, 3, 30 * MS, 30 * MS } };
    tg_model_method hm[] = { { "#<Class:0x1>#m", "/a.rb", 1, false, 10, 70 * MS, 70 * MS } };
    tg_model b = { NULL, "wall", 50 * MS, bm, 2, NULL, 0, NULL }, h = { NULL, "wall", 70 * MS, hm, 1, NULL, 0, NULL };
    char *s = render(&b, &h, NULL);
    ck_assert_uint_eq(count_of(s, "label=\"#<Class:0x1>#m"), 1);
    ck_assert_has(s, "self 70.0 ms\\n(+20.0 ms, +40.0%)");
    ck_assert_has(s, "calls 5 " ARROW " 10");
    free(s);
}
END_TEST

/* ---- edges ---- */

START_TEST(edge_labels_and_ghost_edges)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = keep_all();
    char *s = render(&b, &h, &o);
    char *e = line_with(s, "  N1 -> N2 [");
    ck_assert_str_eq(e, "  N1 -> N2 [label=\" " TIMES "450 \\n 130 ms \\n (+30.0 ms) \", "
                        "tooltip=\"<main> " ARROW " Object#work\\ncalls: 300 " ARROW " 450\\n"
                        "total: 100 ms " ARROW " 130 ms (+30.0 ms, +30.0%)\", "
                        "penwidth=5.6, color=\"#732022\", weight=22];");
    free(e);
    e = line_with(s, "label=\" " TIMES "9 ");
    ck_assert_has(e, "label=\" " TIMES "9 \\n 30.0 ms \\n (new) \"");
    ck_assert_has(e, "\\nnew in head\"");
    free(e);
    /* work -> old and work -> each exist only in base: dashed, blue, base numbers. */
    e = line_with(s, "gone \\n was " TIMES "20 ");
    ck_assert_has(e, "label=\" gone \\n was " TIMES "20 \\n 30.0 ms \"");
    ck_assert_has(e, "color=\"#2166ac\"");
    ck_assert_has(e, "style=dashed");
    ck_assert_has(e, "weight=1");
    free(e);
    ck_assert_uint_eq(count_of(s, "style=dashed]"), 2);
    /* Head's edges first, heaviest first; then ghosts. */
    ck_assert((uintptr_t)strstr(s, "  N1 -> N2") < (uintptr_t)strstr(s, "(new) \""));
    ck_assert((uintptr_t)strstr(s, "(new) \"") < (uintptr_t)strstr(s, "gone \\n"));
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(paths_through_hidden_methods_are_dotted)
{
    /* a -> mid -> z in head; mid is tiny and cut, so a and z are joined by a dotted edge. */
    tg_model_method m[] = { { "A#a", NULL, 0, false, 1, 100 * MS, 50 * MS },
                             { "Mid#m", NULL, 0, false, 1, 50 * MS, 0 },
                             { "Z#z", NULL, 0, false, 1, 50 * MS, 50 * MS } };
    tg_model_edge e[] = { { 0, 1, 1, 50 * MS, 0 }, { 1, 2, 1, 50 * MS, 50 * MS } };
    tg_model b = { NULL, "wall", 100 * MS, m, 3, e, 2, NULL }, h = b;
    tg_diff_dot_options o = keep_all();
    o.max_nodes = 2;
    char *s = render(&b, &h, &o);
    ck_assert_lacks(s, "label=\"Mid#m");
    ck_assert_has(s, "label=\" via 1 frame \", tooltip=\"A#a " ARROW_TIP " Z#z\\nhead calls via 1 hidden frame\\n  Mid#m\"");
    ck_assert_has(s, "style=dotted");
    ck_assert_has(s, "Capped at 2 boxes: 1 more dropped");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(invalid_edge_indexes_are_ignored)
{
    tg_model_method m[] = { { "A#a", NULL, 0, false, 1, 10 * MS, 10 * MS } };
    tg_model_edge e[] = { { 0, 7, 1, 1, 1 }, { 9, 0, 1, 1, 1 } };
    tg_model b = { NULL, "wall", 10 * MS, m, 1, e, 2, NULL }, h = b;
    char *s = render(&b, &h, NULL);
    ck_assert_lacks(s, "->");
    free(s);
}
END_TEST

/* ---- normalization ---- */

START_TEST(normalize_scales_base_to_head_total)
{
    /* Head ran twice as long with the same shape: normalized, nothing changed. */
    tg_model_method bm[] = { { "A#a", NULL, 0, false, 1, 100 * MS, 40 * MS },
                              { "B#b", NULL, 0, false, 5, 60 * MS, 60 * MS } };
    tg_model_method hm[] = { { "A#a", NULL, 0, false, 2, 200 * MS, 80 * MS },
                              { "B#b", NULL, 0, false, 10, 120 * MS, 120 * MS } };
    tg_model_edge e[] = { { 0, 1, 5, 60 * MS, 60 * MS } };
    tg_model_edge he[] = { { 0, 1, 10, 120 * MS, 120 * MS } };
    tg_model b = { NULL, "wall", 100 * MS, bm, 2, e, 1, NULL }, h = { NULL, "wall", 200 * MS, hm, 2, he, 1, NULL };

    char *raw = render(&b, &h, NULL);
    ck_assert_has(raw, "self 120 ms\\n(+60.0 ms, +100.0%)");
    ck_assert_has(raw, "Not normalized: base times as measured\\l");
    ck_assert_lacks(raw, "fillcolor=\"#f7f7f7\"");
    free(raw);

    tg_diff_dot_options o;
    tg_diff_dot_options_default(&o);
    o.normalize = true;
    char *s = render(&b, &h, &o);
    ck_assert_has(s, "Normalized: base times scaled " TIMES "2.000 to head's total\\l");
    /* The totals line keeps the raw numbers: the run did get slower. */
    ck_assert_has(s, "total 100 ms " ARROW " 200 ms (+100.0%)");
    ck_assert_has(s, "self 120 ms\\ntotal");
    ck_assert_has(s, "self 80.0 ms\\ntotal");
    ck_assert_has(s, "calls 5 " ARROW " 10");   /* call counts are never scaled */
    ck_assert_uint_eq(count_of(s, "fillcolor=\"#f7f7f7\""), 2);
    ck_assert_has(s, TIMES "10 \\n 120 ms \"");
    free(s);
}
END_TEST

/* ---- pruning ---- */

START_TEST(pruning_uses_the_heavier_side)
{
    /* Old#big was 50% of base and is gone; Tiny#t is small in both. */
    tg_model_method bm[] = { { "Main#m", NULL, 0, false, 1, 100 * MS, 50 * MS },
                              { "Old#big", NULL, 0, false, 1, 50 * MS, 50 * MS } };
    tg_model_method hm[] = { { "Main#m", NULL, 0, false, 1, 100 * MS, 99 * MS },
                              { "Tiny#t", NULL, 0, false, 1, 1 * MS, 1 * MS } };
    tg_model_edge be[] = { { 0, 1, 1, 50 * MS, 50 * MS } };
    tg_model_edge he[] = { { 0, 1, 1, 1 * MS, 1 * MS } };
    tg_model b = { NULL, "wall", 100 * MS, bm, 2, be, 1, NULL }, h = { NULL, "wall", 100 * MS, hm, 2, he, 1, NULL };
    tg_diff_dot_options o;
    tg_diff_dot_options_default(&o);
    o.node_fraction = 0.02;
    char *s = render(&b, &h, &o);
    ck_assert_has(s, "label=\"Old#big\\ngone (only in base)");
    ck_assert_lacks(s, "label=\"Tiny#t");
    ck_assert_has(s, "Showing 2 of 3 methods (1 new in head, 1 gone from base)\\l");
    ck_assert_has(s, "Dropped 1 node (total < 2.00 ms in both)\\l");
    free(s);

    /* The cap ranks by max(head, base) too: Old#big beats Tiny#t. */
    o = keep_all();
    o.max_nodes = 2;
    s = render(&b, &h, &o);
    ck_assert_has(s, "label=\"Old#big");
    ck_assert_lacks(s, "label=\"Tiny#t");
    ck_assert_has(s, "Capped at 2 boxes: 1 more dropped (total \xE2\x89\xA4 1.00 ms)\\l");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(edge_fraction_drops_edges_small_in_both)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = keep_all();
    o.edge_fraction = 0.01;   /* 1.5 ms: work -> each (1 ms, base only) goes */
    char *s = render(&b, &h, &o);
    ck_assert_uint_eq(count_of(s, "style=dashed]"), 1);
    ck_assert_has(s, "Dropped 1 edge (total < 1.50 ms in both)\\l");
    free(s);
}
END_TEST

/* ---- determinism and escaping ---- */

START_TEST(output_is_deterministic_and_order_independent)
{
    tg_model b = base_report(), h = head_report();
    char *x = render(&b, &h, NULL), *y = render(&b, &h, NULL);
    ck_assert_str_eq(x, y);
    /* Both models with their methods and edges reversed. */
    tg_model_method rb[4], rh[4];
    tg_model_edge rbe[4], rhe[3];
    for (int i = 0; i < 4; i++) {
        rb[3 - i] = base_methods[i];
        rh[3 - i] = head_methods[i];
    }
    for (int i = 0; i < 4; i++) {
        rbe[3 - i] = base_edges[i];
        rbe[3 - i].caller = 3 - base_edges[i].caller;
        rbe[3 - i].callee = 3 - base_edges[i].callee;
    }
    for (int i = 0; i < 3; i++) {
        rhe[2 - i] = head_edges[i];
        rhe[2 - i].caller = 3 - head_edges[i].caller;
        rhe[2 - i].callee = 3 - head_edges[i].callee;
    }
    tg_model b2 = { b.program, b.clock, b.total_time, rb, 4, rbe, 4, NULL };
    tg_model h2 = { h.program, h.clock, h.total_time, rh, 4, rhe, 3, NULL };
    char *z = render(&b2, &h2, NULL);
    ck_assert_str_eq(x, z);
    free(x);
    free(y);
    free(z);
}
END_TEST

START_TEST(swapping_base_and_head_swaps_the_story)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = keep_all();
    char *s = render(&h, &b, &o);
    ck_assert_has(s, "label=\"Object#fresh\\n/app/lib/fresh.rb:7\\ngone (only in base)");
    ck_assert_has(s, "label=\"Object#old\\n/app/lib/old.rb:5\\nnew (only in head)");
    ck_assert_has(s, "self 60.0 ms\\n(-30.0 ms, -33.3%)");
    ck_assert_has(s, "total 150 ms " ARROW " 120 ms (-20.0%)");
    free(s);
}
END_TEST

START_TEST(tricky_names_are_escaped_and_dot_is_silent)
{
    static char huge[5 * 1024 + 1];
    memset(huge, 'x', sizeof huge - 1);
    tg_model_method bm[] = {
        { "a\"b\\c", "/app/c \"q\".rb", 3, false, 1, 600 * MS, 100 * MS },
        { "bad\xFF\xFE\xC3", "/app/\xFF.rb", 5, false, 1, 300 * MS, 100 * MS },
        { "multi\nline\r\tname\x01", NULL, 0, false, 1, 100 * MS, 100 * MS },
        { "{ a | b } <c> & d", NULL, 0, true, 1, 400 * MS, 100 * MS },
    };
    tg_model_method hm[] = {
        { "a\"b\\c", "/app/c \"q\".rb", 3, false, 1, 700 * MS, 200 * MS },
        { "\\N \\G \\l \\", NULL, 0, false, 1, 50 * MS, 50 * MS },
        { huge, "/app/huge.rb", 6, false, 1, 200 * MS, 100 * MS },
        { "{ a | b } <c> & d", NULL, 0, true, 1, 400 * MS, 100 * MS },
    };
    tg_model_edge be[] = { { 0, 1, 1, 300 * MS, 1 }, { 0, 2, 1, 100 * MS, 1 }, { 0, 3, 1, 1 * MS, 1 } };
    tg_model_edge he[] = { { 0, 1, 1, 50 * MS, 1 }, { 0, 2, 1, 200 * MS, 1 }, { 2, 3, 1, 400 * MS, 1 } };
    tg_model b = { "prog \"x\"\n.rb", "wall\\", 1000 * MS, bm, 4, be, 3, NULL };
    tg_model h = { "prog2\\", "wall\\", 1000 * MS, hm, 4, he, 3, NULL };
    tg_diff_dot_options o = keep_all();
    o.cwd = "/app";
    char *s = render(&b, &h, &o);
    ck_assert_has(s, "label=\"a\\\"b\\\\c\\nc \\\"q\\\".rb:3\\n");
    ck_assert_has(s, "label=\"bad\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\\n\xEF\xBF\xBD.rb:5\\ngone");
    ck_assert_has(s, "label=\"multi\\\\nline\\\\r\\\\tname\\\\x01\\ngone");
    ck_assert_has(s, "label=\"\\\\N \\\\G \\\\l \\\\\\nnew");
    ck_assert_has(s, "label=\"{ a | b } <c> & d\\n");
    ck_assert_has(s, "tracegraph diff: prog \\\"x\\\"\\\\n.rb " ARROW " prog2\\\\\\l");
    ck_assert_has(s, "Clock: wall\\\\\\l");
    char want[200];
    want[0] = '\0';
    for (int i = 0; i < 6; i++) {   /* in lines of 28 characters: it has nowhere to break */
        size_t at = strlen(want);
        memset(want + at, 'x', i < 5 ? 28 : 17);
        strcpy(want + at + (i < 5 ? 28 : 17), i < 5 ? "\\n" : "");
    }
    strcat(want, "\xE2\x80\xA6\\nhuge.rb:6\\nnew");
    ck_assert_has(s, want);
    for (const char *p = s; *p; p++) ck_assert(*p == '\n' || (unsigned char)*p >= 0x20);
    assert_dot_accepts(s);
    free(s);
}
END_TEST

/* ---- allocations ---- */

/*
 * The reference pair's allocation counts, in each model's method and
 * edge order. Base (1,245 objects): <main> 5 of its own, work 1,000, old
 * 40, each 200 (called from <main>). Head (1,412): work 1,300 (+30%),
 * each 100 (-50%), <main> 5 (held), fresh 7 (new).
 */
static const uint64_t base_self_allocs[] = { 5, 1000, 40, 200 };
static const uint64_t base_total_allocs[] = { 1245, 1040, 40, 200 };
static const uint64_t base_edge_allocs[] = { 1040, 40, 200, 0 };
static const uint64_t head_self_allocs[] = { 100, 1300, 5, 7 };
static const uint64_t head_total_allocs[] = { 100, 1307, 1412, 7 };
static const uint64_t head_edge_allocs[] = { 1307, 7, 100 };
static const tg_diff_dot_allocations base_allocs = { base_self_allocs, base_total_allocs, base_edge_allocs, 1245 };
static const tg_diff_dot_allocations head_allocs = { head_self_allocs, head_total_allocs, head_edge_allocs, 1412 };

static tg_diff_dot_options by_allocations(void)
{
    tg_diff_dot_options o = keep_all();
    o.base_allocations = &base_allocs;
    o.head_allocations = &head_allocs;
    o.metric = TG_DOT_BY_ALLOCATIONS;
    return o;
}

START_TEST(by_allocations_legend_says_so_and_dot_accepts_it)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = by_allocations();
    char *s = render(&b, &h, &o);
    ck_assert_has(s, "\\lAllocations: 1,245 " ARROW " 1,412 objects (+13.4%)\\lallocs = a box's own\\l");
    ck_assert_has(s, "\\lBox size = head self allocations\\lColour = change in self allocations\\l");
    ck_assert_has(s, "\\lEdge width = allocations in the call " DOT_ " colour = their change\\l");
    ck_assert_has(s, "\\lRed = grew, blue = shrank, white = held\\l(deepest from a change of 25% of the run's objects)\\l");
    ck_assert_lacks(s, "Box size = head self time");
    ck_assert_has(s, "<td colspan=\"7\">change in self allocations, as a share of all the run's objects</td>");
    /* The swatch is the same scale as time's. */
    ck_assert_has(s, "<td bgcolor=\"#b2182b\"><font color=\"#ffffff\">+25%</font></td>");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(by_allocations_labels_golden)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = by_allocations();
    o.cwd = "/app";
    char *s = render(&b, &h, &o);
    /* <main> holds the most objects, then work: N1 and N2. */
    char *n2 = line_with(s, "  N2 [");
    ck_assert_str_eq(n2,
        "  N2 [label=\"Object#work\\nlib/work.rb:10\\nself 90.0 ms\\n(+30.0 ms, +50.0%)\\n"
        "total 130 ms\\n(+30.0 ms, +30.0%)\\nallocs 1,000 " ARROW " 1,300\\n(+30.0%)\\ncalls 300 " ARROW " 450\", "
        "tooltip=\"Object#work\\n/app/lib/work.rb:10\\nself: 60.0 ms " ARROW " 90.0 ms (+30.0 ms, +50.0%)\\n"
        "total: 100 ms " ARROW " 130 ms (+30.0 ms, +30.0%)\\n"
        "self allocations: 1,000 " ARROW " 1,300 (+300, +30.0%)\\n"
        "total allocations: 1,040 " ARROW " 1,307 (+267, +25.7%)\\ncalls: 300 " ARROW " 450\", "
        "fontsize=24.0, fillcolor=\"#bd2e36\", color=\"#711b20\", fontcolor=\"#ffffff\"];");
    free(n2);
    /* Held objects are neutral grey, however its time moved. */
    char *n1 = line_with(s, "  N1 [");
    ck_assert_has(n1, "\\ntotal 150 ms\\n(+30.0 ms, +25.0%)\\nallocs 5\\n1 call\"");
    ck_assert_has(n1, "fillcolor=\"#f7f7f7\"");
    free(n1);
    /* Each allocates half as much: blue, though its time held. */
    char *each = line_with(s, "label=\"Array#each");
    ck_assert_has(each, "\\nself 20.0 ms\\ntotal 20.0 ms\\nallocs 200 " ARROW " 100\\n(-50.0%)\\n");
    ck_assert_has(each, "fillcolor=\"#88bfdb\"");
    ck_assert_has(each, "fontsize=13.2");   /* 9 + 15 sqrt(100/1,300) */
    free(each);
    char *fresh = line_with(s, "label=\"Object#fresh");
    ck_assert_has(fresh, "\\nnew (only in head)\\nself 30.0 ms\\ntotal 30.0 ms\\nallocs 7\\n9 calls\"");
    ck_assert_has(fresh, "\\nself allocations: none " ARROW " 7 (+7)\\n");
    free(fresh);
    char *old = line_with(s, "label=\"Object#old");
    ck_assert_has(old, "\\ngone (only in base)\\nbase self 30.0 ms\\nbase total 30.0 ms\\nbase allocs 40\\n"
                       "base 20 calls\"");
    ck_assert_has(old, "\\nself allocations: 40 " ARROW " none (-40, -100.0%)\\n");
    ck_assert_has(old, "fontsize=11.6");    /* sized by its base self allocations: 9 + 15 sqrt(40/1,300) */
    ck_assert_has(old, "style=\"filled,rounded,dashed\"");
    free(old);
    free(s);
}
END_TEST

START_TEST(by_allocations_edges_carry_objects)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = by_allocations();
    char *s = render(&b, &h, &o);
    char *e = line_with(s, "  N1 -> N2 [");
    ck_assert_str_eq(e, "  N1 -> N2 [label=\" " TIMES "450 \\n 130 ms " DOT_ " 1,307 objects \\n (+267) \", "
                        "tooltip=\"<main> " ARROW " Object#work\\ncalls: 300 " ARROW " 450\\n"
                        "total: 100 ms " ARROW " 130 ms (+30.0 ms, +30.0%)\\n"
                        "allocations: 1,040 " ARROW " 1,307 (+267, +25.7%)\", "
                        "penwidth=5.8, color=\"#762524\", weight=24];");
    free(e);
    e = line_with(s, "label=\" " TIMES "9 ");
    ck_assert_has(e, "label=\" " TIMES "9 \\n 30.0 ms " DOT_ " 7 objects \\n (new) \"");
    free(e);
    e = line_with(s, "gone \\n was " TIMES "20 ");
    ck_assert_has(e, "label=\" gone \\n was " TIMES "20 \\n 30.0 ms " DOT_ " 40 objects \"");
    ck_assert_has(e, "style=dashed");
    free(e);
    /* work -> each allocated nothing in base (and is gone): the lightest, drawn last. */
    e = line_with(s, "gone \\n was " TIMES "1 ");
    ck_assert_has(e, "0 objects \"");
    ck_assert((uintptr_t)strstr(s, "was " TIMES "20 ") < (uintptr_t)strstr(s, "was " TIMES "1 "));
    free(e);
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(by_allocations_pruning_counts_objects)
{
    /* Slow#s takes most of the time and allocates nothing; Garbage#g the reverse. */
    tg_model_method m[] = { { "Main#m", NULL, 0, false, 1, 100 * MS, 1 * MS },
                             { "Slow#s", NULL, 0, false, 1, 90 * MS, 90 * MS },
                             { "Garbage#g", NULL, 0, false, 1, 9 * MS, 9 * MS } };
    tg_model_edge e[] = { { 0, 1, 1, 90 * MS, 90 * MS }, { 0, 2, 1, 9 * MS, 9 * MS } };
    tg_model r = { NULL, "cpu", 100 * MS, m, 3, e, 2, NULL };
    uint64_t self[] = { 10, 0, 990 }, total[] = { 1000, 0, 990 }, edges[] = { 0, 990 };
    tg_diff_dot_allocations a = { self, total, edges, 1000 };
    tg_diff_dot_options o;
    tg_diff_dot_options_default(&o);
    o.base_allocations = o.head_allocations = &a;
    char *s = render(&r, &r, &o);
    ck_assert_has(s, "label=\"Slow#s");   /* by time, Slow#s is the heaviest callee */
    ck_assert_has(s, "\\nallocs 0\\n");   /* labels give the counts either way */
    ck_assert_has(s, "Box size = head self time");
    free(s);

    o.metric = TG_DOT_BY_ALLOCATIONS;
    s = render(&r, &r, &o);
    ck_assert_lacks(s, "label=\"Slow#s");
    ck_assert_has(s, "label=\"Garbage#g");
    ck_assert_has(s, "Dropped 1 node (total < 5 objects in both)\\l");
    free(s);

    o.node_fraction = 0;
    o.edge_fraction = 0;
    o.max_nodes = 2;
    s = render(&r, &r, &o);
    ck_assert_lacks(s, "label=\"Slow#s");
    ck_assert_has(s, "Capped at 2 boxes: 1 more dropped (total \xE2\x89\xA4 0 objects)\\l");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(by_allocations_needs_both_reports_counts)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = keep_all();
    char *plain = render(&b, &h, &o);
    o.metric = TG_DOT_BY_ALLOCATIONS;   /* without counts: by time, as if not asked */
    char *s = render(&b, &h, &o);
    ck_assert_str_eq(s, plain);
    free(s);
    o.head_allocations = &head_allocs;   /* one side alone is ignored */
    s = render(&b, &h, &o);
    ck_assert_str_eq(s, plain);
    ck_assert_lacks(s, "allocs");
    free(s);
    free(plain);
}
END_TEST

START_TEST(allocation_counts_are_never_normalized)
{
    tg_model b = base_report(), h = head_report();
    tg_diff_dot_options o = by_allocations();
    o.normalize = true;
    char *s = render(&b, &h, &o);
    ck_assert_has(s, "\\lNormalized: base times scaled " TIMES "1.250 to head's total\\l    (allocation counts "
                     "are never scaled)\\l");
    ck_assert_has(s, "\\nallocs 1,000 " ARROW " 1,300\\n(+30.0%)\\n");
    ck_assert_has(s, "self 90.0 ms\\n(+15.0 ms, +20.0%)");   /* the times are scaled */
    free(s);
}
END_TEST

START_TEST(a_count_from_none_shows_the_objects)
{
    tg_model_method bm[] = { { "M#m", NULL, 0, false, 1, 10 * MS, 10 * MS } };
    tg_model b = { NULL, "cpu", 10 * MS, bm, 1, NULL, 0, NULL };
    uint64_t zero[] = { 0 }, seven[] = { 7 };
    tg_diff_dot_allocations none = { zero, zero, NULL, 0 }, some = { seven, seven, NULL, 7 };
    tg_diff_dot_options o = keep_all();
    o.base_allocations = &none;
    o.head_allocations = &some;
    o.metric = TG_DOT_BY_ALLOCATIONS;
    char *s = render(&b, &b, &o);
    ck_assert_has(s, "\\nallocs 0 " ARROW " 7\\n(+7)\\n");
    ck_assert_has(s, "fillcolor=\"#b2182b\"");   /* all the run's objects: the deepest red */
    ck_assert_has(s, "Allocations: 0 " ARROW " 7 objects (+7)");
    free(s);
}
END_TEST

/* ---- large graphs ---- */

/* ---- focus and ignore ---- */

/* The boxes drawn, by the first line of their label, in drawing order, joined by "|". */
static void box_names(const char *s, char *out, size_t size)
{
    out[0] = '\0';
    for (const char *p = strstr(s, "\n  N"); p; p = strstr(p + 1, "\n  N")) {
        const char *label = strstr(p, " [label=\""), *arrow = strstr(p, " -> ");
        if (!label || (arrow && arrow < label)) continue;   /* an edge */
        label += strlen(" [label=\"");
        size_t n = (size_t)(strstr(label, "\\n") - label), room = size - strlen(out) - 1;
        if (out[0] && room) {
            strcat(out, "|");
            room--;
        }
        strncat(out, label, n < room ? n : room);
    }
}

/* A focus on a method only head has: it, its caller and the path to the
 * root; old (work's callee only in base) and each are unrelated. */
START_TEST(focus_draws_the_match_its_callers_and_the_path_to_the_root)
{
    tg_model b = base_report(), h = head_report();
    static const uint8_t head_focus[] = { 0, 0, 0, 1 };   /* Object#fresh */
    tg_diff_dot_options o;
    tg_diff_dot_options_default(&o);
    o.head_focus = head_focus;
    char *s = render(&b, &h, &o), names[256];
    box_names(s, names, sizeof names);
    ck_assert_str_eq(names, "<main>|Object#work|Object#fresh");
    ck_assert_has(s, "\\lFocus: 1 match, shown; 2 unrelated methods hidden\\l");
    ck_assert_has(s, "  N2 -> N3 [label=\" " TIMES "9 \\n 30.0 ms \\n (new) \"");
    free(s);

    /* A method only base had matches through base's flags, and is drawn as its ghost. */
    static const uint8_t base_focus[] = { 0, 0, 1, 0 };   /* Object#old */
    o.head_focus = NULL;
    o.base_focus = base_focus;
    s = render(&b, &h, &o);
    box_names(s, names, sizeof names);
    ck_assert_str_eq(names, "<main>|Object#work|Object#old");
    ck_assert_has(s, "label=\"Object#old\\n/app/lib/old.rb:5\\ngone (only in base)");
    free(s);
}
END_TEST

/* Ignoring work (flagged in head only: matched by name, it goes from both)
 * leaves <main> calling fresh through it, dotted. */
START_TEST(ignore_hides_a_method_and_dots_the_paths_through_it)
{
    tg_model b = base_report(), h = head_report();
    static const uint8_t head_ignore[] = { 0, 1, 0, 0 };   /* Object#work */
    tg_diff_dot_options o = keep_all();
    o.head_ignore = head_ignore;
    char *s = render(&b, &h, &o), names[256];
    box_names(s, names, sizeof names);
    ck_assert_str_eq(names, "<main>|Object#fresh|Object#old|Array#each");
    ck_assert_has(s, "\\lIgnored 1 method\\l");
    ck_assert_has(s, "  N1 -> N2 [label=\" via 1 frame \"");
    ck_assert_lacks(s, "label=\"Object#work");
    free(s);
}
END_TEST

START_TEST(five_hundred_nodes_lay_out)
{
    enum { N = 500 };
    static tg_model_method bm[N], hm[N];
    static tg_model_edge be[N], he[N];
    static char names[N][32];
    for (uint32_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "Mod%u#meth_%u", i % 37, i);
        uint64_t t = (uint64_t)(N - i) * MS;
        bm[i] = (tg_model_method){ names[i], "/app/x.rb", (int)i + 1, i % 5 == 0, 1 + i, t, t / 3 };
        hm[i] = (tg_model_method){ names[i], "/app/x.rb", (int)i + 1, i % 5 == 0, 2 + i, t + (i % 7) * MS,
                                    t / 3 + (i % 7) * MS };
        if (i) {
            be[i - 1] = (tg_model_edge){ (i - 1) / 2, i, 1, t / 2, 1 };
            he[i - 1] = (tg_model_edge){ (i - 1) / 3, i, 1, t / 2, 1 };
        }
    }
    tg_model b = { "big.rb", "cpu", (uint64_t)N * MS, bm, N - 7, be, N - 8, NULL };   /* last 7 are new */
    tg_model h = { "big.rb", "cpu", (uint64_t)N * MS, hm, N - 3, he, N - 4, NULL };   /* 4 are gone */
    tg_diff_dot_options o = keep_all();
    char *s = render(&b, &h, &o);
    ck_assert_uint_eq(count_of(s, "[label=\"Mod"), N - 3);
    ck_assert_has(s, "nslimit=");
    ck_assert_lacks(s, "label=\" " TIMES);
    assert_dot_accepts(s);
    free(s);
    s = render(&b, &h, NULL);
    ck_assert_uint_eq(count_of(s, "[label=\"Mod"), 80);
    assert_dot_accepts(s);
    free(s);
}
END_TEST

static Suite *diff_dot_suite(void)
{
    Suite *s = suite_create("diff_dot");
    TCase *tc = tcase_create("render");
    tcase_add_test(tc, defaults_match_tg_dot);
    tcase_add_test(tc, graph_header_legend_and_dot_accepts_it);
    tcase_add_test(tc, arrows_with_calls_only);
    tcase_add_test(tc, empty_pair_has_only_the_legend);
    tcase_add_test(tc, programs_and_clocks_that_differ_are_named);
    tcase_add_test(tc, changed_node_label_golden);
    tcase_add_test(tc, new_method_is_marked_new);
    tcase_add_test(tc, vanished_method_is_a_dashed_blue_ghost_with_base_numbers);
    tcase_add_test(tc, c_methods_keep_the_dashed_border);
    tcase_add_test(tc, colour_is_red_for_growth_blue_for_shrinkage_white_when_held);
    tcase_add_test(tc, intensity_is_relative_to_the_larger_total);
    tcase_add_test(tc, size_follows_head_self_time);
    tcase_add_test(tc, methods_with_the_same_name_are_summed);
    tcase_add_test(tc, edge_labels_and_ghost_edges);
    tcase_add_test(tc, paths_through_hidden_methods_are_dotted);
    tcase_add_test(tc, invalid_edge_indexes_are_ignored);
    tcase_add_test(tc, normalize_scales_base_to_head_total);
    tcase_add_test(tc, pruning_uses_the_heavier_side);
    tcase_add_test(tc, edge_fraction_drops_edges_small_in_both);
    tcase_add_test(tc, output_is_deterministic_and_order_independent);
    tcase_add_test(tc, swapping_base_and_head_swaps_the_story);
    tcase_add_test(tc, tricky_names_are_escaped_and_dot_is_silent);
    tcase_add_test(tc, by_allocations_legend_says_so_and_dot_accepts_it);
    tcase_add_test(tc, by_allocations_labels_golden);
    tcase_add_test(tc, by_allocations_edges_carry_objects);
    tcase_add_test(tc, by_allocations_pruning_counts_objects);
    tcase_add_test(tc, by_allocations_needs_both_reports_counts);
    tcase_add_test(tc, allocation_counts_are_never_normalized);
    tcase_add_test(tc, a_count_from_none_shows_the_objects);
    tcase_add_test(tc, focus_draws_the_match_its_callers_and_the_path_to_the_root);
    tcase_add_test(tc, ignore_hides_a_method_and_dots_the_paths_through_it);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    TCase *large = tcase_create("large");
    tcase_add_test(large, five_hundred_nodes_lay_out);
    tcase_set_timeout(large, 300);
    suite_add_tcase(s, large);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(diff_dot_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

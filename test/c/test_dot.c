/*
 * test_dot.c - the DOT call graph: labels, sizes, colours, pruning,
 * dotted paths, legend, determinism, escaping, and that `dot` itself
 * lays the output out without a single warning.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dot_checks.h"
#include "tg_dot.h"

#define MS 1000000ull
#define TIMES "\xC3\x97"   /* × */
#define DOT_ "\xC2\xB7"    /* · */

/* ---- helpers ---- */

static tg_dot_options keep_all(void)
{
    tg_dot_options o;
    tg_dot_options_default(&o);
    o.node_fraction = 0;
    o.edge_fraction = 0;
    o.max_nodes = 0;
    return o;
}

static char *render(const tg_model *r, const tg_dot_options *o)
{
    size_t len = 0;
    char *s = tg_dot_render(r, o, &len);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(len, strlen(s));
    return s;
}

/* The whole DOT statement (one line) that starts with `head`. */
static char *line_of(const char *s, const char *head)
{
    const char *p = strstr(s, head);
    ck_assert_msg(p != NULL, "no line starting %s", head);
    const char *end = strchr(p, '\n');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char *line = malloc(n + 1);
    memcpy(line, p, n);
    line[n] = '\0';
    return line;
}

/*
 * The reference model, times in ms (total 1 s):
 *
 *   main (1000 total) -> work (900) -> each [C] (500) -> Hash#[]= [C] (300)
 *                                              \-> <=> (120)
 *                          work -> fib (60) -> fib (self-loop)
 *   main -> tiny (2)
 */
enum { MAIN, WORK, EACH, ASET, CMP, FIB, TINY, NREF };

static const tg_model_method ref_methods[NREF] = {
    [MAIN] = { "<main>", "/app/demo.rb", 1, false, 1, 1000 * MS, 1 * MS },
    [WORK] = { "Object#work", "/app/lib/work.rb", 10, false, 3, 900 * MS, 200 * MS },
    [EACH] = { "Array#each", NULL, 0, true, 4, 500 * MS, 80 * MS },
    [ASET] = { "Hash#[]=", NULL, 0, true, 15000, 300 * MS, 300 * MS },
    [CMP] = { "Comparable#<=>", "/usr/lib/ruby/3.2.0/compare.rb", 3, false, 100000, 120 * MS, 120 * MS },
    [FIB] = { "Kernel#fib", "/app/fib.rb", 1, false, 177, 60 * MS, 60 * MS },
    [TINY] = { "Tiny#t", "/app/t.rb", 2, false, 1, 2 * MS, 2 * MS },
};

static const tg_model_edge ref_edges[] = {
    { MAIN, WORK, 3, 900 * MS, 200 * MS },
    { WORK, EACH, 4, 500 * MS, 80 * MS },
    { EACH, ASET, 15000, 300 * MS, 300 * MS },
    { EACH, CMP, 100000, 120 * MS, 120 * MS },
    { WORK, FIB, 1, 60 * MS, 1 * MS },
    { FIB, FIB, 176, 59 * MS, 59 * MS },
    { MAIN, TINY, 1, 2 * MS, 2 * MS },
};

static tg_model ref_report(void)
{
    return (tg_model){ "examples/demo.rb", "wall", 1000 * MS, ref_methods, NREF,
                        ref_edges, sizeof ref_edges / sizeof ref_edges[0], NULL };
}

/* ---- options ---- */

START_TEST(defaults_match_pprof)
{
    tg_dot_options o;
    memset(&o, 0xAB, sizeof o);
    tg_dot_options_default(&o);
    ck_assert(o.node_fraction == 0.005);
    ck_assert(o.edge_fraction == 0.001);
    ck_assert_uint_eq(o.max_nodes, 80);
    ck_assert_ptr_null(o.focus);
    ck_assert_ptr_null(o.ignore);
    ck_assert_ptr_null(o.cwd);
}
END_TEST

/* ---- graph shell ---- */

START_TEST(graph_header_and_legend_at_top)
{
    tg_model r = ref_report();
    char *s = render(&r, NULL);
    ck_assert(strncmp(s, "digraph tracegraph {\n", 21) == 0);
    ck_assert_has(s, "rankdir=TB");
    ck_assert_has(s, "fontname=\"Helvetica\"");
    ck_assert_has(s, "node [shape=box, style=\"filled,rounded\"");
    ck_assert_has(s, "{ rank=source; legend [shape=note");
    ck_assert_lacks(s, "record");
    ck_assert_lacks(s, "label=<");
    ck_assert(strcmp(s + strlen(s) - 2, "}\n") == 0);
    assert_dot_accepts(s);
    free(s);
}
END_TEST

/* A grouped profile without a call tree knows its arrows' calls, not
 * their times: each arrow says its calls alone, thin and grey. */
START_TEST(arrows_with_calls_only)
{
    tg_model r = ref_report();
    tg_dot_options o;
    tg_dot_options_default(&o);
    o.edge_calls_only = true;
    char *s = render(&r, &o);
    char *e = line_of(s, "  N1 -> N2 [");   /* main -> work: 3 calls, 900 ms */
    ck_assert_has(e, "label=\" \xC3\x97" "3 \", ");
    ck_assert_has(e, "\\n3 calls (times not counted: see the legend)\"");
    ck_assert_has(e, "color=\"#5b5b5b\"");   /* grey, as the edges' shade draws it */
    ck_assert_lacks(e, "900");
    ck_assert_lacks(e, "total:");
    free(e);
    ck_assert_has(s, "Edge = calls (grey: their time is not known)");
    ck_assert_lacks(s, "Edge width and colour");
    assert_dot_accepts(s);
    free(s);
    o.edge_calls_only = false;
    s = render(&r, &o);
    e = line_of(s, "  N1 -> N2 [");
    ck_assert_has(e, "\xC3\x97" "3 \\n 900 ms");
    free(e);
    free(s);
}
END_TEST

/* A view of a profile (grouped, chains folded) says the profile's calls. */
START_TEST(the_legend_gives_the_profiles_calls)
{
    tg_model r = ref_report();
    char *s = render(&r, NULL);
    ck_assert_has(s, "total 1.00 s \xC2\xB7 115,186 calls\\l");
    free(s);
    tg_dot_options o;
    tg_dot_options_default(&o);
    o.total_calls = 120000;
    s = render(&r, &o);
    ck_assert_has(s, "total 1.00 s \xC2\xB7 120,000 calls\\l");
    free(s);
}
END_TEST

/* A method named by its file (a compiled Rails template) shows the path
 * once in its box; another method shows its file under its name. */
START_TEST(a_method_named_by_its_file_shows_it_once)
{
    tg_model_method ms[] = {
        {.name = "app/views/posts/_post.html.erb", .file = "/app/app/views/posts/_post.html.erb", .line = 1,
         .calls = 5, .total_time = 10, .self_time = 6},
        {.name = "Post#title", .file = "/app/app/models/post.rb", .line = 3, .calls = 5, .total_time = 4,
         .self_time = 4},
    };
    tg_model_edge es[] = {{.caller = 0, .callee = 1, .calls = 5, .total_time = 4, .self_time = 4}};
    tg_model r = {NULL, "wall", 10, ms, 2, es, 1, NULL};
    const char *shorts[] = {"app/views/posts/_post.html.erb", "app/models/post.rb"};
    /* drawn from another directory than the app's: the name is the path's end */
    const char *elsewhere[] = {"blog/app/views/posts/_post.html.erb", "blog/app/models/post.rb"};
    /* a method whose name only ends like its file's path does not count */
    const char *not_a_dir[] = {"xapp/views/posts/_post.html.erb", NULL};
    tg_dot_options o = keep_all();
    o.short_files = shorts;
    char *s = render(&r, &o);
    char *n1 = line_of(s, "  N1 [");
    ck_assert_has(n1, "label=\"app/views/posts/\\n_post.html.erb\\nself ");
    char *n2 = line_of(s, "  N2 [");
    ck_assert_has(n2, "label=\"Post#title\\napp/models/post.rb:3\\nself ");
    free(n1);
    free(n2);
    free(s);
    o.short_files = elsewhere;
    s = render(&r, &o);
    n1 = line_of(s, "  N1 [");
    ck_assert_has(n1, "label=\"app/views/posts/\\n_post.html.erb\\nself ");
    free(n1);
    free(s);
    o.short_files = not_a_dir;
    s = render(&r, &o);
    n1 = line_of(s, "  N1 [");
    ck_assert_has(n1, "label=\"app/views/posts/\\n_post.html.erb\\nxapp/");
    ck_assert_has(n1, "_post.html.erb:1\\nself ");
    free(n1);
    free(s);
}
END_TEST

START_TEST(empty_report_has_only_the_legend)
{
    tg_model r = { NULL, "cpu", 0, NULL, 0, NULL, 0, NULL };
    char *s = render(&r, NULL);
    ck_assert_has(s, "Nothing was recorded (0 methods).\\l");
    ck_assert_has(s, "Clock: cpu " DOT_ " total 0 ns " DOT_ " 0 calls\\l");
    ck_assert_lacks(s, "N1");
    ck_assert_lacks(s, "->");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

/* ---- nodes ---- */

START_TEST(node_label_and_tooltip_golden)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    o.cwd = "/app";
    char *s = render(&r, &o);
    char *n2 = line_of(s, "  N2 [");
    ck_assert_str_eq(n2,
        "  N2 [label=\"Object#work\\nlib/work.rb:10\\nself 200 ms (20.0%)\\ntotal 900 ms (90.0%)\\n3 calls\", "
        "tooltip=\"Object#work\\n/app/lib/work.rb:10\\nself: 200 ms (20.0%), 200,000,000 ns\\n"
        "total: 900 ms (90.0%), 900,000,000 ns\\ncalls: 3\", "
        "fontsize=21.2, fillcolor=\"#bf150f\", color=\"#720c09\", fontcolor=\"#ffffff\"];");
    free(n2);
    free(s);
}
END_TEST

START_TEST(allocations_in_the_box_the_tooltip_and_the_legend)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    o.cwd = "/app";
    /* By method: main, work, each, []=, <=>, fib, tiny. */
    const uint64_t self[NREF] = { 5, 1200, 0, 12000, 0, 3, 1 };
    const uint64_t total[NREF] = { 13209, 13203, 12000, 12000, 0, 3, 1 };
    o.self_allocations = self;
    o.allocations = total;
    o.total_allocations = 13209;
    char *s = render(&r, &o);
    char *n2 = line_of(s, "  N2 [");
    ck_assert_has(n2, "label=\"Object#work\\nlib/work.rb:10\\nself 200 ms (20.0%)\\ntotal 900 ms (90.0%)"
                      "\\nallocs 1,200 (9.08%)\\n3 calls\"");
    ck_assert_has(n2, "\\ncalls: 3\\nallocations: self 1,200 (9.08%), total 13,203 (100.0%)\"");
    free(n2);
    char *n5 = line_of(s, "  N5 [");   /* Comparable#<=>: none */
    ck_assert_has(n5, "\\nallocs 0 (0.00%)\\n100,000 calls\"");
    free(n5);
    ck_assert_has(s, "\\lAllocations: 13,209 objects " DOT_ " allocs = a box's own\\l");
    assert_dot_accepts(s);
    free(s);

    o.self_allocations = o.allocations = NULL;   /* not recorded: no word of them */
    s = render(&r, &o);
    ck_assert_lacks(s, "alloc");
    ck_assert_lacks(s, "Alloc");
    free(s);
}
END_TEST

START_TEST(allocation_types_in_the_tooltip_only)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    const uint64_t self[NREF] = { 5, 1200, 0, 12000, 0, 3, 1 };
    const uint64_t total[NREF] = { 13209, 13203, 12000, 12000, 0, 3, 1 };
    /* work's types, and a name a newer tracegraph might write, escaped. */
    const char *types[NREF] = { NULL, "String 1,000 " DOT_ " Array 200", NULL, "say \"hi\"\n 12,000",
                                NULL, NULL, NULL };
    o.self_allocations = self;
    o.allocations = total;
    o.total_allocations = 13209;
    o.allocation_types = types;
    char *s = render(&r, &o);
    char *n2 = line_of(s, "  N2 [");
    ck_assert_has(n2, "allocations: self 1,200 (9.08%), total 13,203 (100.0%)\\nby type: String 1,000 " DOT_
                      " Array 200\"");
    ck_assert_has(n2, "\\nallocs 1,200 (9.08%)\\n3 calls\", tooltip");   /* not in the label */
    free(n2);
    ck_assert_has(s, "\\nby type: say \\\"hi\\\"\\\\n 12,000");   /* a newline shows as \n */
    char *n1 = line_of(s, "  N1 [");   /* main: none given, no line */
    ck_assert_lacks(n1, "by type");
    free(n1);
    assert_dot_accepts(s);
    free(s);

    o.self_allocations = o.allocations = NULL;   /* types without counts: not shown */
    s = render(&r, &o);
    ck_assert_lacks(s, "by type");
    free(s);
}
END_TEST

/*
 * Sized by allocations: the reference model's time is in work, []= and
 * <=>, but its objects come from tiny (690 of 1,000, in 2 ms) and fib;
 * so by allocations those are the boxes kept and the biggest, and the
 * allocation-free ones are cut, where by time tiny is cut.
 */
/* By method: main, work, each, []=, <=>, fib, tiny; by edge as ref_edges. */
static const uint64_t alloc_self[NREF] = { 0, 10, 0, 0, 0, 300, 690 };
static const uint64_t alloc_total[NREF] = { 1000, 310, 0, 0, 0, 300, 690 };
static const uint64_t alloc_edges[] = { 310, 0, 0, 0, 300, 290, 690 };

static tg_dot_options by_allocations(void)
{
    tg_dot_options o;
    tg_dot_options_default(&o);
    o.self_allocations = alloc_self;
    o.allocations = alloc_total;
    o.edge_allocations = alloc_edges;
    o.total_allocations = 1000;
    o.metric = TG_DOT_BY_ALLOCATIONS;
    return o;
}

START_TEST(size_by_allocations_keeps_and_sizes_the_allocating_methods)
{
    tg_model r = ref_report();
    tg_dot_options o = by_allocations();
    char *s = render(&r, &o);
    /* Ordered by total allocations; tiny, 0.2% of the time, is the biggest box. */
    ck_assert_has(s, "  N1 [label=\"<main>\\n");
    ck_assert_has(s, "  N2 [label=\"Tiny#t\\n/app/t.rb:2\\nself 2.00 ms (0.20%)\\ntotal 2.00 ms (0.20%)"
                     "\\nallocs 690 (69.0%)\\n1 call\"");
    ck_assert_has(s, "  N3 [label=\"Object#work\\n");
    ck_assert_has(s, "  N4 [label=\"Kernel#fib\\n");
    ck_assert_lacks(s, "  N5 [");
    ck_assert_lacks(s, "Hash#[]=");
    ck_assert_lacks(s, "Comparable#<=>");
    ck_assert_lacks(s, "label=\"Array#each");
    char *n2 = line_of(s, "  N2 ["), *n3 = line_of(s, "  N3 ["), *n4 = line_of(s, "  N4 [");
    ck_assert_has(n2, "fontsize=24.0, fillcolor=");
    ck_assert_has(n3, "fontsize=10.8, fillcolor=");   /* 9 + 15 * sqrt(10 / 690) */
    ck_assert_has(n4, "fontsize=18.9, fillcolor=");   /* 9 + 15 * sqrt(300 / 690) */
    free(n2);
    free(n3);
    free(n4);
    char *e = line_of(s, "  N1 -> N2 [");
    ck_assert_has(e, "label=\" " TIMES "1 \\n 2.00 ms " DOT_ " 690 objects \"");
    ck_assert_has(e, "\\nallocations: 690 (69.0%)\"");
    free(e);
    ck_assert_has(s, "\\lShowing 4 of 7 methods\\lThe boxes hold 100.0% of allocations\\l");
    ck_assert_has(s, "\\lDropped 3 nodes (total < 5 objects)\\l");
    ck_assert_has(s, "\\lBox size = self allocations " DOT_ " colour = total allocations\\l"
                     "Edge width and colour = allocations through the call\\l");
    ck_assert_lacks(s, "self time");
    assert_dot_accepts(s);
    free(s);

    /* By time, the same options keep the time's methods and drop tiny. */
    o.metric = TG_DOT_BY_TIME;
    s = render(&r, &o);
    ck_assert_has(s, "\\lShowing 6 of 7 methods\\lThe boxes hold 76.1% of self time\\l");
    ck_assert_has(s, "\\lDropped 1 node (total < 5.00 ms)\\l");
    ck_assert_lacks(s, "Tiny#t");
    char *n4t = line_of(s, "  N4 [");
    ck_assert_has(n4t, "label=\"Hash#[]=\\n");
    ck_assert_has(n4t, "fontsize=24.0, fillcolor=");
    free(n4t);
    ck_assert_has(s, "Box size = self time " DOT_ " colour = total time\\l");
    free(s);
}
END_TEST

START_TEST(size_by_allocations_caps_by_allocations_hot_spots_first)
{
    tg_model r = ref_report();
    tg_dot_options o = by_allocations();
    o.max_nodes = 2;
    char *s = render(&r, &o);
    /* tiny allocates most and main is its path to the root. */
    ck_assert_has(s, "  N1 [label=\"<main>\\n");
    ck_assert_has(s, "  N2 [label=\"Tiny#t\\n");
    ck_assert_lacks(s, "  N3 [");
    ck_assert_has(s, "\\lCapped at 2 boxes: 2 more dropped (total \xE2\x89\xA4 310 objects)\\l");
    /* work -> fib reaches nothing kept: no dotted edge; main -> tiny stays. */
    ck_assert_uint_eq(count_of(s, " -> "), 1);
    free(s);

    o.metric = TG_DOT_BY_TIME;   /* by time: work, the hottest spot whose path fits */
    s = render(&r, &o);
    ck_assert_has(s, "  N2 [label=\"Object#work\\n");
    ck_assert_lacks(s, "Tiny#t");
    free(s);

    /* Asked for allocations without the counts: by time, as before. */
    tg_dot_options plain = keep_all(), asked = keep_all();
    asked.metric = TG_DOT_BY_ALLOCATIONS;
    char *a = render(&r, &plain), *b = render(&r, &asked);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
}
END_TEST

START_TEST(ids_are_synthetic_and_ordered_by_total)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    const char *order[] = { "<main>", "Object#work", "Array#each", "Hash#[]=", "Comparable#<=>",
                            "Kernel#fib", "Tiny#t" };
    for (int i = 0; i < NREF; i++) {
        char head[64];
        snprintf(head, sizeof head, "  N%d [label=\"%s\\n", i + 1, order[i]);
        ck_assert_has(s, head);
    }
    ck_assert_lacks(s, "N8");
    free(s);
}
END_TEST

START_TEST(ties_break_by_self_then_name)
{
    tg_model_method m[] = {
        { "b", NULL, 0, false, 1, 10 * MS, 1 * MS },
        { "a", NULL, 0, false, 1, 10 * MS, 1 * MS },
        { "c", NULL, 0, false, 1, 10 * MS, 2 * MS },
    };
    tg_model r = { NULL, "wall", 30 * MS, m, 3, NULL, 0, NULL };
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    ck_assert_has(s, "N1 [label=\"c\\n");
    ck_assert_has(s, "N2 [label=\"a\\n");
    ck_assert_has(s, "N3 [label=\"b\\n");
    free(s);
}
END_TEST

START_TEST(c_method_is_dashed_without_location)
{
    tg_model r = ref_report();
    char *s = render(&r, NULL);
    char *n4 = line_of(s, "  N4 [");
    ck_assert_has(n4, "label=\"Hash#[]=\\nself 300 ms (30.0%)\\ntotal 300 ms (30.0%)\\n15,000 calls\"");
    ck_assert_has(n4, "\\nimplemented in C\"");
    ck_assert_has(n4, "style=\"filled,rounded,dashed\"");
    char *n2 = line_of(s, "  N2 [");
    ck_assert_lacks(n2, "dashed");
    free(n2);
    free(n4);
    free(s);
}
END_TEST

START_TEST(singular_call)
{
    tg_model r = ref_report();
    char *s = render(&r, NULL);
    char *n1 = line_of(s, "  N1 [");
    ck_assert_has(n1, "\\n1 call\"");
    ck_assert_has(n1, "\\ncalls: 1\"");
    free(n1);
    free(s);
}
END_TEST

START_TEST(paths_relative_to_cwd_only_when_under_it)
{
    tg_model_method m[] = {
        { "a", "/app/lib/a.rb", 7, false, 1, 3 * MS, 1 * MS },
        { "b", "/application/b.rb", 0, false, 1, 2 * MS, 1 * MS },
        { "c", "relative/c.rb", 3, false, 1, 1 * MS, 1 * MS },
    };
    tg_model r = { NULL, "wall", 6 * MS, m, 3, NULL, 0, NULL };
    tg_dot_options o = keep_all();
    o.cwd = "/app/";
    char *s = render(&r, &o);
    ck_assert_has(s, "label=\"a\\nlib/a.rb:7\\n");
    ck_assert_has(s, "tooltip=\"a\\n/app/lib/a.rb:7\\n");
    ck_assert_has(s, "label=\"b\\n/application/b.rb\\n");   /* line 0: no ":0" */
    ck_assert_has(s, "label=\"c\\nrelative/c.rb:3\\n");
    free(s);
    o.cwd = NULL;
    s = render(&r, &o);
    ck_assert_has(s, "label=\"a\\n/app/lib/a.rb:7\\n");
    free(s);
}
END_TEST

START_TEST(long_paths_keep_their_tail)
{
    char path[400];
    memset(path, 'd', sizeof path);
    memcpy(path, "/x/", 3);
    strcpy(path + sizeof path - 10, "/tail.rb");
    tg_model_method m[] = { { "a", path, 5, false, 1, 1 * MS, 1 * MS } };
    tg_model r = { NULL, "wall", 1 * MS, m, 1, NULL, 0, NULL };
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    ck_assert_has(s, "\\n\xE2\x80\xA6" "dddd");
    ck_assert_has(s, "/tail.rb:5\\nself");
    ck_assert_has(s, path);                       /* full path in the tooltip */
    free(s);
}
END_TEST

START_TEST(size_grows_with_self_time)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    /* Hash#[]= has the most self time: the maximum size. */
    char *big = line_of(s, "  N4 [");
    ck_assert_has(big, "fontsize=24.0");
    free(big);
    /* sqrt scale: 120/300 self -> 9 + 15 * sqrt(0.4) = 18.5 */
    char *mid = line_of(s, "  N5 [");
    ck_assert_has(mid, "fontsize=18.5");
    free(mid);
    free(s);

    tg_model_method zero[] = { { "z", NULL, 0, false, 1, 0, 0 } };
    tg_model rz = { NULL, "wall", 0, zero, 1, NULL, 0, NULL };
    s = render(&rz, &o);
    ck_assert_has(s, "fontsize=9.0");
    free(s);
}
END_TEST

START_TEST(colour_follows_total_time)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    char *hot = line_of(s, "  N1 [");   /* 100% */
    ck_assert_has(hot, "fillcolor=\"#b30000\"");
    ck_assert_has(hot, "fontcolor=\"#ffffff\"");
    free(hot);
    char *cool = line_of(s, "  N7 [");  /* 0.2% */
    ck_assert_lacks(cool, "fontcolor");
    ck_assert_lacks(cool, "#b30000");
    free(cool);
    free(s);

    tg_model_method zero[] = { { "z", NULL, 0, false, 1, 0, 0 } };
    tg_model rz = { NULL, "wall", 100, zero, 1, NULL, 0, NULL };
    s = render(&rz, &o);
    ck_assert_has(s, "fillcolor=\"#f2f2f2\", color=\"#919191\"");
    free(s);
}
END_TEST

/* ---- edges ---- */

START_TEST(edge_label_golden)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    char *e = line_of(s, "  N3 -> N4 [");
    ck_assert_str_eq(e,
        "  N3 -> N4 [label=\" " TIMES "15,000 \\n 300 ms \", "
        "tooltip=\"Array#each \xE2\x86\x92 Hash#[]=\\n15,000 calls\\ntotal: 300 ms (30.0%)\\n"
        "self in callee: 300 ms\", penwidth=3.6, color=\"#966648\", weight=8];");
    free(e);
    free(s);
}
END_TEST

START_TEST(edges_ordered_by_time_and_weight_is_integer)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    const char *a = strstr(s, "N1 -> N2 ["), *b = strstr(s, "N2 -> N3 ["), *c = strstr(s, "N3 -> N4 [");
    ck_assert(a && b && c && a < b && b < c);
    ck_assert_has(s, "weight=23]");
    ck_assert_lacks(s, "weight=23.");
    /* width grows with time */
    char *e12 = line_of(s, "  N1 -> N2 [");
    ck_assert_has(e12, "penwidth=5.7");
    free(e12);
    free(s);
}
END_TEST

START_TEST(recursion_is_one_self_loop)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    ck_assert_uint_eq(count_of(s, "N6 -> N6 ["), 1);
    ck_assert_has(s, "N6 -> N6 [label=\" " TIMES "176 \\n 59.0 ms \"");
    free(s);
}
END_TEST

/* ---- pruning ---- */

START_TEST(node_fraction_drops_and_says_so)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    o.node_fraction = 0.005;                     /* cut 5 ms: Tiny#t (2 ms) goes */
    char *s = render(&r, &o);
    ck_assert_lacks(s, "Tiny#t");
    ck_assert_has(s, "Showing 6 of 7 methods\\lThe boxes hold 76.1% of self time\\l");
    ck_assert_has(s, "Dropped 1 node (total < 5.00 ms)\\l");
    free(s);
}
END_TEST

START_TEST(zero_thresholds_keep_everything)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    ck_assert_has(s, "Tiny#t");
    ck_assert_has(s, "Showing 7 of 7 methods\\lThe boxes hold 76.3% of self time\\l");
    ck_assert_has(s, "Nothing dropped\\l");
    ck_assert_uint_eq(count_of(s, " -> "), 7);
    free(s);
}
END_TEST

START_TEST(edge_fraction_drops_edges)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    o.edge_fraction = 0.1;                       /* cut 100 ms */
    char *s = render(&r, &o);
    ck_assert_has(s, "N3 -> N5 [");              /* 120 ms stays */
    ck_assert_lacks(s, "N2 -> N6 [");            /* 60 ms goes */
    ck_assert_lacks(s, "N6 -> N6 [");
    ck_assert_has(s, "Dropped 3 edges (total < 100 ms)\\l");
    ck_assert_has(s, "Kernel#fib");              /* the node itself stays */
    free(s);
}
END_TEST

START_TEST(max_nodes_keeps_heaviest)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    o.max_nodes = 3;
    char *s = render(&r, &o);
    ck_assert_has(s, "<main>");
    ck_assert_has(s, "Object#work");
    ck_assert_has(s, "Array#each");
    ck_assert_lacks(s, "N4 [");
    ck_assert_has(s, "Capped at 3 boxes: 4 more dropped (total \xE2\x89\xA4 300 ms)\\l");
    free(s);
}
END_TEST

/* root -> s1 -> s2 -> hot, and root -> warm: a spine with all the total
 * time and none of the self time. */
static const tg_model_method spine_methods[] = {
    { "root", NULL, 0, false, 1, 100 * MS, 0 },
    { "s1", NULL, 0, false, 1, 60 * MS, 0 },
    { "s2", NULL, 0, false, 1, 60 * MS, 10 * MS },
    { "hot", NULL, 0, false, 1, 50 * MS, 50 * MS },
    { "warm", NULL, 0, false, 1, 40 * MS, 40 * MS },
};
static const tg_model_edge spine_edges[] = {
    { 0, 1, 1, 60 * MS, 0 }, { 1, 2, 1, 60 * MS, 10 * MS }, { 2, 3, 1, 50 * MS, 50 * MS }, { 0, 4, 1, 40 * MS, 40 * MS },
};

START_TEST(the_cap_keeps_hot_spots_with_their_paths)
{
    tg_model r = { NULL, "wall", 100 * MS, spine_methods, 5, spine_edges, 4, NULL };
    tg_dot_options o = keep_all();
    o.max_nodes = 2;   /* hot's path costs 3 boxes (hot, s2, root: s1 passes the call on); warm's fits */
    char *s = render(&r, &o);
    ck_assert_has(s, "label=\"warm\\n");
    ck_assert_has(s, "label=\"root\\n");
    ck_assert_lacks(s, "label=\"hot\\n");
    ck_assert_has(s, "Showing 2 of 5 methods\\lThe boxes hold 40.0% of self time\\l");
    free(s);
    o.max_nodes = 3;   /* hot with its path, s1 (no self time) a dotted edge that names it */
    s = render(&r, &o);
    ck_assert_has(s, "label=\"hot\\n");
    ck_assert_has(s, "label=\"s2\\n");
    ck_assert_lacks(s, "label=\"s1\\n");
    ck_assert_lacks(s, "label=\"warm\\n");
    ck_assert_has(s, "Showing 3 of 5 methods\\lThe boxes hold 60.0% of self time\\l");
    ck_assert_has(s, "\\lNot drawn: 1 frame of \xE2\x89\xA4 0.1% self (dotted edges name them)\\l");
    ck_assert_has(s, "N1 -> N2 [label=\" via 1 frame \\n ~60.0 ms \", tooltip=\"root \xE2\x86\x92 s2\\n"
                     "via 1 hidden frame, ~60.0 ms (60.0%): the busiest path's narrowest call\\n  s1\"");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

/* a -> h1 -> b and a -> h2 -> h3 -> b, with h* too small to keep. */
static const tg_model_method hid_methods[] = {
    { "a", NULL, 0, false, 1, 100 * MS, 10 * MS },
    { "b", NULL, 0, false, 1, 60 * MS, 60 * MS },
    { "h1", NULL, 0, false, 1, 3 * MS, 1 * MS },
    { "h2", NULL, 0, false, 1, 4 * MS, 1 * MS },
    { "h3", NULL, 0, false, 1, 4 * MS, 1 * MS },
    { "c", NULL, 0, false, 1, 50 * MS, 50 * MS },
};

START_TEST(paths_through_hidden_nodes_are_dotted)
{
    const tg_model_edge e[] = {
        { 0, 2, 1, 3 * MS, 1 * MS }, { 2, 1, 1, 2 * MS, 2 * MS },
        { 0, 3, 1, 4 * MS, 1 * MS }, { 3, 4, 1, 4 * MS, 1 * MS }, { 4, 1, 1, 3 * MS, 3 * MS },
    };
    tg_model r = { NULL, "wall", 100 * MS, hid_methods, 5, e, 5, NULL };
    tg_dot_options o = keep_all();
    o.node_fraction = 0.05;                      /* cut 5 ms: h1, h2, h3 go */
    char *s = render(&r, &o);
    /* widest path: min(4, 4, 3) = 3 ms beats min(3, 2) = 2 ms */
    char *e12 = line_of(s, "  N1 -> N2 [");
    ck_assert_str_eq(e12,
        "  N1 -> N2 [label=\" via 2 frames \\n ~3.00 ms \", tooltip=\"a \xE2\x86\x92 b\\n"
        "via 2 hidden frames, ~3.00 ms (3.00%): the busiest path's narrowest call\\n  h2\\n  h3\", "
        "penwidth=1.7, color=\"#968d7f\", weight=1, style=dotted];");
    free(e12);
    ck_assert_uint_eq(count_of(s, " -> "), 1);
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(no_dotted_edge_beside_a_real_one)
{
    const tg_model_edge e[] = { { 0, 1, 1, 50 * MS, 1 * MS }, { 0, 2, 1, 3 * MS, 1 * MS }, { 2, 1, 1, 2 * MS, 2 * MS } };
    tg_model r = { NULL, "wall", 100 * MS, hid_methods, 3, e, 3, NULL };
    tg_dot_options o = keep_all();
    o.node_fraction = 0.05;
    char *s = render(&r, &o);
    ck_assert_has(s, "N1 -> N2 [label=\" " TIMES "1 \\n 50.0 ms \"");
    ck_assert_lacks(s, "dotted");
    free(s);
}
END_TEST

START_TEST(redundant_dotted_edges_are_removed)
{
    /* a -> c (real), c -> h1 -> b: a reaches b via c, so a -> b (via h2) is redundant. */
    const tg_model_edge e[] = {
        { 0, 5, 1, 50 * MS, 1 * MS }, { 5, 2, 1, 3 * MS, 1 * MS }, { 2, 1, 1, 3 * MS, 1 * MS },
        { 0, 3, 1, 4 * MS, 1 * MS }, { 3, 1, 1, 4 * MS, 1 * MS },
    };
    tg_model r = { NULL, "wall", 100 * MS, hid_methods, 6, e, 5, NULL };
    tg_dot_options o = keep_all();
    o.node_fraction = 0.05;
    char *s = render(&r, &o);
    /* N1 a (100), N2 b (60), N3 c (50) */
    ck_assert_has(s, "N1 -> N3 [");
    ck_assert_has(s, "N3 -> N2 [label=\" via 1 frame \\n ~3.00 ms \"");
    ck_assert_lacks(s, "N1 -> N2 [");
    free(s);
}
END_TEST

START_TEST(ignored_nodes_become_dotted_paths)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    uint8_t ignore[NREF] = { [EACH] = 1 };
    o.ignore = ignore;
    char *s = render(&r, &o);
    ck_assert_lacks(s, "label=\"Array#each");
    ck_assert_has(s, "Ignored 1 method\\l");
    /* work -> Hash#[]= and work -> <=> through the hidden each, which their tooltips name */
    ck_assert_has(s, "N2 -> N3 [label=\" via 1 frame \\n ~300 ms \"");
    ck_assert_has(s, "N2 -> N4 [label=\" via 1 frame \\n ~120 ms \"");
    ck_assert_uint_eq(count_of(s, "narrowest call\\n  Array#each\""), 2);
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(focus_keeps_ancestors_and_descendants)
{
    tg_model r = ref_report();
    tg_dot_options o = keep_all();
    uint8_t focus[NREF] = { [EACH] = 1 };
    o.focus = focus;
    char *s = render(&r, &o);
    ck_assert_has(s, "<main>");
    ck_assert_has(s, "Object#work");
    ck_assert_has(s, "Array#each");
    ck_assert_has(s, "Hash#[]=");
    ck_assert_has(s, "Comparable#<=>");
    ck_assert_lacks(s, "Kernel#fib");            /* sibling branch: unrelated */
    ck_assert_lacks(s, "Tiny#t");
    ck_assert_has(s, "Focus: 1 match, shown; 2 unrelated methods hidden\\l"
                     "Focus by methods, not paths: --call-tree for exact paths\\l");
    ck_assert_lacks(s, "dotted");                /* unrelated methods never bridge */
    free(s);

    /* A model already cut to the call paths through the matches (a call
     * tree's) is not walked again: the methods left out before are the
     * unrelated ones. */
    o.focus_paths = true;
    o.focus_left_out = 5;
    s = render(&r, &o);
    ck_assert_has(s, "Focus: 1 match, shown; 5 unrelated methods hidden\\l"
                     "Focus on the call paths through the matches\\l");
    free(s);
    o.focus_paths = false;
    o.focus_left_out = 0;

    /* Three matches, two boxes: the heavier two are drawn, the legend names the third. */
    uint8_t three[NREF] = { [ASET] = 1, [CMP] = 1, [TINY] = 1 };
    o.focus = three;
    o.max_nodes = 2;
    s = render(&r, &o);
    ck_assert_has(s, "label=\"Hash#[]=\\n");
    ck_assert_has(s, "label=\"Comparable#<=>\\n");
    ck_assert_has(s, "\\lFocus: 3 matches, 2 shown; 1 unrelated method hidden\\lNot shown: Tiny#t\\l");
    assert_dot_accepts(s);
    free(s);
    o.max_nodes = 0;

    uint8_t none[NREF] = { 0 };
    o.focus = none;
    s = render(&r, &o);
    ck_assert_has(s, "Showing 0 of 7 methods\\lThe boxes hold 0.00% of self time\\l");
    ck_assert_lacks(s, "N1");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

START_TEST(invalid_edge_indexes_are_ignored)
{
    const tg_model_edge e[] = { { 0, 99, 1, 1, 1 }, { 99, 0, 1, 1, 1 }, { 0, 1, 1, 1 * MS, 1 } };
    tg_model r = { NULL, "wall", 100 * MS, hid_methods, 2, e, 3, NULL };
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    ck_assert_uint_eq(count_of(s, " -> "), 1);
    free(s);
}
END_TEST

/* ---- legend ---- */

START_TEST(legend_contents)
{
    tg_model r = ref_report();
    char *s = render(&r, NULL);
    char *legend = line_of(s, "  { rank=source; legend [");
    ck_assert_has(legend, "label=\"tracegraph: examples/demo.rb\\l");
    ck_assert_has(legend, "Clock: wall " DOT_ " total 1.00 s " DOT_ " 115,186 calls\\l");
    ck_assert_has(legend, "Showing 6 of 7 methods\\lThe boxes hold 76.1% of self time\\l");
    ck_assert_has(legend, "Dropped 1 node (total < 5.00 ms)\\l");
    ck_assert_has(legend, "Box size = self time");
    ck_assert_has(legend, "colour = total time");
    ck_assert_has(legend, "Edge width and colour = time through the call");
    ck_assert_has(legend, "Dotted edge");
    ck_assert_has(legend, "Dashed border = C method");
    free(legend);
    free(s);
}
END_TEST

START_TEST(legend_reports_garbage_collection)
{
    tg_model r = ref_report();
    char *s = render(&r, NULL);
    ck_assert_lacks(s, "GC:");
    free(s);
    tg_model_gc gc = { 0, 0, 0, 0, 0 };
    r.gc = &gc;   /* recorded, but no GC ran */
    s = render(&r, NULL);
    ck_assert_lacks(s, "GC:");
    free(s);
    gc = (tg_model_gc){ 12, 40, 80 * MS, 50 * MS, 29 * MS };
    s = render(&r, NULL);
    char *legend = line_of(s, "  { rank=source; legend [");
    ck_assert_has(legend, "Clock: wall " DOT_ " total 1.00 s " DOT_ " 115,186 calls\\lGC: 12 runs, 40 steps, 80.0 ms (8.00%) "
                          DOT_ " marking 50.0 ms\\l    " DOT_ " sweeping 29.0 ms\\l");
    free(legend);
    free(s);
    gc.runs = gc.entries = 1;
    s = render(&r, NULL);
    ck_assert_has(s, "GC: 1 run, 1 step, ");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

/* ---- determinism ---- */

START_TEST(output_is_deterministic_and_order_independent)
{
    tg_model r = ref_report();
    char *a = render(&r, NULL), *b = render(&r, NULL);
    ck_assert_str_eq(a, b);
    /* The same profile with methods listed in reverse order. */
    tg_model_method rev[NREF];
    tg_model_edge redges[sizeof ref_edges / sizeof ref_edges[0]];
    for (int i = 0; i < NREF; i++) rev[NREF - 1 - i] = ref_methods[i];
    for (size_t i = 0; i < sizeof ref_edges / sizeof ref_edges[0]; i++) {
        redges[i] = ref_edges[sizeof ref_edges / sizeof ref_edges[0] - 1 - i];
        redges[i].caller = NREF - 1 - redges[i].caller;
        redges[i].callee = NREF - 1 - redges[i].callee;
    }
    tg_model rr = { r.program, r.clock, r.total_time, rev, NREF, redges, sizeof redges / sizeof redges[0], NULL };
    char *c = render(&rr, NULL);
    ck_assert_str_eq(a, c);
    free(a);
    free(b);
    free(c);
}
END_TEST

/* ---- escaping ---- */

START_TEST(tricky_names_are_escaped_and_dot_is_silent)
{
    static char huge[5 * 1024 + 1];
    memset(huge, 'x', sizeof huge - 1);
    tg_model_method m[] = {
        { "Hash#[]=", NULL, 0, true, 10, 900 * MS, 100 * MS },
        { "<=>", "/app/a.rb", 1, false, 10, 800 * MS, 100 * MS },
        { "#<Class:0x000055d5>#meth", "/app/b.rb", 2, false, 1, 700 * MS, 100 * MS },
        { "a\"b\\c", "/app/c \"q\".rb", 3, false, 1, 600 * MS, 100 * MS },
        { "\xC3\x9Cn\xC3\xAF" "c\xC3\xB8" "d\xC3\xA9#\xE5\x90\x8D\xE5\x89\x8D", "/app/\xE5\x90\x8D.rb", 4, false, 1,
          500 * MS, 100 * MS },
        { "{ a | b } <c> & d", NULL, 0, true, 1, 400 * MS, 100 * MS },
        { "bad\xFF\xFE\xC3", "/app/\xFF.rb", 5, false, 1, 300 * MS, 100 * MS },
        { huge, "/app/huge.rb", 6, false, 1, 200 * MS, 100 * MS },
        { "multi\nline\r\tname\x01", NULL, 0, false, 1, 100 * MS, 100 * MS },
        { "\\N \\G \\l \\", NULL, 0, false, 1, 50 * MS, 50 * MS },
    };
    tg_model_edge e[9];
    for (uint32_t i = 0; i < 9; i++) e[i] = (tg_model_edge){ i, i + 1, 1, m[i + 1].total_time, 1 };
    tg_model r = { "prog \"x\"\n.rb", "wall\\", 1000 * MS, m, 10, e, 9, NULL };
    tg_dot_options o = keep_all();
    o.cwd = "/app";
    char *s = render(&r, &o);
    ck_assert_has(s, "label=\"Hash#[]=\\n");
    ck_assert_has(s, "label=\"<=>\\n");
    ck_assert_has(s, "label=\"#<Class:0x000055d5>#meth\\n");
    ck_assert_has(s, "label=\"a\\\"b\\\\c\\nc \\\"q\\\".rb:3\\n");
    ck_assert_has(s, "label=\"\xC3\x9Cn\xC3\xAF" "c\xC3\xB8" "d\xC3\xA9#\xE5\x90\x8D\xE5\x89\x8D\\n\xE5\x90\x8D.rb:4\\n");
    ck_assert_has(s, "label=\"{ a | b } <c> & d\\n");
    ck_assert_has(s, "label=\"bad\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\\n\xEF\xBF\xBD.rb:5\\n");
    ck_assert_has(s, "label=\"multi\\\\nline\\\\r\\\\tname\\\\x01\\n");
    ck_assert_has(s, "label=\"\\\\N \\\\G \\\\l \\\\\\n");
    ck_assert_has(s, "tracegraph: prog \\\"x\\\"\\\\n.rb\\l");
    ck_assert_has(s, "Clock: wall\\\\ ");
    /* The 5 KB name: 157 bytes + "…" in the box, in lines of 28 characters
     * (it has nowhere to break), 4093 + "…" in the tooltip. */
    char want[4200];
    memset(want, 'x', 4093);
    strcpy(want + 4093, "\xE2\x80\xA6\\n/app/huge.rb:6");
    ck_assert_has(s, want);
    strcpy(want, "label=\"");
    for (int i = 0; i < 6; i++) {
        size_t at = strlen(want);
        memset(want + at, 'x', i < 5 ? 28 : 17);
        strcpy(want + at + (i < 5 ? 28 : 17), i < 5 ? "\\n" : "");
    }
    strcat(want, "\xE2\x80\xA6\\nhuge.rb:6\\n");
    ck_assert_has(s, want);
    ck_assert_lacks(s, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xE2\x80\xA6\\nhuge");
    /* No raw control characters anywhere but the statement newlines. */
    for (const char *p = s; *p; p++) ck_assert(*p == '\n' || (unsigned char)*p >= 0x20);
    assert_dot_accepts(s);
    free(s);
}
END_TEST

/* ---- large graphs ---- */

/* 1,000 methods: a call tree plus a cross edge per method, all kept. */
START_TEST(thousand_nodes_lay_out)
{
    enum { N = 1000 };
    static tg_model_method m[N];
    static tg_model_edge e[2 * N];
    static char names[N][32];
    size_t ec = 0;
    uint64_t seed = 42;
    for (uint32_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "Mod%u#meth_%u", i % 37, i);
        m[i] = (tg_model_method){ names[i], "/app/lib/x.rb", (int)i + 1, i % 5 == 0, 1 + i * 7,
                                   (uint64_t)(N - i) * MS, 1000 + (i * 7919u) % 500000 };
        if (i) e[ec++] = (tg_model_edge){ (i - 1) / 3, i, m[i].calls, m[i].total_time / 2, m[i].self_time };
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        if (i > 10) e[ec++] = (tg_model_edge){ (uint32_t)((seed >> 33) % i), i, 3, m[i].total_time / 3, 10 };
    }
    tg_model r = { "big.rb", "cpu", (uint64_t)N * MS, m, N, e, ec, NULL };
    tg_dot_options o = keep_all();
    char *s = render(&r, &o);
    ck_assert_uint_eq(count_of(s, "[label=\"Mod"), N);
    ck_assert_has(s, "nslimit=");
    ck_assert_has(s, "mclimit=");
    ck_assert_lacks(s, "label=\" " TIMES);       /* edge labels live in tooltips */
    ck_assert_has(s, "tooltip=\"Mod0#meth_0 \xE2\x86\x92 Mod1#meth_1\\n");
    assert_dot_accepts(s);
    free(s);

    /* With the defaults it is pruned to 80 boxes and keeps edge labels. */
    s = render(&r, NULL);
    ck_assert_uint_eq(count_of(s, "[label=\"Mod"), 80);
    ck_assert_has(s, "label=\" " TIMES);
    ck_assert_lacks(s, "nslimit=");
    assert_dot_accepts(s);
    free(s);
}
END_TEST

static Suite *dot_suite(void)
{
    Suite *s = suite_create("dot");
    TCase *tc = tcase_create("render");
    tcase_add_test(tc, defaults_match_pprof);
    tcase_add_test(tc, the_cap_keeps_hot_spots_with_their_paths);
    tcase_add_test(tc, graph_header_and_legend_at_top);
    tcase_add_test(tc, empty_report_has_only_the_legend);
    tcase_add_test(tc, a_method_named_by_its_file_shows_it_once);
    tcase_add_test(tc, node_label_and_tooltip_golden);
    tcase_add_test(tc, arrows_with_calls_only);
    tcase_add_test(tc, the_legend_gives_the_profiles_calls);
    tcase_add_test(tc, allocations_in_the_box_the_tooltip_and_the_legend);
    tcase_add_test(tc, allocation_types_in_the_tooltip_only);
    tcase_add_test(tc, size_by_allocations_keeps_and_sizes_the_allocating_methods);
    tcase_add_test(tc, size_by_allocations_caps_by_allocations_hot_spots_first);
    tcase_add_test(tc, ids_are_synthetic_and_ordered_by_total);
    tcase_add_test(tc, ties_break_by_self_then_name);
    tcase_add_test(tc, c_method_is_dashed_without_location);
    tcase_add_test(tc, singular_call);
    tcase_add_test(tc, paths_relative_to_cwd_only_when_under_it);
    tcase_add_test(tc, long_paths_keep_their_tail);
    tcase_add_test(tc, size_grows_with_self_time);
    tcase_add_test(tc, colour_follows_total_time);
    tcase_add_test(tc, edge_label_golden);
    tcase_add_test(tc, edges_ordered_by_time_and_weight_is_integer);
    tcase_add_test(tc, recursion_is_one_self_loop);
    tcase_add_test(tc, node_fraction_drops_and_says_so);
    tcase_add_test(tc, zero_thresholds_keep_everything);
    tcase_add_test(tc, edge_fraction_drops_edges);
    tcase_add_test(tc, max_nodes_keeps_heaviest);
    tcase_add_test(tc, paths_through_hidden_nodes_are_dotted);
    tcase_add_test(tc, no_dotted_edge_beside_a_real_one);
    tcase_add_test(tc, redundant_dotted_edges_are_removed);
    tcase_add_test(tc, ignored_nodes_become_dotted_paths);
    tcase_add_test(tc, focus_keeps_ancestors_and_descendants);
    tcase_add_test(tc, invalid_edge_indexes_are_ignored);
    tcase_add_test(tc, legend_contents);
    tcase_add_test(tc, legend_reports_garbage_collection);
    tcase_add_test(tc, output_is_deterministic_and_order_independent);
    tcase_add_test(tc, tricky_names_are_escaped_and_dot_is_silent);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    TCase *large = tcase_create("large");
    tcase_add_test(large, thousand_nodes_lay_out);
    tcase_set_timeout(large, 300);   /* dot's layout time, not ours; no timing assert */
    suite_add_tcase(s, large);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(dot_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * test_graph.c - the graph both DOT writers draw (tg_graph.h): which
 * nodes are kept and why the others are not, the edges between kept
 * nodes, the dotted edges through hidden ones, and the drawing order,
 * on small hand-built inputs.
 */
#include <check.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include "tg_graph.h"

#define CALL(f, t, amount) { (f), (t), (amount), false }
#define GHOST(f, t, amount) { (f), (t), (amount), true }
#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* An input over these nodes and links, keeping everything: no cuts, no cap. */
static tg_graph_input input(size_t n, const uint64_t *total, const uint64_t *self, const char *const *names,
                            const tg_graph_link *links, size_t link_count)
{
    return (tg_graph_input){ .node_count = n, .total = total, .self = self, .names = names, .links = links,
                             .link_count = link_count, .whole = 100, .cap = TG_GRAPH_CAP_HEAVIEST,
                             .hidden = TG_GRAPH_HIDDEN_WIDEST };
}

static void check_order(const tg_graph *g, const uint32_t *want, size_t count)
{
    ck_assert_uint_eq(g->kept, count);
    for (size_t i = 0; i < count; i++) {
        ck_assert_uint_eq(g->order[i], want[i]);
        ck_assert_uint_eq(g->rank[want[i]], i);
        ck_assert_uint_eq(g->state[want[i]], TG_GRAPH_KEPT);
    }
}

static void check_edge(const tg_graph *g, size_t i, uint32_t from, uint32_t to, uint64_t amount, size_t link)
{
    ck_assert_uint_lt(i, g->edge_count);
    const tg_graph_edge *e = &g->edges[i];
    ck_assert_uint_eq(e->from, from);
    ck_assert_uint_eq(e->to, to);
    ck_assert_uint_eq(e->from_rank, g->rank[from]);
    ck_assert_uint_eq(e->to_rank, g->rank[to]);
    ck_assert_uint_eq(e->amount, amount);
    ck_assert_uint_eq(e->link, link);
    ck_assert(e->dotted == (link == SIZE_MAX));
}

/*
 * main -> run -> parse -> lex -> scan, and run -> emit. The time is in
 * scan and emit; main, run, parse and lex only pass it on.
 */
enum { MAIN, RUN, PARSE, LEX, SCAN, EMIT };
static const uint64_t pipeline_total[] = { 100, 100, 50, 50, 50, 45 };
static const uint64_t pipeline_self[] = { 0, 5, 0, 0, 50, 45 };
static const char *const pipeline_names[] = { "main", "run", "parse", "lex", "scan", "emit" };
static const tg_graph_link pipeline_links[] = {
    CALL(MAIN, RUN, 100), CALL(RUN, PARSE, 50), CALL(PARSE, LEX, 50), CALL(LEX, SCAN, 50), CALL(RUN, EMIT, 45),
};

static tg_graph_input pipeline(void)
{
    return input(LEN(pipeline_total), pipeline_total, pipeline_self, pipeline_names, pipeline_links,
                 LEN(pipeline_links));
}

START_TEST(nothing_hidden_keeps_every_node_and_link_heaviest_first)
{
    tg_graph_input in = pipeline();
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    /* Equal totals: more self first (run before main, scan first of the 50s), then the name. */
    static const uint32_t want[] = { RUN, MAIN, SCAN, LEX, PARSE, EMIT };
    check_order(&g, want, LEN(want));
    ck_assert_uint_eq(g.edge_count, 5);
    /* Heaviest first; equal ones by their caller's box, then their callee's. */
    check_edge(&g, 0, MAIN, RUN, 100, 0);
    check_edge(&g, 1, RUN, PARSE, 50, 1);
    check_edge(&g, 2, LEX, SCAN, 50, 3);
    check_edge(&g, 3, PARSE, LEX, 50, 2);
    check_edge(&g, 4, RUN, EMIT, 45, 4);
    ck_assert_uint_eq(g.cut + g.capped + g.ignored + g.unrelated + g.dropped_edges, 0);
    tg_graph_free(&g);
}
END_TEST

START_TEST(the_heaviest_cap_keeps_the_spine_and_bridges_to_the_hot_spot)
{
    tg_graph_input in = pipeline();
    in.max_nodes = 3;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t want[] = { RUN, MAIN, SCAN };
    check_order(&g, want, LEN(want));
    ck_assert_uint_eq(g.state[PARSE], TG_GRAPH_CAPPED);
    ck_assert_uint_eq(g.state[LEX], TG_GRAPH_CAPPED);
    ck_assert_uint_eq(g.state[EMIT], TG_GRAPH_CAPPED);
    ck_assert_uint_eq(g.capped, 3);
    ck_assert_uint_eq(g.cap_cut, 50);
    /* run reaches scan only through parse and lex: one dotted edge, the narrowest call on the way. */
    ck_assert_uint_eq(g.edge_count, 2);
    check_edge(&g, 0, MAIN, RUN, 100, 0);
    check_edge(&g, 1, RUN, SCAN, 50, SIZE_MAX);
    tg_graph_free(&g);
}
END_TEST

START_TEST(the_coverage_cap_keeps_the_hot_spot_whose_path_fits)
{
    tg_graph_input in = pipeline();
    in.max_nodes = 2;
    in.cap = TG_GRAPH_CAP_COVERAGE;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    /* scan's path to a root costs 3 boxes (scan, run, main), emit's 3 too: over the budget; run's fits. */
    static const uint32_t want[] = { RUN, MAIN };
    check_order(&g, want, LEN(want));
    ck_assert_uint_eq(g.capped, 4);
    ck_assert_uint_eq(g.passed, 0);
    tg_graph_free(&g);
}
END_TEST

/* On a hot spot's path to the root, parse and lex (no self time) cost no
 * box: they are one dotted edge, which names them, caller side first. */
START_TEST(the_coverage_cap_passes_over_frames_of_negligible_self)
{
    tg_graph_input in = pipeline();
    in.max_nodes = 3;
    in.cap = TG_GRAPH_CAP_COVERAGE;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t want[] = { RUN, MAIN, SCAN };
    check_order(&g, want, LEN(want));
    ck_assert_uint_eq(g.capped, 3);   /* parse, lex and emit */
    ck_assert_uint_eq(g.passed, 2);   /* parse and lex */
    ck_assert_uint_eq(g.cap_cut, 50);
    ck_assert_uint_eq(g.edge_count, 2);
    check_edge(&g, 0, MAIN, RUN, 100, 0);
    check_edge(&g, 1, RUN, SCAN, 50, SIZE_MAX);
    ck_assert_uint_eq(g.edges[1].via_len, 2);
    ck_assert_uint_eq(g.via[g.edges[1].via_start], PARSE);
    ck_assert_uint_eq(g.via[g.edges[1].via_start + 1], LEX);
    tg_graph_free(&g);
}
END_TEST

/* A box with no self time that calls nothing (an SQL query, whose time its
 * caller holds already) is a hot spot by its total: with room for one box
 * past work's path, query (total 40) goes before helper (self 35). */
START_TEST(the_coverage_cap_takes_a_leaf_without_self_time_by_its_total)
{
    enum { Q_MAIN, Q_RUN, Q_WORK, Q_HELPER, Q_QUERY };
    static const uint64_t total[] = { 100, 100, 60, 35, 40 };
    static const uint64_t self[] = { 0, 5, 60, 35, 0 };
    static const char *const names[] = { "main", "run", "work", "helper", "(sql) SELECT ?" };
    static const tg_graph_link links[] = {
        CALL(Q_MAIN, Q_RUN, 100), CALL(Q_RUN, Q_WORK, 60), CALL(Q_RUN, Q_HELPER, 35), CALL(Q_RUN, Q_QUERY, 40),
    };
    tg_graph_input in = input(LEN(total), total, self, names, links, LEN(links));
    in.max_nodes = 4;
    in.cap = TG_GRAPH_CAP_COVERAGE;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t want[] = { Q_RUN, Q_MAIN, Q_WORK, Q_QUERY };
    check_order(&g, want, LEN(want));
    ck_assert_uint_eq(g.state[Q_HELPER], TG_GRAPH_CAPPED);
    tg_graph_free(&g);
}
END_TEST

START_TEST(cuts_count_what_they_drop)
{
    tg_graph_input in = pipeline();
    in.node_fraction = 0.5;    /* cut 50: emit goes */
    in.edge_fraction = 0.5;    /* cut 50: every link of 50 stays; run -> emit is not counted, emit is gone */
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    ck_assert_uint_eq(g.node_cut, 50);
    ck_assert_uint_eq(g.edge_cut, 50);
    ck_assert_uint_eq(g.state[EMIT], TG_GRAPH_CUT);
    ck_assert_uint_eq(g.cut, 1);
    ck_assert_uint_eq(g.kept, 5);
    ck_assert_uint_eq(g.dropped_edges, 0);
    ck_assert_uint_eq(g.edge_count, 4);
    tg_graph_free(&g);

    in.edge_fraction = 0.75;   /* cut 75: only main -> run stays */
    ck_assert(tg_graph_build(&g, &in));
    ck_assert_uint_eq(g.dropped_edges, 3);
    ck_assert_uint_eq(g.edge_count, 1);
    check_edge(&g, 0, MAIN, RUN, 100, 0);
    tg_graph_free(&g);
}
END_TEST

/* a calls c through two ignored nodes: a -> h1 (10) -> c (3), a -> h2 (5) -> c (5). */
enum { A, H1, H2, C, B };
static const uint64_t bridge_total[] = { 100, 10, 5, 20, 60 };
static const uint64_t bridge_self[] = { 20, 7, 0, 20, 20 };
static const char *const bridge_names[] = { "a", "h1", "h2", "c", "b" };
static const uint8_t bridge_ignore[] = { 0, 1, 1, 0, 0 };

START_TEST(a_dotted_edge_carries_the_widest_paths_narrowest_call)
{
    static const tg_graph_link links[] = { CALL(A, H1, 10), CALL(H1, C, 3), CALL(A, H2, 5), CALL(H2, C, 5) };
    tg_graph_input in = input(4, bridge_total, bridge_self, bridge_names, links, LEN(links));
    in.ignore = bridge_ignore;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t want[] = { A, C };
    check_order(&g, want, LEN(want));
    ck_assert_uint_eq(g.ignored, 2);
    ck_assert_uint_eq(g.state[H1], TG_GRAPH_IGNORED);
    ck_assert_uint_eq(g.edge_count, 1);
    check_edge(&g, 0, A, C, 5, SIZE_MAX);
    tg_graph_free(&g);

    in.edge_fraction = 0.0625;   /* a path of 5 is under the cut of 7: dropped, and counted */
    ck_assert(tg_graph_build(&g, &in));
    ck_assert_uint_eq(g.edge_count, 0);
    ck_assert_uint_eq(g.edge_cut, 7);
    ck_assert_uint_eq(g.dropped_edges, 1);
    tg_graph_free(&g);
}
END_TEST

START_TEST(a_dotted_edge_beside_another_path_is_redundant)
{
    /* a -> b -> c joins them already: the dotted a -> c would say nothing new. */
    static const tg_graph_link links[] = { CALL(A, H1, 10), CALL(H1, C, 3), CALL(A, B, 50), CALL(B, C, 12) };
    tg_graph_input in = input(5, bridge_total, bridge_self, bridge_names, links, LEN(links));
    in.ignore = bridge_ignore;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t want[] = { A, B, C };
    check_order(&g, want, LEN(want));
    ck_assert_uint_eq(g.edge_count, 2);
    check_edge(&g, 0, A, B, 50, 2);
    check_edge(&g, 1, B, C, 12, 3);
    tg_graph_free(&g);

    /* Without the estimate, every path is drawn, after the links. */
    in.hidden = TG_GRAPH_HIDDEN_LINKS;
    ck_assert(tg_graph_build(&g, &in));
    ck_assert_uint_eq(g.edge_count, 3);
    check_edge(&g, 0, A, B, 50, 2);
    check_edge(&g, 1, B, C, 12, 3);
    check_edge(&g, 2, A, C, 0, SIZE_MAX);
    tg_graph_free(&g);
}
END_TEST

START_TEST(ghost_links_are_drawn_after_calls_and_never_bridged_through)
{
    /* a -> h -> c are calls, h cut; a -> c and d -> h only ghosts; a -> d a call. */
    enum { GA, GH, GC, GD };
    static const uint64_t total[] = { 100, 0, 50, 20 };
    static const uint64_t self[] = { 30, 0, 50, 20 };
    static const char *const names[] = { "a", "h", "c", "d" };
    static const tg_graph_link links[] = {
        CALL(GA, GH, 4), CALL(GH, GC, 4), GHOST(GA, GC, 7), GHOST(GD, GH, 2), CALL(GA, GD, 9),
    };
    tg_graph_input in = input(4, total, self, names, links, LEN(links));
    in.node_fraction = 0.01;
    in.hidden = TG_GRAPH_HIDDEN_LINKS;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t want[] = { GA, GC, GD };
    check_order(&g, want, LEN(want));
    ck_assert_uint_eq(g.state[GH], TG_GRAPH_CUT);
    /* The ghost a -> c does not stand for a call: a still reaches c through h, dotted. d's ghost leads nowhere. */
    ck_assert_uint_eq(g.edge_count, 3);
    check_edge(&g, 0, GA, GD, 9, 4);
    check_edge(&g, 1, GA, GC, 7, 2);
    ck_assert(g.edges[1].ghost);
    check_edge(&g, 2, GA, GC, 0, SIZE_MAX);
    tg_graph_free(&g);
}
END_TEST

START_TEST(focus_hides_unrelated_nodes_and_they_never_bridge)
{
    /* focus on a: main is its caller, b its callee; u is neither, though main -> u -> b. */
    enum { FM, FA, FB, FU };
    static const uint64_t total[] = { 100, 50, 30, 40 };
    static const uint64_t self[] = { 10, 20, 30, 20 };
    static const char *const names[] = { "main", "a", "b", "u" };
    static const uint8_t focus[] = { 0, 1, 0, 0 };
    static const tg_graph_link links[] = { CALL(FM, FA, 50), CALL(FA, FB, 30), CALL(FM, FU, 40), CALL(FU, FB, 20) };
    tg_graph_input in = input(4, total, self, names, links, LEN(links));
    in.focus = focus;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    ck_assert(g.focus);
    ck_assert_uint_eq(g.focus_matches, 1);
    ck_assert_uint_eq(g.unrelated, 1);
    ck_assert_uint_eq(g.state[FU], TG_GRAPH_UNRELATED);
    static const uint32_t want[] = { FM, FA, FB };
    check_order(&g, want, LEN(want));
    ck_assert_uint_eq(g.edge_count, 2);
    check_edge(&g, 0, FM, FA, 50, 0);
    check_edge(&g, 1, FA, FB, 30, 1);
    tg_graph_free(&g);
}
END_TEST


/*
 * A hub above and below the match, as the method graph of
 *   run: [-> { load }, -> { totals }].each { |job| instance_exec(&job) }
 *   totals: rows.each_with_object(h) { ... }
 * draws it: run -> each -> block in run -> instance_exec -> the two
 * lambdas; totals -> each_with_object -> each -> block in totals. each is
 * an ancestor of totals and one of its descendants: going down through it
 * would bring in load and its parse. Only the blocks of methods reached
 * going down are taken from it. Going up, each's other caller (report,
 * with a block of its own) is not on the way: run's block is run's.
 */
START_TEST(focus_does_not_walk_down_through_a_hub_above_the_match)
{
    enum { H_RUN, H_EACH, H_BLOCK_RUN, H_EXEC, H_LAMBDA_LOAD, H_LOAD, H_PARSE, H_LAMBDA_TOTALS, H_TOTALS, H_EWO,
           H_BLOCK_TOTALS, H_TO_I, H_REPORT, H_BLOCK_REPORT, H_N };
    static const uint64_t total[] = { 1000, 1000, 990, 985, 960, 955, 950, 25, 24, 20, 18, 5, 300, 290 };
    static const uint64_t self[] = { 0, 10, 5, 25, 5, 5, 950, 1, 4, 2, 13, 5, 10, 290 };
    static const char *const names[] = { "Book#run", "Array#each", "block in Book#run", "BasicObject#instance_exec",
                                         "block in Book#run", "Book#load", "Book#parse", "block in Book#run",
                                         "Book#totals", "Enumerable#each_with_object", "block in Book#totals",
                                         "String#to_i", "Book#report", "block in Book#report" };
    /* The same with the blocks named by their columns, as naming.c names
     * blocks that share a line: a block's own column is not its owner's. */
    static const char *const placed[] = { "Book#run", "Array#each", "block in Book#run (column 9)",
                                          "BasicObject#instance_exec", "block in Book#run (column 30)", "Book#load",
                                          "Book#parse", "block in Book#run (2nd on line 4)", "Book#totals",
                                          "Enumerable#each_with_object", "block in Book#totals (column 31)",
                                          "String#to_i", "Book#report", "block in Book#report (column 5)" };
    static const uint8_t focus[H_N] = { [H_TOTALS] = 1 };
    for (int round = 0; round < 2; round++) {
    const char *const *these = round ? placed : names;
    static const tg_graph_link links[] = {
        CALL(H_RUN, H_EACH, 1000),          CALL(H_EACH, H_BLOCK_RUN, 990),    CALL(H_BLOCK_RUN, H_EXEC, 985),
        CALL(H_EXEC, H_LAMBDA_LOAD, 960),   CALL(H_LAMBDA_LOAD, H_LOAD, 955),  CALL(H_LOAD, H_PARSE, 950),
        CALL(H_EXEC, H_LAMBDA_TOTALS, 25),  CALL(H_LAMBDA_TOTALS, H_TOTALS, 24), CALL(H_TOTALS, H_EWO, 20),
        CALL(H_EWO, H_EACH, 19),            CALL(H_EACH, H_BLOCK_TOTALS, 18),  CALL(H_BLOCK_TOTALS, H_TO_I, 5),
        CALL(H_REPORT, H_EACH, 290),        CALL(H_EACH, H_BLOCK_REPORT, 290),
    };
    tg_graph_input in = input(H_N, total, self, these, links, LEN(links));
    in.focus = focus;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    ck_assert_uint_eq(g.focus_matches, 1);
    ck_assert_uint_eq(g.unrelated, 5);
    ck_assert_uint_eq(g.state[H_REPORT], TG_GRAPH_UNRELATED);
    ck_assert_uint_eq(g.state[H_BLOCK_REPORT], TG_GRAPH_UNRELATED);
    ck_assert_uint_eq(g.state[H_LAMBDA_LOAD], TG_GRAPH_UNRELATED);
    ck_assert_uint_eq(g.state[H_LOAD], TG_GRAPH_UNRELATED);
    ck_assert_uint_eq(g.state[H_PARSE], TG_GRAPH_UNRELATED);
    static const uint32_t kept[] = { H_RUN, H_EACH, H_BLOCK_RUN, H_EXEC, H_LAMBDA_TOTALS, H_TOTALS, H_EWO,
                                     H_BLOCK_TOTALS, H_TO_I };
    for (size_t i = 0; i < LEN(kept); i++) ck_assert_uint_eq(g.state[kept[i]], TG_GRAPH_KEPT);
    tg_graph_free(&g);

    /* Given only the call paths through the match (focus_paths), nothing is walked or hidden. */
    in.focus_paths = true;
    in.focus_left_out = 7;
    ck_assert(tg_graph_build(&g, &in));
    ck_assert(g.focus_paths);
    ck_assert_uint_eq(g.unrelated, 7);
    ck_assert_uint_eq(g.kept, H_N);
    tg_graph_free(&g);
    }
}
END_TEST

/*
 * main -> run -> a -> a1, and run -> b -> b1 (tiny), b -> b2, run -> c.
 * Focus on a1 and b1: b2 and c are unrelated; b1 is under the node cut
 * and b -> b1 under the edge cut, but matches and their calls are drawn.
 */
enum { F_MAIN, F_RUN, F_A, F_A1, F_B, F_B1, F_B2, F_C };
static const uint64_t focus_total[] = { 100, 100, 40, 30, 47, 2, 43, 5 };
static const uint64_t focus_self[] = { 0, 10, 10, 30, 2, 2, 43, 5 };
static const char *const focus_names[] = { "main", "run", "a", "a1", "b", "b1", "b2", "c" };
static const tg_graph_link focus_links[] = {
    CALL(F_MAIN, F_RUN, 100), CALL(F_RUN, F_A, 40), CALL(F_A, F_A1, 30), CALL(F_RUN, F_B, 47),
    CALL(F_B, F_B1, 2),       CALL(F_B, F_B2, 43),  CALL(F_RUN, F_C, 5),
};
static const uint8_t focus_flags[] = { 0, 0, 0, 1, 0, 1, 0, 0 };

static tg_graph_input focus_input(size_t max_nodes)
{
    tg_graph_input in = input(LEN(focus_total), focus_total, focus_self, focus_names, focus_links, LEN(focus_links));
    in.node_fraction = in.edge_fraction = 0.05;   /* cuts 5 */
    in.max_nodes = max_nodes;
    in.cap = TG_GRAPH_CAP_COVERAGE;
    in.focus = focus_flags;
    return in;
}

START_TEST(focus_draws_the_matches_first_then_their_callers_and_callees_then_the_roots)
{
    tg_graph_input in = focus_input(1);
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t one[] = { F_A1 };   /* the heavier match */
    check_order(&g, one, LEN(one));
    ck_assert_uint_eq(g.focus_matches, 2);
    ck_assert_uint_eq(g.focus_shown, 1);
    ck_assert_uint_eq(g.focus_unshown_count, 1);
    ck_assert_uint_eq(g.focus_unshown[0], F_B1);
    ck_assert_uint_eq(g.unrelated, 2);
    ck_assert_uint_eq(g.cut, 0);   /* b1 (2) is under the cut, but a match */
    ck_assert_uint_eq(g.capped, 5);
    tg_graph_free(&g);

    in = focus_input(4);   /* both matches, then their callers */
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t four[] = { F_B, F_A, F_A1, F_B1 };
    check_order(&g, four, LEN(four));
    ck_assert_uint_eq(g.focus_shown, 2);
    ck_assert_uint_eq(g.focus_unshown_count, 0);
    ck_assert_uint_eq(g.edge_count, 2);
    check_edge(&g, 0, F_A, F_A1, 30, 2);
    check_edge(&g, 1, F_B, F_B1, 2, 4);   /* under the edge cut, but a match's call */
    ck_assert_uint_eq(g.dropped_edges, 0);
    tg_graph_free(&g);

    in = focus_input(5);   /* the path up to the root does not fit: the rest goes as without a focus */
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t five[] = { F_RUN, F_B, F_A, F_A1, F_B1 };
    check_order(&g, five, LEN(five));
    tg_graph_free(&g);

    in = focus_input(6);   /* it fits: run and main */
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t six[] = { F_RUN, F_MAIN, F_B, F_A, F_A1, F_B1 };
    check_order(&g, six, LEN(six));
    ck_assert_uint_eq(g.capped, 0);
    tg_graph_free(&g);

    in = focus_input(1);   /* without a focus, b1 is cut, and no hot spot's path fits one box */
    in.focus = NULL;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t plain[] = { F_RUN };
    check_order(&g, plain, LEN(plain));
    ck_assert_uint_eq(g.cut, 1);
    tg_graph_free(&g);
}
END_TEST

START_TEST(ties_go_to_the_tie_break_then_the_name)
{
    static const uint64_t total[] = { 10, 10, 10 };
    static const uint64_t self[] = { 5, 5, 5 };
    static const uint64_t tie[] = { 1, 2, 1 };
    static const char *const names[] = { "b", "c", "a" };
    tg_graph_input in = input(3, total, self, names, NULL, 0);
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t by_name[] = { 2, 0, 1 };
    check_order(&g, by_name, LEN(by_name));
    tg_graph_free(&g);

    in.self_tie = tie;
    ck_assert(tg_graph_build(&g, &in));
    static const uint32_t by_tie[] = { 1, 2, 0 };
    check_order(&g, by_tie, LEN(by_tie));
    tg_graph_free(&g);
}
END_TEST

/*
 * hub calls nine blocks, b1 the heaviest; b9 is also called, more
 * heavily, by other. hub's eight children (whose heaviest caller it is)
 * go in rows of TG_GRAPH_ROW_CHILDREN (4), the heaviest nearest: minlen
 * 1, 1, 1, 1, 2, 2, 2, 2. other, with one child, is not staggered, and
 * hub -> b9 is not a child's edge. A self-call is no one's child.
 */
START_TEST(a_box_with_many_children_has_them_in_rows)
{
    enum { HUB = 0, OTHER = 10, ROOT = 11, NODES = 12 };
    uint64_t total[NODES], self[NODES];
    const char *names[NODES] = { "hub", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "other", "root" };
    tg_graph_link links[14];
    size_t n = 0;
    links[n++] = (tg_graph_link)CALL(ROOT, HUB, 900);
    links[n++] = (tg_graph_link)CALL(ROOT, OTHER, 50);
    links[n++] = (tg_graph_link)CALL(HUB, HUB, 5);
    for (uint32_t b = 1; b <= 9; b++) {
        total[b] = self[b] = b == 9 ? 40 : 100 - b;
        links[n++] = (tg_graph_link)CALL(HUB, b, b == 9 ? 10 : 100 - b);
    }
    links[n++] = (tg_graph_link)CALL(OTHER, 9, 30);
    total[HUB] = 900, self[HUB] = 100;
    total[OTHER] = 50, self[OTHER] = 20;
    total[ROOT] = 1000, self[ROOT] = 50;
    tg_graph_input in = input(NODES, total, self, names, links, n);
    in.whole = 1000;
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    ck_assert_uint_eq(g.edge_count, n);
    uint32_t rows[NODES] = { 0 }, self_call = 0, from_root = 0;
    for (size_t i = 0; i < g.edge_count; i++) {
        const tg_graph_edge *e = &g.edges[i];
        if (e->from == HUB && e->to == HUB) self_call = e->minlen;
        else if (e->from == HUB) rows[e->to] = e->minlen;
        else if (e->from == ROOT) from_root += e->minlen;
        else ck_assert_uint_eq(e->minlen, 1);   /* other -> b9 */
    }
    static const uint32_t want[] = { 0, 1, 1, 1, 1, 2, 2, 2, 2, 1 };
    for (uint32_t b = 1; b <= 9; b++) ck_assert_uint_eq(rows[b], want[b]);
    ck_assert_uint_eq(self_call, 1);
    ck_assert_uint_eq(from_root, 2);
    tg_graph_free(&g);
}
END_TEST

START_TEST(broken_links_and_empty_inputs_are_harmless)
{
    static const uint64_t total[] = { 10, 5 };
    static const uint64_t self[] = { 5, 5 };
    static const char *const names[] = { "a", "b" };
    static const tg_graph_link links[] = { CALL(0, 7, 3), CALL(9, 1, 3), CALL(0, 1, 5) };
    tg_graph_input in = input(2, total, self, names, links, LEN(links));
    tg_graph g;
    ck_assert(tg_graph_build(&g, &in));
    ck_assert_uint_eq(g.kept, 2);
    ck_assert_uint_eq(g.edge_count, 1);
    check_edge(&g, 0, 0, 1, 5, 2);
    tg_graph_free(&g);

    tg_graph_input none = input(0, NULL, NULL, NULL, NULL, 0);
    ck_assert(tg_graph_build(&g, &none));
    ck_assert_uint_eq(g.kept, 0);
    ck_assert_uint_eq(g.edge_count, 0);
    tg_graph_free(&g);
}
END_TEST

static Suite *graph_suite(void)
{
    Suite *s = suite_create("graph");
    TCase *tc = tcase_create("graph");
    tcase_add_test(tc, nothing_hidden_keeps_every_node_and_link_heaviest_first);
    tcase_add_test(tc, the_heaviest_cap_keeps_the_spine_and_bridges_to_the_hot_spot);
    tcase_add_test(tc, the_coverage_cap_keeps_the_hot_spot_whose_path_fits);
    tcase_add_test(tc, the_coverage_cap_passes_over_frames_of_negligible_self);
    tcase_add_test(tc, the_coverage_cap_takes_a_leaf_without_self_time_by_its_total);
    tcase_add_test(tc, cuts_count_what_they_drop);
    tcase_add_test(tc, a_dotted_edge_carries_the_widest_paths_narrowest_call);
    tcase_add_test(tc, a_dotted_edge_beside_another_path_is_redundant);
    tcase_add_test(tc, ghost_links_are_drawn_after_calls_and_never_bridged_through);
    tcase_add_test(tc, focus_hides_unrelated_nodes_and_they_never_bridge);
    tcase_add_test(tc, focus_does_not_walk_down_through_a_hub_above_the_match);
    tcase_add_test(tc, focus_draws_the_matches_first_then_their_callers_and_callees_then_the_roots);
    tcase_add_test(tc, ties_go_to_the_tie_break_then_the_name);
    tcase_add_test(tc, a_box_with_many_children_has_them_in_rows);
    tcase_add_test(tc, broken_links_and_empty_inputs_are_harmless);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(graph_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

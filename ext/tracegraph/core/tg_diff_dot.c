/*
 * tg_diff_dot.c - renders the change from a base to a head tg_model as
 * a Graphviz DOT call graph (see tg_diff_dot.h for what it shows).
 *
 * Reads top-down in the order the work happens:
 *   1. merge      - the two models matched by method name
 *                   (tg_diff_merge.h), and the metric and scale the
 *                   graph is drawn in
 *   2. the graph  - the merged nodes and edges handed to tg_graph by
 *                   max(head, base), which keeps the boxes (ignore,
 *                   focus, node cut, cap), the edges between them (base-only ones as
 *                   ghosts) and dotted edges for head's paths through
 *                   hidden nodes
 *   3. emission   - legend, nodes, edges as DOT text
 *
 * What picks, sizes and colours (time, or objects allocated) is read
 * through metric_total() and metric_self(), so both metrics share one code.
 *
 * Steps 1-2 only compute numbers; step 3 only formats them, in the look
 * it shares with tg_dot (tg_dot_style.h). Every piece of text that
 * reaches the output goes through tg_escape_dot().
 */
#include "tg_diff_dot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tg_buf.h"
#include "tg_diff_merge.h"
#include "tg_dot_style.h"
#include "tg_format.h"
#include "tg_graph.h"

#define ARROW " \xE2\x86\x92 "   /* " → " */
#define MIDDOT " \xC2\xB7 "      /* " · " */
#define TIMES "\xC3\x97"         /* "×" */

/* Ghosts (only in base) are drawn in the blue end of the scale. */
#define GHOST_BORDER "#2166ac"
#define GHOST_FILL "#f4f8fc"

void tg_diff_dot_options_default(tg_diff_dot_options *o)
{
    o->node_fraction = TG_GRAPH_DEFAULT_NODE_FRACTION;
    o->edge_fraction = TG_GRAPH_DEFAULT_EDGE_FRACTION;
    o->max_nodes = TG_GRAPH_DEFAULT_MAX_NODES;
    o->normalize = false;
    o->cwd = NULL;
    o->base_allocations = o->head_allocations = NULL;
    o->metric = TG_DOT_BY_TIME;
    o->base_focus = o->head_focus = NULL;
    o->focus_paths = false;
    o->focus_left_out = 0;
    o->edge_calls_only = false;
    o->base_ignore = o->head_ignore = NULL;
    o->notes = NULL;
    o->note_count = 0;
}

/* ------------------------------------------------------------------ */
/* 1. merge                                                           */

/* Everything the diff graph is drawn from. */
typedef struct diff {
    const tg_model *head, *base;
    bool edge_calls_only;          /* tg_diff_dot_options' */
    const tg_diff_dot_allocations *alloc[2];   /* head's and base's counts, or both NULL */
    bool by_allocations;           /* the metric is objects allocated, not time */
    uint64_t grand;                /* the colour and cut scale: max(head total, scaled base total), or
                                      max(head, base) objects by allocations */
    tg_diff_merge m;               /* the methods and edges of both, matched by name */
    tg_graph g;                    /* what is drawn, and what was dropped */
    uint64_t max_self;             /* the largest self amount a kept box is sized by */
} diff;

/*
 * The metric: everything that picks, sizes or colours reads a side's
 * amount through these, so time and allocations share one code.
 */
static uint64_t metric_total(const diff *d, const tg_diff_side *s)
{
    return tg_diff_side_total(s, d->by_allocations);
}

static uint64_t metric_self(const diff *d, const tg_diff_side *s)
{
    return tg_diff_side_self(s, d->by_allocations);
}

static uint64_t heavier(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* ------------------------------------------------------------------ */
/* 2. the graph                                                       */

/* The self amount a box is sized by: head's, or base's for a ghost. */
static uint64_t shown_self(const diff *d, const tg_diff_node *n)
{
    return metric_self(d, n->head.present ? &n->head : &n->base);
}

/* Head's amount through the call, or base's for a ghost edge, in the metric. */
static uint64_t edge_shown(const diff *d, const tg_diff_edge *e)
{
    return metric_total(d, e->head.present ? &e->head : &e->base);
}

static int compare_node_name(const void *key, const void *node)
{
    return strcmp((const char *)key, ((const tg_diff_node *)node)->name);
}

/*
 * Per merged node (sorted by name): 1 where a method of that name is
 * flagged in base or in head. NULL when neither model has flags, or
 * out of memory (*failed then set).
 */
static uint8_t *merged_flags(const diff *d, const uint8_t *base_flags, const uint8_t *head_flags, bool *failed)
{
    if (!base_flags && !head_flags) return NULL;
    uint8_t *flags = calloc(d->m.node_count + 1, 1);
    if (!flags) {
        *failed = true;
        return NULL;
    }
    const tg_model *models[2] = { d->base, d->head };
    const uint8_t *given[2] = { base_flags, head_flags };
    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; given[side] && i < models[side]->method_count; i++) {
            if (!given[side][i]) continue;
            const tg_diff_node *n = bsearch(tg_model_method_name(&models[side]->methods[i]), d->m.nodes,
                                            d->m.node_count, sizeof *d->m.nodes, compare_node_name);
            if (n) flags[n - d->m.nodes] = 1;
        }
    }
    return flags;
}

/*
 * The graph of merged nodes and edges (tg_graph.h), each weighed by its
 * heavier side in the metric, chosen as the call graph's are: head's hot
 * spots first under the cap, each with its path to the roots, frames of
 * negligible self left to dotted edges (self: the heavier side's; ties: head's),
 * calls only base made drawn as ghosts, and dotted edges along head's
 * calls through hidden nodes, cut and pruned as the call graph's are
 * (their widest path's estimate is not drawn: they keep the graph
 * connected). Then the largest self amount a kept box is sized by.
 */
static bool plan_graph(diff *d, const tg_diff_dot_options *o)
{
    size_t n = d->m.node_count;
    uint64_t *total = malloc((n + 1) * sizeof *total), *self = malloc((n + 1) * sizeof *self);
    uint64_t *tie = malloc((n + 1) * sizeof *tie);
    const char **names = malloc((n + 1) * sizeof *names);
    tg_graph_link *links = malloc((d->m.edge_count + 1) * sizeof *links);
    bool failed = false;
    uint8_t *focus = merged_flags(d, o->base_focus, o->head_focus, &failed);
    uint8_t *ignore = merged_flags(d, o->base_ignore, o->head_ignore, &failed);
    bool ok = total && self && tie && names && links && !failed;
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            const tg_diff_node *node = &d->m.nodes[i];
            total[i] = node->weight;
            /* The heavier side's self, as weights are: a method gone from base is a hot spot too. */
            uint64_t hs = metric_self(d, &node->head), bs = metric_self(d, &node->base);
            self[i] = hs > bs ? hs : bs;
            tie[i] = hs;
            names[i] = node->name;
        }
        for (size_t i = 0; i < d->m.edge_count; i++) {
            const tg_diff_edge *e = &d->m.edges[i];
            links[i] = (tg_graph_link){ e->from, e->to, e->weight, !e->head.present };
        }
        tg_graph_input in = { .node_count = n, .total = total, .self = self, .self_tie = tie, .names = names,
                              .links = links, .link_count = d->m.edge_count, .whole = d->grand,
                              .node_fraction = o->node_fraction, .edge_fraction = o->edge_fraction,
                              .max_nodes = o->max_nodes, .ignore = ignore, .focus = focus,
                              .focus_paths = o->focus_paths, .focus_left_out = o->focus_left_out,
                              .cap = TG_GRAPH_CAP_COVERAGE, .hidden = TG_GRAPH_HIDDEN_WIDEST };
        ok = tg_graph_build(&d->g, &in);
    }
    free(total);
    free(self);
    free(tie);
    free(names);
    free(links);
    free(focus);
    free(ignore);
    for (size_t i = 0; ok && i < d->g.kept; i++) {
        uint64_t s = shown_self(d, &d->m.nodes[d->g.order[i]]);
        if (s > d->max_self) d->max_self = s;
    }
    return ok;
}

/* ------------------------------------------------------------------ */
/* 3. emission                                                        */

/*
 * The diverging scale (ColorBrewer RdBu): near-white at 0, to deep red
 * for growth and deep blue for shrinkage, on the same sqrt scale as
 * tg_dot's heat. The depth is the change as a share of the run, deepest
 * from a quarter of it (SATURATION): a method that doubles while taking
 * half the run, or any run that doubles, is unmistakably red, and a
 * change of 2% of the run is already visibly warm.
 */
#define SATURATION 4
static const tg_style_rgb RED[TG_STYLE_SCALE_STOPS] = {
    { 247, 247, 247 }, { 253, 219, 199 }, { 244, 165, 130 }, { 214, 96, 77 }, { 178, 24, 43 },
};
static const tg_style_rgb BLUE[TG_STYLE_SCALE_STOPS] = {
    { 247, 247, 247 }, { 209, 229, 240 }, { 146, 197, 222 }, { 67, 147, 195 }, { 33, 102, 172 },
};

/* The colour of a change of `share` of the run (negative: shrank). */
static tg_style_rgb shade_of_share(double share)
{
    double f = fabs(share) * SATURATION;
    return tg_style_scale_color(share >= 0 ? RED : BLUE, f > 1.0 ? 1.0 : f);
}

static tg_style_rgb diverging(uint64_t head, uint64_t base, uint64_t whole)
{
    if (!whole) return RED[0];
    uint64_t change = head >= base ? head - base : base - head;
    double share = (double)change / (double)whole;
    return shade_of_share(head >= base ? share : -share);
}

/*
 * The scale as a swatch beside the legend: the colour of a change of
 * -25%, -10%, -2%, 0, +2%, +10% and +25% of the run (of its time, or of
 * its objects), each cell labelled. In the legend's top rank: left to
 * rank itself, it pushed the graph's boxes aside (rubocop by gem: 2,727
 * points wide instead of 2,366).
 */
static void emit_swatch(tg_buf *b, const diff *d)
{
    static const int steps[] = { -25, -10, -2, 0, 2, 10, 25 };
    tg_buf_puts(b, "  { rank=source; legend_scale [shape=plaintext, margin=0, fillcolor=\"#ffffff\", tooltip=\"Colour scale\", label=<"
                   "<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"5\">"
                   "<tr><td colspan=\"7\">");
    tg_buf_puts(b, d->by_allocations ? "change in self allocations, as a share of all the run's objects"
                                     : "change in self time, as a share of the whole run");
    tg_buf_puts(b, "</td></tr><tr>");
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        tg_style_rgb c = shade_of_share(steps[i] / 100.0);
        bool dark = c.r * 299 + c.g * 587 + c.b * 114 < 150 * 1000;
        tg_buf_printf(b, "<td bgcolor=\"#%02x%02x%02x\"><font color=\"%s\">%s%d%%</font></td>", c.r, c.g, c.b,
                      dark ? "#ffffff" : "#000000", steps[i] > 0 ? "+" : "", steps[i]);
    }
    tg_buf_puts(b, "</tr></table>>]; }\n");
}

/* "+4.00 ms, +49.0%" / "-1.20 ms, -10.0%" / "+3.00 ms" (base 0) / "no change". */
static void put_change(tg_buf *b, uint64_t base, uint64_t head, bool with_percent)
{
    char t[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    if (head == base) {
        tg_buf_puts(b, "no change");
        return;
    }
    char sign = head > base ? '+' : '-';
    uint64_t delta = head > base ? head - base : base - head;
    tg_buf_printf(b, "%c%s", sign, tg_format_ns(t, sizeof t, delta));
    if (with_percent && base) tg_buf_printf(b, ", %c%s", sign, tg_format_percent(pct, sizeof pct, delta, base));
}

/* A count's change: "+300, +30.0%" with both, "+300" or "+30.0%" with
 * one; "+7" from 0, whatever is asked; "no change". */
static void put_count_change(tg_buf *b, uint64_t base, uint64_t head, bool with_delta, bool with_percent)
{
    char c[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    if (head == base) {
        tg_buf_puts(b, "no change");
        return;
    }
    char sign = head > base ? '+' : '-';
    uint64_t delta = head > base ? head - base : base - head;
    with_percent = with_percent && base;
    with_delta = with_delta || !with_percent;
    if (with_delta) tg_buf_printf(b, "%c%s", sign, tg_format_count(c, sizeof c, delta));
    if (with_delta && with_percent) tg_buf_puts(b, ", ");
    if (with_percent) tg_buf_printf(b, "%c%s", sign, tg_format_percent(pct, sizeof pct, delta, base));
}

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

/* An amount of the metric: "1.20 ms", or "1,200 objects". */
static void put_amount(tg_buf *b, const diff *d, uint64_t v)
{
    char c[TG_FORMAT_SIZE];
    tg_buf_puts(b, tg_style_format_amount(c, sizeof c, d->by_allocations, v));
}

/*
 * "self 12.1 ms\n(+4.00 ms, +49.0%)" for a method present in both: head's
 * amount, and its change on a line of its own so a box is no wider than
 * the call graph's; "self 12.1 ms" alone when it held.
 */
static void put_time_change(tg_buf *b, const char *what, uint64_t base, uint64_t head)
{
    char t[TG_FORMAT_SIZE];
    tg_buf_printf(b, "%s %s", what, tg_format_ns(t, sizeof t, head));
    if (head == base) return;
    tg_buf_puts(b, "\\n(");
    put_change(b, base, head, true);
    tg_buf_puts(b, ")");
}

/* "calls 300 → 450", or "450 calls" when the count held. */
static void put_calls_change(tg_buf *b, uint64_t base, uint64_t head)
{
    char c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE];
    if (head == base) {
        tg_buf_printf(b, "%s call%s", tg_format_count(c1, sizeof c1, head), plural(head));
        return;
    }
    tg_buf_printf(b, "calls %s" ARROW "%s", tg_format_count(c1, sizeof c1, base),
                  tg_format_count(c2, sizeof c2, head));
}

/* A merged node's name, for the legend's focus line and the dotted edges' tooltips. */
static const char *node_name(const void *merged, uint32_t i)
{
    return ((const tg_diff_merge *)merged)->nodes[i].name;
}

/* The legend's first lines: what is compared, the clocks, the totals, the
 * allocations and whether base was normalized. */
static void put_legend_runs(tg_buf *b, tg_buf *line, const diff *d, const tg_diff_dot_options *o)
{
    const tg_model *head = d->head, *base = d->base;
    char t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE], c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE];
    tg_buf_puts(line, "tracegraph diff");
    if (base->program && head->program && strcmp(base->program, head->program) != 0) {
        tg_buf_printf(line, ": %s" ARROW "%s", base->program, head->program);
    } else if (head->program || base->program) {
        tg_buf_printf(line, ": %s", head->program ? head->program : base->program);
    }
    tg_style_put_legend_line(b, line);

    const char *bc = base->clock ? base->clock : "unknown", *hc = head->clock ? head->clock : "unknown";
    if (strcmp(bc, hc) == 0) {
        tg_buf_printf(line, "Clock: %s", hc);
    } else {
        tg_buf_printf(line, "Clock: %s" ARROW "%s", bc, hc);
        tg_style_put_legend_line(b, line);
        tg_buf_puts(line, "(different clocks: changes mix what they measure)");
    }
    tg_style_put_legend_line(b, line);
    /* "total 120 ms → 150 ms (+25.0%)"; the change in time when there is no base to compare with. */
    tg_buf_printf(line, "total %s" ARROW "%s (", tg_format_ns(t1, sizeof t1, base->total_time),
                  tg_format_ns(t2, sizeof t2, head->total_time));
    if (base->total_time && head->total_time != base->total_time) {
        uint64_t delta = head->total_time > base->total_time ? head->total_time - base->total_time
                                                             : base->total_time - head->total_time;
        tg_buf_printf(line, "%c%s", head->total_time > base->total_time ? '+' : '-',
                      tg_format_percent(t1, sizeof t1, delta, base->total_time));
    } else {
        put_change(line, base->total_time, head->total_time, false);
    }
    tg_buf_printf(line, ")" MIDDOT "calls %s" ARROW "%s", tg_format_count(c1, sizeof c1, tg_model_total_calls(base)),
                  tg_format_count(c2, sizeof c2, tg_model_total_calls(head)));
    tg_style_put_legend_line(b, line);
    if (d->alloc[0]) {
        /* "Allocations: 155 → 182 objects (+17.4%)", then "allocs = a box's own" */
        uint64_t bw = d->alloc[1]->whole, hw = d->alloc[0]->whole;
        tg_buf_printf(line, "Allocations: %s" ARROW "%s object%s (", tg_format_count(c1, sizeof c1, bw),
                      tg_format_count(c2, sizeof c2, hw), plural(hw));
        put_count_change(line, bw, hw, false, true);
        tg_buf_puts(line, ")");
        tg_style_put_legend_line(b, line);
        tg_buf_puts(line, "allocs = a box's own");
        tg_style_put_legend_line(b, line);
    }
    if (o->normalize && base->total_time) {
        tg_buf_puts(line, "Normalized: base times scaled \xC3\x97");
        /* The factor with 3 decimals, integer arithmetic only. */
        uint64_t milli = (uint64_t)floor(d->m.scale * 1000.0 + 0.5);
        tg_buf_printf(line, "%llu.%03llu to head's total", (unsigned long long)(milli / 1000),
                      (unsigned long long)(milli % 1000));
        if (d->alloc[0]) tg_buf_puts(line, " (allocation counts are never scaled)");
    } else {
        tg_buf_puts(line, "Not normalized: base times as measured");
    }
    tg_style_put_legend_line(b, line);

}

/* What is shown of the methods, and what was dropped, focused, ignored. */
static void put_legend_shown(tg_buf *b, tg_buf *line, const diff *d, const tg_diff_dot_options *o)
{
    char t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE], c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE];
    tg_buf_printf(line, "Showing %s of %s methods (%s new in head, %s gone from base)",
                  tg_format_count(c1, sizeof c1, d->g.kept), tg_format_count(c2, sizeof c2, d->m.node_count),
                  tg_format_count(t1, sizeof t1, d->m.only_head), tg_format_count(t2, sizeof t2, d->m.only_base));
    tg_style_put_legend_line(b, line);
    tg_style_put_focus_lines(b, &d->g, node_name, &d->m);
    if (d->g.ignored) {
        tg_buf_printf(line, "Ignored %s method%s", tg_format_count(c1, sizeof c1, d->g.ignored),
                      plural(d->g.ignored));
        tg_style_put_legend_line(b, line);
    }
    tg_style_put_dropped_lines(b, &d->g, o->max_nodes, d->by_allocations, " in both");
    tg_style_put_passed_line(b, &d->g);
    tg_style_put_note_lines(b, o->notes, o->note_count);
}

/* How to read boxes and edges. */
static void put_legend_key(tg_buf *b, tg_buf *line, const diff *d, const tg_diff_dot_options *o)
{
    tg_buf_puts(b, "\\l");
    if (d->by_allocations) {
        tg_buf_puts(line, "Box size = head self allocations");
        tg_style_put_legend_line(b, line);
        tg_buf_puts(line, "Colour = change in self allocations");
        tg_style_put_legend_line(b, line);
        tg_buf_puts(line, "Edge width = allocations in the call" MIDDOT "colour = their change");
        tg_style_put_legend_line(b, line);
        tg_buf_puts(line, "Red = grew, blue = shrank, white = held");
        tg_style_put_legend_line(b, line);
        tg_buf_puts(line, "(deepest from a change of 25% of the run's objects)");
    } else {
        tg_buf_puts(line, "Box size = head self time" MIDDOT "colour = change in self time");
        tg_style_put_legend_line(b, line);
        tg_buf_puts(line, "Red = grew, blue = shrank, white = held");
        tg_style_put_legend_line(b, line);
        tg_buf_puts(line, "(deepest from a change of 25% of the run)");
    }
    tg_style_put_legend_line(b, line);
    tg_buf_puts(line, "Numbers are head's, (change) from base; none: it held");
    tg_style_put_legend_line(b, line);
    tg_buf_puts(line, "Dashed blue = only in base (gone)" MIDDOT "\"new\" = only in head");
    tg_style_put_legend_line(b, line);
    if (o->edge_calls_only) {
        tg_buf_puts(line, TG_STYLE_CALLS_ONLY_LEGEND);
        tg_style_put_legend_line(b, line);
    }
    tg_buf_puts(line, "Dotted edge = calls via frames not drawn");
    tg_style_put_legend_line(b, line);
    tg_buf_puts(line, "Dashed grey border = C method");
    tg_style_put_legend_line(b, line);
}

static void emit_legend(tg_buf *b, const diff *d, const tg_diff_dot_options *o)
{
    tg_buf line = TG_BUF_INIT;
    tg_style_put_legend_open(b);
    put_legend_runs(b, &line, d, o);
    if (d->m.node_count == 0) {
        tg_buf_puts(&line, "Nothing was recorded (0 methods).");
        tg_style_put_legend_line(b, &line);
        tg_style_put_legend_close(b);
        tg_buf_free(&line);
        return;
    }
    put_legend_shown(b, &line, d, o);
    put_legend_key(b, &line, d, o);
    tg_style_put_legend_close(b);
    emit_swatch(b, d);
    tg_buf_free(&line);
}

static void emit_node(tg_buf *b, const diff *d, uint32_t index, const tg_diff_dot_options *o)
{
    const tg_diff_node *n = &d->m.nodes[index];
    const tg_model_method *meta = n->meta;
    char c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE], t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE];
    bool ghost = !n->head.present, fresh = !n->base.present;
    tg_buf_printf(b, "  N%u [label=\"", (unsigned)d->g.rank[index] + 1);
    tg_style_put_label_title(b, n->name, meta, o->cwd, NULL);
    /* Times, then own allocations if counted ("allocs 1,000 → 1,300 (+30.0%)"), then calls. */
    if (ghost) {
        tg_buf_printf(b, "\\ngone (only in base)\\nbase self %s\\nbase total %s",
                      tg_format_ns(t1, sizeof t1, n->base.self), tg_format_ns(t2, sizeof t2, n->base.total));
        if (d->alloc[0]) tg_buf_printf(b, "\\nbase allocs %s", tg_format_count(c1, sizeof c1, n->base.self_allocs));
        tg_buf_printf(b, "\\nbase %s call%s", tg_format_count(c1, sizeof c1, n->base.calls), plural(n->base.calls));
    } else if (fresh) {
        tg_buf_printf(b, "\\nnew (only in head)\\nself %s\\ntotal %s", tg_format_ns(t1, sizeof t1, n->head.self),
                      tg_format_ns(t2, sizeof t2, n->head.total));
        if (d->alloc[0]) tg_buf_printf(b, "\\nallocs %s", tg_format_count(c1, sizeof c1, n->head.self_allocs));
        tg_buf_printf(b, "\\n%s call%s", tg_format_count(c1, sizeof c1, n->head.calls), plural(n->head.calls));
    } else {
        tg_buf_puts(b, "\\n");
        put_time_change(b, "self", n->base.self, n->head.self);
        tg_buf_puts(b, "\\n");
        put_time_change(b, "total", n->base.total, n->head.total);
        if (d->alloc[0] && n->head.self_allocs == n->base.self_allocs) {
            tg_buf_printf(b, "\\nallocs %s", tg_format_count(c1, sizeof c1, n->head.self_allocs));
        } else if (d->alloc[0]) {
            tg_buf_printf(b, "\\nallocs %s" ARROW "%s\\n(", tg_format_count(c1, sizeof c1, n->base.self_allocs),
                          tg_format_count(c2, sizeof c2, n->head.self_allocs));
            put_count_change(b, n->base.self_allocs, n->head.self_allocs, false, true);
            tg_buf_puts(b, ")");
        }
        tg_buf_puts(b, "\\n");
        put_calls_change(b, n->base.calls, n->head.calls);
    }

    tg_buf_puts(b, "\", tooltip=\"");
    tg_style_put_tooltip_title(b, n->name, meta);
    static const char *const what[] = { "self", "total" };
    for (int i = 0; i < 2; i++) {
        uint64_t bv = i ? n->base.total : n->base.self, hv = i ? n->head.total : n->head.self;
        tg_buf_printf(b, "\\n%s: %s" ARROW "%s (", what[i], n->base.present ? tg_format_ns(t1, sizeof t1, bv) : "none",
                      n->head.present ? tg_format_ns(t2, sizeof t2, hv) : "none");
        put_change(b, bv, hv, true);
        tg_buf_puts(b, ")");
    }
    static const char *const allocated[] = { "self allocations", "total allocations" };
    for (int i = 0; d->alloc[0] && i < 2; i++) {
        uint64_t bv = i ? n->base.allocs : n->base.self_allocs, hv = i ? n->head.allocs : n->head.self_allocs;
        tg_buf_printf(b, "\\n%s: %s" ARROW "%s (", allocated[i],
                      n->base.present ? tg_format_count(c1, sizeof c1, bv) : "none",
                      n->head.present ? tg_format_count(c2, sizeof c2, hv) : "none");
        put_count_change(b, bv, hv, true, true);
        tg_buf_puts(b, ")");
    }
    tg_buf_printf(b, "\\ncalls: %s" ARROW "%s", tg_format_count(c1, sizeof c1, n->base.calls),
                  tg_format_count(c2, sizeof c2, n->head.calls));
    if (meta->is_c) tg_buf_puts(b, "\\nimplemented in C");
    tg_buf_puts(b, "\"");

    /* Size by the self amount shown, colour by its change (time, or allocations). */
    tg_style_put_box_size(b, shown_self(d, n), d->max_self);
    if (ghost) {
        tg_buf_puts(b, ", fillcolor=\"" GHOST_FILL "\", color=\"" GHOST_BORDER "\", fontcolor=\"" GHOST_BORDER
                       "\", penwidth=2.0, style=\"filled,rounded,dashed\"];\n");
        return;
    }
    tg_style_put_box_colors(b, diverging(metric_self(d, &n->head), metric_self(d, &n->base), d->grand));
    if (meta->is_c) tg_buf_puts(b, ", style=\"filled,rounded,dashed\"");
    tg_buf_puts(b, "];\n");
}

static void emit_edge(tg_buf *b, const diff *d, const tg_graph_edge *ge, bool large)
{
    char c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE], t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE];
    /* A dotted edge has no numbers of its own: both sides absent. */
    static const tg_diff_edge no_numbers;
    const tg_diff_edge *e = ge->dotted ? &no_numbers : &d->m.edges[ge->link];
    const tg_diff_node *from = &d->m.nodes[ge->from], *to = &d->m.nodes[ge->to];
    bool dotted = ge->dotted, ghost = !dotted && !e->head.present;
    tg_buf_printf(b, "  N%u -> N%u [", (unsigned)ge->from_rank + 1, (unsigned)ge->to_rank + 1);
    if (!large) {
        tg_buf_puts(b, "label=\" ");
        if (dotted) {
            tg_buf_printf(b, "via %u frame%s", (unsigned)ge->via_len, ge->via_len == 1 ? "" : "s");
        } else if (ghost && d->edge_calls_only) {
            tg_buf_printf(b, "gone \\n was " TIMES "%s", tg_format_count(c1, sizeof c1, e->base.calls));
        } else if (ghost) {
            tg_buf_printf(b, "gone \\n was " TIMES "%s \\n %s", tg_format_count(c1, sizeof c1, e->base.calls),
                          tg_format_ns(t1, sizeof t1, e->base.total));
            if (d->by_allocations) {
                tg_buf_puts(b, MIDDOT);
                put_amount(b, d, e->base.allocs);
            }
        } else if (d->edge_calls_only) {
            /* The calls, and base's when they changed: "×450 \n (was ×400)". */
            tg_buf_printf(b, TIMES "%s", tg_format_count(c1, sizeof c1, e->head.calls));
            if (!e->base.present) tg_buf_puts(b, " \\n (new)");
            else if (e->base.calls != e->head.calls)
                tg_buf_printf(b, " \\n (was " TIMES "%s)", tg_format_count(c2, sizeof c2, e->base.calls));
        } else {
            /* As the call graph's, the calls over the amount, and the change on a line of its own:
             * "×450 \n 130 ms \n (+30.0 ms)", "×450 \n 130 ms · 1,300 objects \n (+300)"; none when it held. */
            tg_buf_printf(b, TIMES "%s \\n %s", tg_format_count(c1, sizeof c1, e->head.calls),
                          tg_format_ns(t1, sizeof t1, e->head.total));
            if (d->by_allocations) {
                tg_buf_puts(b, MIDDOT);
                put_amount(b, d, e->head.allocs);
            }
            if (!e->base.present) {
                tg_buf_puts(b, " \\n (new)");
            } else if (d->by_allocations ? e->base.allocs != e->head.allocs : e->base.total != e->head.total) {
                tg_buf_puts(b, " \\n (");
                if (d->by_allocations)
                    put_count_change(b, e->base.allocs, e->head.allocs, true, false);
                else
                    put_change(b, e->base.total, e->head.total, false);
                tg_buf_puts(b, ")");
            }
        }
        tg_buf_puts(b, " \", ");
    }

    tg_buf_puts(b, "tooltip=\"");
    tg_style_put_call_names(b, from->name, to->name);
    if (dotted) {
        tg_buf_printf(b, "\\nhead calls via %u hidden frame%s", (unsigned)ge->via_len, ge->via_len == 1 ? "" : "s");
        tg_style_put_via_names(b, &d->g, ge, node_name, &d->m);
    } else {
        tg_buf_printf(b, "\\ncalls: %s" ARROW "%s", tg_format_count(c1, sizeof c1, e->base.calls),
                      tg_format_count(c2, sizeof c2, e->head.calls));
    }
    if (!dotted && d->edge_calls_only) {
        tg_buf_puts(b, TG_STYLE_CALLS_ONLY_TOOLTIP);
        if (ghost) tg_buf_puts(b, "\\nonly in base");
        if (!e->base.present) tg_buf_puts(b, "\\nnew in head");
    } else if (!dotted) {
        tg_buf_printf(b, "\\ntotal: %s" ARROW "%s (", tg_format_ns(t1, sizeof t1, e->base.total),
                      tg_format_ns(t2, sizeof t2, e->head.total));
        put_change(b, e->base.total, e->head.total, true);
        tg_buf_puts(b, ")");
        if (d->alloc[0]) {
            tg_buf_printf(b, "\\nallocations: %s" ARROW "%s (", tg_format_count(c1, sizeof c1, e->base.allocs),
                          tg_format_count(c2, sizeof c2, e->head.allocs));
            put_count_change(b, e->base.allocs, e->head.allocs, true, true);
            tg_buf_puts(b, ")");
        }
        if (ghost) tg_buf_puts(b, "\\nonly in base");
        if (!e->base.present) tg_buf_puts(b, "\\nnew in head");
    }
    tg_buf_puts(b, "\"");

    double f = dotted || d->edge_calls_only ? 0.0 : tg_style_fraction_of(edge_shown(d, e), d->grand);
    tg_style_put_edge_width(b, f);
    if (ghost) {
        tg_buf_puts(b, ", color=\"" GHOST_BORDER "\", fontcolor=\"" GHOST_BORDER "\"");
    } else if (d->edge_calls_only) {
        tg_style_put_edge_color(b, TG_STYLE_CALLS_ONLY_EDGE);
    } else {
        tg_style_put_edge_color(b, diverging(metric_total(d, &e->head), metric_total(d, &e->base), d->grand));
    }
    /* Head's heavy calls pull their boxes into line; base's ghosts do not. */
    tg_style_put_edge_layout(b, ge, f, !dotted && !ghost);
    if (ghost) tg_buf_puts(b, ", style=dashed");
    tg_buf_puts(b, "];\n");
}

static void emit(tg_buf *b, const diff *d, const tg_diff_dot_options *o)
{
    bool large = d->g.kept > TG_STYLE_LARGE_GRAPH_NODES;
    tg_style_put_graph_open(b, "tracegraph_diff", large);
    emit_legend(b, d, o);
    for (size_t i = 0; i < d->g.kept; i++) emit_node(b, d, d->g.order[i], o);
    for (size_t i = 0; i < d->g.edge_count; i++) emit_edge(b, d, &d->g.edges[i], large);
    tg_buf_puts(b, "}\n");
}

/* ------------------------------------------------------------------ */

char *tg_diff_dot_render(const tg_model *base, const tg_model *head, const tg_diff_dot_options *o, size_t *len)
{
    tg_diff_dot_options defaults;
    if (!o) {
        tg_diff_dot_options_default(&defaults);
        o = &defaults;
    }
    diff d = { .head = head, .base = base };
    double scale = 1.0;
    if (o->normalize && base->total_time && head->total_time != base->total_time)
        scale = (double)head->total_time / (double)base->total_time;
    uint64_t base_total = o->normalize && base->total_time ? head->total_time : base->total_time;
    d.grand = heavier(head->total_time, base_total);
    d.edge_calls_only = o->edge_calls_only;
    if (o->head_allocations && o->base_allocations) {
        d.alloc[0] = o->head_allocations;
        d.alloc[1] = o->base_allocations;
        d.by_allocations = o->metric == TG_DOT_BY_ALLOCATIONS;
        if (d.by_allocations) d.grand = heavier(o->head_allocations->whole, o->base_allocations->whole);
    }

    tg_buf b = TG_BUF_INIT;
    bool ok = tg_diff_merge_build(&d.m, base, head, d.alloc[1], d.alloc[0], scale, d.by_allocations) &&
              plan_graph(&d, o);
    if (ok) emit(&b, &d, o);
    tg_diff_merge_free(&d.m);
    tg_graph_free(&d.g);
    if (!ok) {
        tg_buf_free(&b);
        if (len) *len = 0;
        return NULL;
    }
    return tg_buf_take(&b, len);
}

/*
 * tg_dot.c - renders a tg_model as a Graphviz DOT call graph.
 *
 * Reads top-down in the order the work happens:
 *   1. the graph  - methods and edges in the metric (time, or objects
 *                   allocated) handed to tg_graph, which keeps the boxes
 *                   (ignore, focus, node cut, cap), the edges between
 *                   them and the dotted paths through hidden methods
 *   2. emission   - legend, nodes, edges as DOT text
 *
 * Step 1 only computes numbers; step 2 only formats them, in the look it
 * shares with the diff graph (tg_dot_style.h). Every piece of text
 * that reaches the output goes through tg_escape_dot().
 */
#include "tg_dot.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tg_buf.h"
#include "tg_dot_style.h"
#include "tg_escape.h"
#include "tg_format.h"
#include "tg_graph.h"

void tg_dot_options_default(tg_dot_options *o)
{
    o->node_fraction = TG_GRAPH_DEFAULT_NODE_FRACTION;
    o->edge_fraction = TG_GRAPH_DEFAULT_EDGE_FRACTION;
    o->max_nodes = TG_GRAPH_DEFAULT_MAX_NODES;
    o->focus = NULL;
    o->focus_paths = false;
    o->focus_left_out = 0;
    o->edge_calls_only = false;
    o->total_calls = 0;
    o->ignore = NULL;
    o->cwd = NULL;
    o->waiting = NULL;
    o->thread_count = o->threads_recorded = 0;
    o->thread_names = NULL;
    o->wall_time = o->hidden_waiting = 0;
    o->waiting_where = NULL;
    o->context = NULL;
    o->tooltips = NULL;
    o->notes = NULL;
    o->note_count = 0;
    o->recorded_by = NULL;
    o->short_files = NULL;
    o->method_total = 0;
    o->edge_via = NULL;
    o->self_allocations = o->allocations = NULL;
    o->total_allocations = 0;
    o->edge_allocations = NULL;
    o->allocation_types = NULL;
    o->metric = TG_DOT_BY_TIME;
    o->held_whole = 0;
}

/* ------------------------------------------------------------------ */
/* 1. the graph                                                       */

typedef struct plan {
    const tg_model *r;
    const tg_dot_options *o;
    bool by_allocations;       /* the metric is objects allocated, not time */
    uint64_t whole;            /* the metric's total: the model's time, or total_allocations */
    tg_graph g;                /* what is drawn, and what was dropped */
    uint64_t shown_self, max_self;   /* of the kept boxes, in the metric */
} plan;

/*
 * The metric: everything that picks, sizes or colours reads a method's or
 * an edge's amount through these, so time and allocations share one code.
 */
static void plan_metric(plan *p, const tg_dot_options *o)
{
    p->o = o;
    p->by_allocations = o->metric == TG_DOT_BY_ALLOCATIONS && o->self_allocations && o->allocations &&
                        o->edge_allocations;
    p->whole = p->by_allocations ? o->total_allocations : p->r->total_time;
}

static uint64_t method_total(const plan *p, uint32_t m)
{
    return p->by_allocations ? p->o->allocations[m] : p->r->methods[m].total_time;
}

static uint64_t method_self(const plan *p, uint32_t m)
{
    return p->by_allocations ? p->o->self_allocations[m] : p->r->methods[m].self_time;
}

/* Model edge i's amount. */
static uint64_t edge_amount(const plan *p, size_t i)
{
    return p->by_allocations ? p->o->edge_allocations[i] : p->r->edges[i].total_time;
}

/*
 * The graph of methods and model edges in the metric (tg_graph.h): hot
 * spots first under the cap, dotted edges carrying the widest path's
 * estimate. Then the self amounts the kept boxes hold and are sized by.
 */
static bool plan_graph(plan *p)
{
    const tg_model *r = p->r;
    const tg_dot_options *o = p->o;
    size_t n = r->method_count;
    uint64_t *total = malloc((n + 1) * sizeof *total), *self = malloc((n + 1) * sizeof *self);
    const char **names = malloc((n + 1) * sizeof *names);
    tg_graph_link *links = malloc((r->edge_count + 1) * sizeof *links);
    bool ok = total && self && names && links;
    if (ok) {
        for (size_t m = 0; m < n; m++) {
            total[m] = method_total(p, (uint32_t)m);
            self[m] = method_self(p, (uint32_t)m);
            names[m] = tg_model_method_name(&r->methods[m]);
        }
        for (size_t i = 0; i < r->edge_count; i++)
            links[i] = (tg_graph_link){ r->edges[i].caller, r->edges[i].callee, edge_amount(p, i), false };
        tg_graph_input in = { .node_count = n, .total = total, .self = self, .names = names,
                              .links = links, .link_count = r->edge_count, .whole = p->whole,
                              .node_fraction = o->node_fraction, .edge_fraction = o->edge_fraction,
                              .max_nodes = o->max_nodes, .ignore = o->ignore, .focus = o->focus,
                              .focus_paths = o->focus_paths, .focus_left_out = o->focus_left_out,
                              .cap = TG_GRAPH_CAP_COVERAGE, .hidden = TG_GRAPH_HIDDEN_WIDEST };
        ok = tg_graph_build(&p->g, &in);
    }
    free(total);
    free(self);
    free(names);
    free(links);
    for (size_t i = 0; ok && i < p->g.kept; i++) {
        uint64_t s = method_self(p, p->g.order[i]);
        p->shown_self += s;
        if (s > p->max_self) p->max_self = s;
    }
    return ok;
}

/* ------------------------------------------------------------------ */
/* 2. emission                                                        */

/*
 * The heat scale: pale grey at 0, through peach and orange, to deep red
 * at 1 (ColorBrewer OrRd-like).
 */
static tg_style_rgb heat(double f)
{
    static const tg_style_rgb stops[TG_STYLE_SCALE_STOPS] = {
        { 242, 242, 242 }, { 254, 232, 200 }, { 253, 187, 132 }, { 239, 101, 72 }, { 179, 0, 0 },
    };
    return tg_style_scale_color(stops, f);
}

static void put_time_line(tg_buf *b, const char *what, uint64_t ns, uint64_t whole)
{
    char t[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    tg_buf_printf(b, "%s %s (%s)", what, tg_format_ns(t, sizeof t, ns),
                  tg_format_percent(pct, sizeof pct, ns, whole));
}

/* The self time of the waiting methods, saturating. */
static uint64_t waiting_time(const tg_model *r, const tg_dot_options *o)
{
    uint64_t sum = 0;
    for (size_t m = 0; o->waiting && m < r->method_count; m++) {
        if (!o->waiting[m]) continue;
        uint64_t t = r->methods[m].self_time;
        sum = t > UINT64_MAX - sum ? UINT64_MAX : sum + t;
    }
    return sum;
}

/* What the total is: with several threads, their times are summed, so
 * say so ("6 threads, 103 s of thread time in 17.7 s of wall time"). */
static void emit_threads_line(tg_buf *b, const tg_model *r, const tg_dot_options *o)
{
    if (o->thread_count == 0) return;
    char t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE], c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE];
    tg_buf line = TG_BUF_INIT;
    tg_buf_printf(&line, "%s thread%s", tg_format_count(c1, sizeof c1, o->thread_count), o->thread_count == 1 ? "" : "s");
    if (o->threads_recorded > o->thread_count)
        tg_buf_printf(&line, " of %s", tg_format_count(c2, sizeof c2, o->threads_recorded));
    if (o->thread_names && *o->thread_names) tg_buf_printf(&line, " (%s)", o->thread_names);
    tg_buf_printf(&line, ", %s of thread time", tg_format_ns(t1, sizeof t1, r->total_time));
    if (o->wall_time) tg_buf_printf(&line, " in %s of wall time", tg_format_ns(t2, sizeof t2, o->wall_time));
    tg_style_put_legend_line(b, &line);
    tg_buf_free(&line);
}

/* Waiting apart from working: time blocked in sleep, join, locks and I/O
 * waits (grey boxes), or the waiting time left out; where it was
 * ("in 3 threads, Thread::Queue#pop, Kernel#sleep") when known. */
static void emit_waiting_line(tg_buf *b, const tg_model *r, const tg_dot_options *o)
{
    char t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    tg_buf line = TG_BUF_INIT;
    uint64_t waiting = waiting_time(r, o);
    const char *where = o->waiting_where && *o->waiting_where ? o->waiting_where : NULL;
    if (o->hidden_waiting) {
        tg_buf_printf(&line, "Waiting hidden: %s %s \xC2\xB7 --idle show draws it",
                      tg_format_ns(t1, sizeof t1, o->hidden_waiting), where ? where : "in sleep, join, locks, I/O");
        tg_style_put_legend_line(b, &line);
    } else if (waiting) {
        uint64_t working = r->total_time > waiting ? r->total_time - waiting : 0;
        tg_buf_printf(&line, "Waiting %s (%s, grey boxes)%s%s \xC2\xB7 working %s",
                      tg_format_ns(t1, sizeof t1, waiting), tg_format_percent(pct, sizeof pct, waiting, r->total_time),
                      where ? " " : "", where ? where : "", tg_format_ns(t2, sizeof t2, working));
        tg_style_put_legend_line(b, &line);
    }
    tg_buf_free(&line);
}

static const char *model_name(const void *model, uint32_t m)
{
    return tg_model_method_name(&((const tg_model *)model)->methods[m]);
}

/* Last, so a reader finds it in the same place on every graph: whether
 * its stacks came from the VM reads or the public API (docs/rubies.md). */
static void put_recorded_by(tg_buf *b, tg_buf *line, const tg_dot_options *o)
{
    if (!o->recorded_by || !*o->recorded_by) return;
    tg_buf_printf(line, "Recorded with %s", o->recorded_by);
    tg_style_put_legend_line(b, line);
}

static void emit_legend(tg_buf *b, const plan *p, const tg_dot_options *o)
{
    const tg_model *r = p->r;
    char t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE], c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE];
    tg_buf line = TG_BUF_INIT;
    tg_style_put_legend_open(b);
    tg_buf_puts(&line, "tracegraph");
    if (r->program) tg_buf_printf(&line, ": %s", r->program);
    tg_style_put_legend_line(b, &line);
    uint64_t calls = o->total_calls ? o->total_calls : tg_model_total_calls(r);
    tg_buf_printf(&line, "Clock: %s \xC2\xB7 total %s \xC2\xB7 %s call%s", r->clock ? r->clock : "unknown",
                  tg_format_ns(t1, sizeof t1, r->total_time), tg_format_count(c1, sizeof c1, calls),
                  calls == 1 ? "" : "s");
    tg_style_put_legend_line(b, &line);
    emit_threads_line(b, r, o);
    emit_waiting_line(b, r, o);
    const tg_model_gc *gc = r->gc;
    if (gc && (gc->runs || gc->entries)) {
        char t3[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
        tg_buf_printf(&line, "GC: %s run%s, %s step%s, %s (%s) \xC2\xB7 marking %s \xC2\xB7 sweeping %s",
                      tg_format_count(c1, sizeof c1, gc->runs), gc->runs == 1 ? "" : "s",
                      tg_format_count(c2, sizeof c2, gc->entries), gc->entries == 1 ? "" : "s",
                      tg_format_ns(t1, sizeof t1, gc->time), tg_format_percent(pct, sizeof pct, gc->time, r->total_time),
                      tg_format_ns(t2, sizeof t2, gc->mark_time), tg_format_ns(t3, sizeof t3, gc->sweep_time));
        tg_style_put_legend_line(b, &line);
    }
    if (o->self_allocations) {
        tg_buf_printf(&line, "Allocations: %s object%s \xC2\xB7 allocs = a box's own",
                      tg_format_count(c1, sizeof c1, o->total_allocations), o->total_allocations == 1 ? "" : "s");
        tg_style_put_legend_line(b, &line);
    }
    if (r->method_count == 0) {
        tg_buf_puts(&line, "Nothing was recorded (0 methods).");
        tg_style_put_legend_line(b, &line);
        put_recorded_by(b, &line, o);
        tg_style_put_legend_close(b);
        tg_buf_free(&line);
        return;
    }
    const char *held = p->by_allocations ? "allocations" : "self time";
    if (o->method_total && o->method_total != r->method_count)
        tg_buf_printf(&line, "Showing %s box%s for %s methods", tg_format_count(c1, sizeof c1, p->g.kept),
                      p->g.kept == 1 ? "" : "es", tg_format_count(c2, sizeof c2, o->method_total));
    else
        tg_buf_printf(&line, "Showing %s of %s methods", tg_format_count(c1, sizeof c1, p->g.kept),
                      tg_format_count(c2, sizeof c2, r->method_count));
    tg_style_put_legend_line(b, &line);
    uint64_t held_whole = o->held_whole ? o->held_whole : p->whole;
    tg_buf_printf(&line, "The boxes hold %s of %s", tg_format_percent(t1, sizeof t1, p->shown_self, held_whole), held);
    tg_style_put_legend_line(b, &line);
    tg_style_put_focus_lines(b, &p->g, model_name, r);
    if (p->g.ignored) {
        tg_buf_printf(&line, "Ignored %s method%s", tg_format_count(c1, sizeof c1, p->g.ignored),
                      p->g.ignored == 1 ? "" : "s");
        tg_style_put_legend_line(b, &line);
    }
    tg_style_put_dropped_lines(b, &p->g, o->max_nodes, p->by_allocations, "");
    tg_style_put_passed_line(b, &p->g);
    tg_style_put_note_lines(b, o->notes, o->note_count);
    tg_buf_puts(b, "\\l");
    if (p->by_allocations) {
        tg_buf_puts(&line, "Box size = self allocations \xC2\xB7 colour = total allocations");
        tg_style_put_legend_line(b, &line);
        tg_buf_puts(&line, o->edge_calls_only ? "Edge = calls (grey: their amount is not known)"
                                              : "Edge width and colour = allocations through the call");
    } else {
        tg_buf_puts(&line, "Box size = self time \xC2\xB7 colour = total time");
        tg_style_put_legend_line(b, &line);
        tg_buf_puts(&line, o->edge_calls_only ? TG_STYLE_CALLS_ONLY_LEGEND
                                              : "Edge width and colour = time through the call");
    }
    tg_style_put_legend_line(b, &line);
    tg_buf_puts(&line, "Dotted edge = calls via frames not drawn (~ = an estimate)");
    tg_style_put_legend_line(b, &line);
    tg_buf_puts(&line, "Dashed border = C method");
    tg_style_put_legend_line(b, &line);
    if (waiting_time(r, o)) {
        tg_buf_puts(&line, "Grey = waiting (sleep, join, locks, I/O waits)");
        tg_style_put_legend_line(b, &line);
    }
    put_recorded_by(b, &line, o);
    tg_style_put_legend_close(b);
    tg_buf_free(&line);
}

/* Each line of text as a line of a tooltip. */
static void put_tooltip_lines(tg_buf *b, const char *text)
{
    for (const char *s = text; *s;) {
        const char *end = strchr(s, '\n');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        tg_buf_puts(b, "\\n");
        tg_escape_dot(b, s, n, 0);
        s += n + (end != NULL);
    }
}

static void emit_node(tg_buf *b, const plan *p, uint32_t m, const tg_dot_options *o)
{
    const tg_model *r = p->r;
    const tg_model_method *meth = &r->methods[m];
    const char *name = tg_model_method_name(meth);
    char c[TG_FORMAT_SIZE], t[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    tg_buf_printf(b, "  N%u [label=\"", (unsigned)p->g.rank[m] + 1);
    tg_style_put_label_title(b, name, meth, o->cwd, o->short_files ? o->short_files[m] : NULL);
    if (o->context && o->context[m]) tg_style_put_label_context(b, o->context[m]);
    tg_buf_puts(b, "\\n");
    put_time_line(b, "self", meth->self_time, r->total_time);
    tg_buf_puts(b, "\\n");
    put_time_line(b, "total", meth->total_time, r->total_time);
    if (o->self_allocations) {
        tg_buf_printf(b, "\\nallocs %s (%s)", tg_format_count(c, sizeof c, o->self_allocations[m]),
                      tg_format_percent(pct, sizeof pct, o->self_allocations[m], o->total_allocations));
    }
    tg_buf_printf(b, "\\n%s call%s\", tooltip=\"", tg_format_count(c, sizeof c, meth->calls),
                  meth->calls == 1 ? "" : "s");

    tg_style_put_tooltip_title(b, name, meth);
    if (o->context && o->context[m]) tg_style_put_tooltip_context(b, o->context[m]);
    tg_buf_printf(b, "\\nself: %s (%s), %s ns", tg_format_ns(t, sizeof t, meth->self_time),
                  tg_format_percent(pct, sizeof pct, meth->self_time, r->total_time),
                  tg_format_count(c, sizeof c, meth->self_time));
    tg_buf_printf(b, "\\ntotal: %s (%s), %s ns", tg_format_ns(t, sizeof t, meth->total_time),
                  tg_format_percent(pct, sizeof pct, meth->total_time, r->total_time),
                  tg_format_count(c, sizeof c, meth->total_time));
    tg_buf_printf(b, "\\ncalls: %s", tg_format_count(c, sizeof c, meth->calls));
    if (o->self_allocations) {
        char c2[TG_FORMAT_SIZE], pct2[TG_FORMAT_SIZE];
        tg_buf_printf(b, "\\nallocations: self %s (%s), total %s (%s)",
                      tg_format_count(c, sizeof c, o->self_allocations[m]),
                      tg_format_percent(pct, sizeof pct, o->self_allocations[m], o->total_allocations),
                      tg_format_count(c2, sizeof c2, o->allocations[m]),
                      tg_format_percent(pct2, sizeof pct2, o->allocations[m], o->total_allocations));
        if (o->allocation_types && o->allocation_types[m]) {
            tg_buf_puts(b, "\\nby type: ");
            tg_escape_dot(b, o->allocation_types[m], strlen(o->allocation_types[m]), 0);
        }
    }
    if (meth->is_c) tg_buf_puts(b, "\\nimplemented in C");
    if (o->tooltips && o->tooltips[m]) put_tooltip_lines(b, o->tooltips[m]);
    if (o->waiting && o->waiting[m]) tg_buf_puts(b, "\\nwaiting: blocks its thread until something else happens");
    tg_buf_puts(b, "\"");

    /* Size by self, colour by total (time, or allocations); waiting is
     * grey whatever its numbers, so it never looks like hot work. */
    tg_style_put_box_size(b, method_self(p, m), p->max_self);
    bool waiting = o->waiting && o->waiting[m];
    tg_style_put_box_colors(b, waiting ? TG_STYLE_WAITING_FILL
                                       : heat(tg_style_fraction_of(method_total(p, m), p->whole)));
    if (waiting) tg_buf_puts(b, ", fontcolor=\"#505050\"");
    if (meth->is_c) tg_buf_puts(b, ", style=\"filled,rounded,dashed\"");
    tg_buf_puts(b, "];\n");
}

static void emit_edge(tg_buf *b, const plan *p, const tg_graph_edge *e, bool large)
{
    const tg_model *r = p->r;
    const tg_dot_options *o = p->o;
    /* A dotted edge stands for no one model edge: no calls, time or frames of its own. */
    const tg_model_edge *re = e->dotted ? NULL : &r->edges[e->link];
    uint64_t calls = re ? re->calls : 0, time = re ? re->total_time : 0;
    const char *via = re && o->edge_via ? o->edge_via[e->link] : NULL;
    char c[TG_FORMAT_SIZE], t[TG_FORMAT_SIZE], pct[TG_FORMAT_SIZE];
    double f = tg_style_fraction_of(e->amount, p->whole);
    tg_buf_printf(b, "  N%u -> N%u [", (unsigned)e->from_rank + 1, (unsigned)e->to_rank + 1);
    /* Two lines, "×450" (or "via 3 frames") over "130 ms": a label is a
     * box of its own in dot's layout, and one line as wide as both made
     * real programs' graphs a fifth to a half wider. */
    if (!large) {
        tg_buf_puts(b, "label=\" ");
        if (e->dotted) {
            tg_buf_printf(b, "via %u frame%s \\n ~%s", (unsigned)e->via_len, e->via_len == 1 ? "" : "s",
                          tg_style_format_amount(t, sizeof t, p->by_allocations, e->amount));
        } else {
            if (via) {
                size_t frames = 1;
                for (const char *s = via; *s; s++) frames += *s == '\n';
                tg_buf_printf(b, "via %zu frame%s \xC2\xB7 ", frames, frames == 1 ? "" : "s");
            }
            if (o->edge_calls_only) tg_buf_printf(b, "\xC3\x97%s", tg_format_count(c, sizeof c, calls));
            else tg_buf_printf(b, "\xC3\x97%s \\n %s", tg_format_count(c, sizeof c, calls), tg_format_ns(t, sizeof t, time));
            if (p->by_allocations && !o->edge_calls_only)
                tg_buf_printf(b, " \xC2\xB7 %s", tg_style_format_amount(t, sizeof t, true, e->amount));
        }
        tg_buf_puts(b, " \", ");
    }

    tg_buf_puts(b, "tooltip=\"");
    tg_style_put_call_names(b, tg_model_method_name(&r->methods[e->from]), tg_model_method_name(&r->methods[e->to]));
    if (e->dotted) {
        tg_buf_printf(b, "\\nvia %u hidden frame%s, ~%s (%s): the busiest path's narrowest call", (unsigned)e->via_len,
                      e->via_len == 1 ? "" : "s", tg_style_format_amount(t, sizeof t, p->by_allocations, e->amount),
                      tg_format_percent(pct, sizeof pct, e->amount, p->whole));
        tg_style_put_via_names(b, &p->g, e, model_name, r);
    } else if (o->edge_calls_only) {
        tg_buf_printf(b, "\\n%s call%s" TG_STYLE_CALLS_ONLY_TOOLTIP, tg_format_count(c, sizeof c, calls),
                      calls == 1 ? "" : "s");
    } else {
        tg_buf_printf(b, "\\n%s call%s", tg_format_count(c, sizeof c, calls), calls == 1 ? "" : "s");
        tg_buf_printf(b, "\\ntotal: %s (%s)", tg_format_ns(t, sizeof t, time),
                      tg_format_percent(pct, sizeof pct, time, r->total_time));
        tg_buf_printf(b, "\\nself in callee: %s", tg_format_ns(t, sizeof t, re->self_time));
        if (o->edge_allocations)
            tg_buf_printf(b, "\\nallocations: %s (%s)", tg_format_count(c, sizeof c, o->edge_allocations[e->link]),
                          tg_format_percent(pct, sizeof pct, o->edge_allocations[e->link], o->total_allocations));
        if (via) {
            tg_buf_puts(b, "\\nthrough (folded, each with one caller and one callee):");
            for (const char *s = via; *s;) {
                const char *end = strchr(s, '\n');
                size_t n = end ? (size_t)(end - s) : strlen(s);
                tg_buf_puts(b, "\\n  ");
                tg_escape_dot(b, s, n, 0);
                s += n + (end != NULL);
            }
        }
    }
    tg_buf_puts(b, "\"");

    /* Width and colour grow continuously with the amount through the call;
     * with no amount known, thin and grey. */
    if (o->edge_calls_only) f = 0.0;
    tg_style_put_edge_width(b, f);
    tg_style_put_edge_color(b, o->edge_calls_only ? TG_STYLE_CALLS_ONLY_EDGE : heat(f));
    tg_style_put_edge_layout(b, e, f, !e->dotted);
    if (via) tg_buf_puts(b, ", style=bold, arrowhead=veevee");
    tg_buf_puts(b, "];\n");
}

static void emit(tg_buf *b, const plan *p, const tg_dot_options *o)
{
    bool large = p->g.kept > TG_STYLE_LARGE_GRAPH_NODES;
    tg_style_put_graph_open(b, "tracegraph", large);
    emit_legend(b, p, o);
    for (size_t i = 0; i < p->g.kept; i++) emit_node(b, p, p->g.order[i], o);
    for (size_t i = 0; i < p->g.edge_count; i++) emit_edge(b, p, &p->g.edges[i], large);
    tg_buf_puts(b, "}\n");
}

/* ------------------------------------------------------------------ */

char *tg_dot_render(const tg_model *r, const tg_dot_options *o, size_t *len)
{
    tg_dot_options defaults;
    if (!o) {
        tg_dot_options_default(&defaults);
        o = &defaults;
    }
    plan p = { .r = r };
    plan_metric(&p, o);
    tg_buf b = TG_BUF_INIT;
    bool ok = plan_graph(&p);
    if (ok) emit(&b, &p, o);
    tg_graph_free(&p.g);
    if (!ok) {
        tg_buf_free(&b);
        if (len) *len = 0;
        return NULL;
    }
    return tg_buf_take(&b, len);
}

/*
 * tg_dot_style.h - the look shared by the call graph (tg_dot) and the
 * diff graph (tg_diff_dot): graph and legend attributes, colours, box
 * sizes and edge widths, number and text formatting into DOT, and the
 * file locations in labels and tooltips.
 *
 * The two emitters decide what to draw and with which numbers (tg_graph
 * decides which boxes and edges); these helpers decide how it looks, so both graphs read the same way. Every
 * name, path and legend line written here goes through tg_escape_dot(),
 * and nothing depends on the locale: the same input gives the same bytes.
 */
#ifndef TG_DOT_STYLE_H
#define TG_DOT_STYLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tg_buf.h"
#include "tg_graph.h"
#include "tg_model.h"

/* Above this many boxes, edge labels move into tooltips so `dot` stays fast. */
#define TG_STYLE_LARGE_GRAPH_NODES 150

/* No line of a legend or a box is longer than this many characters: a
 * longer one wraps (legend lines go on indented; names and paths in a box
 * wrap at about 28). */
#define TG_STYLE_LINE_CHARS 60

/* Colour stops of a scale, from 0 to 1 at even steps of sqrt(fraction). */
#define TG_STYLE_SCALE_STOPS 5

typedef struct tg_style_rgb {
    int r, g, b;
} tg_style_rgb;

/* The fill of a waiting method's box (sleep, join, I/O waits): a neutral
 * grey, outside the heat scale. */
#define TG_STYLE_WAITING_FILL ((tg_style_rgb){0xE4, 0xE4, 0xE4})
/* An arrow whose time is not known, only its calls (tg_dot_options'
 * edge_calls_only): grey, and the legend's and tooltip's words for it. */
#define TG_STYLE_CALLS_ONLY_EDGE ((tg_style_rgb){0x99, 0x99, 0x99})
#define TG_STYLE_CALLS_ONLY_LEGEND "Edge = calls (grey: their time is not known)"
#define TG_STYLE_CALLS_ONLY_TOOLTIP " (times not counted: see the legend)"

/* part / whole clamped to [0, 1]; 0 when whole is 0. */
double tg_style_fraction_of(uint64_t part, uint64_t whole);

/* The colour at fraction f (0..1) of a scale, on a sqrt scale. */
tg_style_rgb tg_style_scale_color(const tg_style_rgb stops[TG_STYLE_SCALE_STOPS], double f);

/* "digraph <name> {" and the graph, node and edge defaults. */
void tg_style_put_graph_open(tg_buf *b, const char *name, bool large);

/* The legend box: open, one escaped left-justified line per call (line is
 * emptied; wrapped at TG_STYLE_LINE_CHARS, at spaces first), close. */
void tg_style_put_legend_open(tg_buf *b);
void tg_style_put_legend_line(tg_buf *b, tg_buf *line);
void tg_style_put_legend_close(tg_buf *b);

/* An amount of the graph's metric as text, into out: "1.20 ms", or with
 * objects "1,200 objects". Returns out. */
const char *tg_style_format_amount(char *out, size_t size, bool objects, uint64_t v);

/* The legend's lines on what the graph left out and why (tg_graph's
 * counts): nodes and edges under the cuts, each followed by `qualifier`
 * ("" or " in both"), nodes beyond the max_nodes cap, or "Nothing
 * dropped". Amounts are objects when `objects`, else times. */
void tg_style_put_dropped_lines(tg_buf *b, const tg_graph *g, size_t max_nodes, bool objects, const char *qualifier);

/* The legend's lines on a focus: how many methods match and how many of
 * them are shown, how many unrelated ones are hidden, whether it kept the
 * call paths through the matches or worked by methods, and the heaviest of
 * the matches the cap left out, named by name_of(ctx, node). Nothing
 * without a focus. */
void tg_style_put_focus_lines(tg_buf *b, const tg_graph *g, const char *(*name_of)(const void *ctx, uint32_t node),
                              const void *ctx);

/* A dotted edge's tooltip lines naming the hidden frames its path goes
 * through, caller side first ("\n  name"; at most 40, then how many more). */
void tg_style_put_via_names(tg_buf *b, const tg_graph *g, const tg_graph_edge *e,
                            const char *(*name_of)(const void *ctx, uint32_t node), const void *ctx);

/* The legend's line on the frames of negligible self time that the paths
 * to the roots left to dotted edges (tg_graph's `passed`), if any. */
void tg_style_put_passed_line(tg_buf *b, const tg_graph *g);

/* The caller's legend lines on what was done to the graph ("Grouped by
 * gem: ...", "Split per caller: ..."), count of them; NULL ones skipped. */
void tg_style_put_note_lines(tg_buf *b, const char *const *notes, size_t count);

/* A box label's first lines: the name, wrapped after "::", "#", "." or a
 * space when long, then
 * short_file:line if given (a path for people: "rubocop/cli.rb"), else
 * the file:line relative to cwd (may be NULL); nothing more when the name
 * is short_file, or its end after a "/" (a compiled template, named by
 * its file). */
void tg_style_put_label_title(tg_buf *b, const char *name, const tg_model_method *m, const char *cwd,
                              const char *short_file);

/* A line under a box's name saying which part of a method it is ("from
 * Foo#bar"), shortened as names are. */
void tg_style_put_label_context(tg_buf *b, const char *context);

/* The same line in a box's tooltip, whole. */
void tg_style_put_tooltip_context(tg_buf *b, const char *context);

/* A box tooltip's first lines: the full name, then the full file:line. */
void tg_style_put_tooltip_title(tg_buf *b, const char *name, const tg_model_method *m);

/* An edge tooltip's first line: "caller → callee". */
void tg_style_put_call_names(tg_buf *b, const char *caller, const char *callee);

/* ", fontsize=..." for a box with this self time, the largest shown being max_self. */
void tg_style_put_box_size(tg_buf *b, uint64_t self, uint64_t max_self);

/* ", fillcolor=..., color=..." and a white font when the fill is dark. */
void tg_style_put_box_colors(tg_buf *b, tg_style_rgb fill);

/* ", penwidth=..." for an edge carrying fraction f (0..1) of the time. */
void tg_style_put_edge_width(tg_buf *b, double f);

/* ", color=..." for an edge: a darker shade of its scale colour. */
void tg_style_put_edge_color(tg_buf *b, tg_style_rgb c);

/* ", weight=..." for edge e carrying fraction f (0..1): dot needs an
 * integer, and heavy calls pull their boxes into line; an edge that does
 * not `pull` (dotted, ghost) weighs 1. Then its ", minlen=..." if over 1,
 * and ", style=dotted" if it is dotted. */
void tg_style_put_edge_layout(tg_buf *b, const tg_graph_edge *e, double f, bool pull);

#endif

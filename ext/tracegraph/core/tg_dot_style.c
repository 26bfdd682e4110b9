/*
 * tg_dot_style.c - the look shared by the call graph and the diff graph
 * (see tg_dot_style.h). Small text helpers first, then the public pieces
 * in the order a graph is written: graph, legend, boxes, edges.
 */
#include "tg_dot_style.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tg_escape.h"
#include "tg_format.h"

/* Longest method name drawn in a box; the tooltip has the full name. */
#define LABEL_NAME_BYTES 160
/* Longest file path drawn in a box; longer ones keep their tail. */
#define LABEL_PATH_BYTES 100
/* Names and paths in a box wrap at about this many characters: boxes are what makes a drawing wide. */
#define LABEL_LINE_CHARS 28
/* Legend lines longer than TG_STYLE_LINE_CHARS go on indented by this. */
#define LEGEND_INDENT "    "
/* Longest method name in an edge tooltip. */
#define EDGE_TIP_NAME_BYTES 512

/* Escaped text; limit 0 means the escaper's default cap. */
static void put_text(tg_buf *b, const char *s, size_t limit)
{
    tg_escape_dot(b, s, strlen(s), limit);
}

/* Fixed-point tenths as "12.3": no locale, no %f. */
static void put_tenths(tg_buf *b, double v)
{
    uint64_t t = v > 0 ? (uint64_t)floor(v * 10.0 + 0.5) : 0;
    tg_buf_printf(b, "%u.%u", (unsigned)(t / 10), (unsigned)(t % 10));
}

/* Where a line may end in wrapped text. */
typedef enum wrap_kind {
    WRAP_TEXT,   /* legend text: at spaces, after "::" and "#" */
    WRAP_NAME,   /* a method or group name: those, and after "/" and the "." of "Foo.bar" */
    WRAP_PATH,   /* a file path: at spaces and after "/" */
} wrap_kind;

/* How well a line may end right after s[i]: 0 not at all, 1 inside a
 * snake_case word (after "_"), 2 after the "#" or "." before a method's
 * name, 3 well (at a space, after "::" or "/"). */
static int break_after(const char *s, size_t len, size_t i, wrap_kind kind)
{
    char c = s[i];
    /* At " · " the line ends before the dot: the next line starts "· sweeping ..." */
    if (c == ' ') return i >= 2 && (unsigned char)s[i - 2] == 0xC2 && (unsigned char)s[i - 1] == 0xB7 ? 0 : 3;
    if (c == '/') return kind != WRAP_TEXT ? 3 : 0;   /* not the "/" of "I/O" */
    if (kind == WRAP_PATH) return 0;
    if (c == ':') return i > 0 && s[i - 1] == ':' && (i + 1 == len || s[i + 1] != ':') ? 3 : 0;
    if (c == '#') return i > 0 ? 2 : 0;   /* not the "#" of "#<Class:...>" that starts a name */
    if (kind != WRAP_NAME) return 0;
    /* "Foo.bar", but not the "." of a file name ("resolution.rb") */
    if (c == '.') return i > 0 && i + 2 < len && !(s[i + 1] == 'r' && s[i + 2] == 'b') ? 2 : 0;
    if (c == '_') return i > 0 && i + 1 < len && s[i + 1] != '_' ? 1 : 0;
    return 0;
}

static bool utf8_continuation(char c)
{
    return ((unsigned char)c & 0xC0) == 0x80;
}

/* Appends s[from..to) escaped, without the spaces it ends with. */
static void put_line_part(tg_buf *b, const char *s, size_t from, size_t to)
{
    while (to > from && s[to - 1] == ' ') to--;
    tg_escape_dot(b, s + from, to - from, 0);
}

/*
 * s[0..len), escaped, in lines of at most `width` characters (UTF-8 code
 * points; an escape such as \" counts as the one character it shows),
 * joined by `newline` ("\n" in a box, "\l" in the legend), each line
 * after the first starting with `indent`. A line ends at the last good
 * place `kind` allows before it grows past the width (a space, "::",
 * "/"), else at the last "#" or "." of a name, else after its last "_",
 * else, in a word longer than a line, at the width itself. The last line has no newline.
 */
static void put_wrapped(tg_buf *b, const char *s, size_t len, size_t width, const char *newline, const char *indent,
                        wrap_kind kind)
{
    size_t indent_chars = strlen(indent);
    size_t start = 0, col = 0;
    size_t last_break[4] = { 0, 0, 0, 0 };   /* by quality (break_after): the last place a line may end */
    for (size_t i = 0; i < len; i++) {
        if (utf8_continuation(s[i])) continue;
        if (col >= width && i > start) {   /* s[i] would not fit: end the line */
            size_t end = i;
            for (int q = 3; q >= 1 && end == i; q--) {
                if (last_break[q] > start) end = last_break[q];
            }
            put_line_part(b, s, start, end);
            tg_buf_puts(b, newline);
            tg_buf_puts(b, indent);
            start = end;
            while (start < len && s[start] == ' ') start++;
            col = indent_chars;
            for (size_t k = start; k < i; k++) col += !utf8_continuation(s[k]);
            if (start > i) {   /* the spaces skipped ran past s[i]: go on from start */
                i = start - 1;
                continue;
            }
        }
        col++;
        int quality = break_after(s, len, i, kind);
        if (quality) last_break[quality] = i + 1;
    }
    if (start < len) put_line_part(b, s, start, len);
}

/* s wrapped in a box's lines (LABEL_LINE_CHARS), as `kind` allows: the
 * name "Gem::Resolver::Molinillo::\\nDelegates::SpecificationProvider#x"
 * keeps a box narrow. Text past `limit` bytes is cut with "…" first. */
static void put_box_text(tg_buf *b, const char *s, size_t limit, wrap_kind kind)
{
    size_t len = strlen(s);
    bool cut = len > limit;
    if (cut) {
        len = limit - 3;   /* room for the 3 bytes of "…" */
        while (len > 0 && utf8_continuation(s[len])) len--;
    }
    put_wrapped(b, s, len, LABEL_LINE_CHARS, "\\n", "", kind);
    if (cut) tg_buf_puts(b, "\xE2\x80\xA6");
}

/* "lib/foo.rb" for cwd "/app" and "/app/lib/foo.rb"; the input otherwise. */
static const char *relative_path(const char *file, const char *cwd)
{
    if (!cwd || !*cwd) return file;
    size_t n = strlen(cwd);
    while (n > 1 && cwd[n - 1] == '/') n--;
    if (n == 1 && cwd[0] == '/') return file[0] == '/' && file[1] ? file + 1 : file;
    if (strncmp(file, cwd, n) == 0 && file[n] == '/' && file[n + 1]) return file + n + 1;
    return file;
}

/* The label's "file:line", keeping the tail of very long paths. */
static void put_location(tg_buf *b, const tg_model_method *m, const char *cwd)
{
    const char *path = relative_path(m->file, cwd);
    size_t len = strlen(path);
    if (len > LABEL_PATH_BYTES) {
        const char *tail = path + len - LABEL_PATH_BYTES;
        while (*tail && ((unsigned char)*tail & 0xC0) == 0x80) tail++;  /* UTF-8 boundary */
        put_text(b, "\xE2\x80\xA6", 0);
        path = tail;
    }
    put_wrapped(b, path, strlen(path), LABEL_LINE_CHARS, "\\n", "", WRAP_PATH);
    if (m->line > 0) tg_buf_printf(b, ":%d", m->line);
}

/* Darker shade of the same hue, for borders and edges. */
static tg_style_rgb shade(tg_style_rgb c)
{
    return (tg_style_rgb){ c.r * 6 / 10, c.g * 6 / 10, c.b * 6 / 10 };
}

static void put_color(tg_buf *b, const char *attr, tg_style_rgb c)
{
    tg_buf_printf(b, ", %s=\"#%02x%02x%02x\"", attr, c.r, c.g, c.b);
}

/* ------------------------------------------------------------------ */

double tg_style_fraction_of(uint64_t part, uint64_t whole)
{
    if (!whole) return 0.0;
    double f = (double)part / (double)whole;
    return f > 1.0 ? 1.0 : f;
}

/*
 * Linear between the stops of sqrt(f): sqrt spreads the small fractions
 * most methods have, so 2% is already visibly warmer than 0%.
 */
tg_style_rgb tg_style_scale_color(const tg_style_rgb stops[TG_STYLE_SCALE_STOPS], double f)
{
    double t = sqrt(f) * 4.0;
    int i = t >= 4.0 ? 3 : (int)t;
    double u = t - i;
    tg_style_rgb a = stops[i], z = stops[i + 1];
    return (tg_style_rgb){ (int)floor(a.r + (z.r - a.r) * u + 0.5), (int)floor(a.g + (z.g - a.g) * u + 0.5),
                           (int)floor(a.b + (z.b - a.b) * u + 0.5) };
}

void tg_style_put_graph_open(tg_buf *b, const char *name, bool large)
{
    tg_buf_printf(b, "digraph %s {\n", name);
    /*
     * Narrow: boxes closer side by side (nodesep 0.15 inch), and parallel
     * arrows merged where they run together (concentrate), which on the
     * five real programs of docs/real-programs.md takes a fifth off the
     * width; tall is fine, a reader scrolls down a call graph.
     */
    tg_buf_puts(b, "  graph [rankdir=TB, fontname=\"Helvetica\", bgcolor=\"white\", nodesep=0.15, "
                   "ranksep=0.5, pad=0.3, concentrate=true, outputorder=edgesfirst");
    /*
     * Large graphs: cap the network-simplex and crossing-minimisation
     * passes, which dominate dot's run time; a slightly less tidy layout
     * of 1,000 boxes in seconds beats a perfect one in minutes.
     */
    if (large) tg_buf_puts(b, ", nslimit=2, nslimit1=2, mclimit=0.05, searchsize=20, remincross=false");
    tg_buf_puts(b, "];\n"
                   "  node [shape=box, style=\"filled,rounded\", fontname=\"Helvetica\", penwidth=1.2, "
                   "margin=\"0.12,0.06\"];\n"
                   "  edge [fontname=\"Helvetica\", fontsize=10, arrowsize=0.7];\n");
}

void tg_style_put_legend_open(tg_buf *b)
{
    tg_buf_puts(b, "  { rank=source; legend [shape=note, style=filled, fillcolor=\"#fbfbf3\", "
                   "color=\"#9a9a8c\", fontsize=12, margin=\"0.2,0.12\", tooltip=\"Legend\", label=\"");
}

void tg_style_put_legend_line(tg_buf *b, tg_buf *line)
{
    if (line->failed) b->failed = true;
    if (line->len) put_wrapped(b, line->data, line->len, TG_STYLE_LINE_CHARS, "\\l", LEGEND_INDENT, WRAP_TEXT);
    tg_buf_puts(b, "\\l");
    line->len = 0;
    if (line->data) line->data[0] = '\0';
}

void tg_style_put_legend_close(tg_buf *b)
{
    tg_buf_puts(b, "\"]; }\n");
}

const char *tg_style_format_amount(char *out, size_t size, bool objects, uint64_t v)
{
    if (!objects) return tg_format_ns(out, size, v);
    char c[TG_FORMAT_SIZE];
    snprintf(out, size, "%s object%s", tg_format_count(c, sizeof c, v), v == 1 ? "" : "s");
    return out;
}

void tg_style_put_dropped_lines(tg_buf *b, const tg_graph *g, size_t max_nodes, bool objects, const char *qualifier)
{
    char c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE], t1[TG_FORMAT_SIZE], t2[TG_FORMAT_SIZE];
    tg_buf line = TG_BUF_INIT;
    if (g->cut || g->dropped_edges) {
        tg_buf_puts(&line, "Dropped ");
        if (g->cut)
            tg_buf_printf(&line, "%s node%s (total < %s%s)", tg_format_count(c1, sizeof c1, g->cut),
                          g->cut == 1 ? "" : "s", tg_style_format_amount(t1, sizeof t1, objects, g->node_cut),
                          qualifier);
        if (g->cut && g->dropped_edges) tg_buf_puts(&line, ", ");
        if (g->dropped_edges)
            tg_buf_printf(&line, "%s edge%s (total < %s%s)", tg_format_count(c2, sizeof c2, g->dropped_edges),
                          g->dropped_edges == 1 ? "" : "s",
                          tg_style_format_amount(t2, sizeof t2, objects, g->edge_cut), qualifier);
        tg_style_put_legend_line(b, &line);
    }
    if (g->capped) {
        tg_buf_printf(&line, "Capped at %s box%s: %s more dropped (total \xE2\x89\xA4 %s)",
                      tg_format_count(c2, sizeof c2, max_nodes), max_nodes == 1 ? "" : "es",
                      tg_format_count(c1, sizeof c1, g->capped),
                      tg_style_format_amount(t1, sizeof t1, objects, g->cap_cut));
        tg_style_put_legend_line(b, &line);
    }
    if (!g->cut && !g->dropped_edges && !g->capped) {
        tg_buf_puts(&line, "Nothing dropped");
        tg_style_put_legend_line(b, &line);
    }
    tg_buf_free(&line);
}

/* How many unshown matches the legend names. */
#define FOCUS_NAMED 3

void tg_style_put_focus_lines(tg_buf *b, const tg_graph *g, const char *(*name_of)(const void *ctx, uint32_t node),
                              const void *ctx)
{
    if (!g->focus) return;
    char c1[TG_FORMAT_SIZE], c2[TG_FORMAT_SIZE];
    tg_buf line = TG_BUF_INIT;
    size_t matches = g->focus_matches;
    if (matches == 0)
        tg_buf_puts(&line, "Focus: no method matches");
    else if (g->focus_shown == matches)
        tg_buf_printf(&line, "Focus: %s match%s, %sshown", tg_format_count(c1, sizeof c1, matches),
                      matches == 1 ? "" : "es", matches == 1 ? "" : "all ");
    else
        tg_buf_printf(&line, "Focus: %s match%s, %s shown", tg_format_count(c1, sizeof c1, matches),
                      matches == 1 ? "" : "es", tg_format_count(c2, sizeof c2, g->focus_shown));
    if (g->unrelated)
        tg_buf_printf(&line, "; %s unrelated method%s hidden", tg_format_count(c1, sizeof c1, g->unrelated),
                      g->unrelated == 1 ? "" : "s");
    tg_style_put_legend_line(b, &line);
    if (g->focus_unshown_count) {
        tg_buf_puts(&line, "Not shown: ");
        size_t named = g->focus_unshown_count < FOCUS_NAMED ? g->focus_unshown_count : FOCUS_NAMED;
        for (size_t i = 0; i < named; i++) {
            if (i) tg_buf_puts(&line, i + 1 == named && named == g->focus_unshown_count ? " and " : ", ");
            tg_buf_puts(&line, name_of(ctx, g->focus_unshown[i]));
        }
        if (g->focus_unshown_count > named)
            tg_buf_printf(&line, " and %s more", tg_format_count(c1, sizeof c1, g->focus_unshown_count - named));
        tg_style_put_legend_line(b, &line);
    }
    if (g->focus_matches) {
        tg_buf_puts(&line, g->focus_paths ? "Focus on the call paths through the matches"
                                          : "Focus by methods, not paths: --call-tree for exact paths");
        tg_style_put_legend_line(b, &line);
    }
    tg_buf_free(&line);
}

/* How many frames a dotted edge's tooltip names. */
#define VIA_NAMED 40

void tg_style_put_via_names(tg_buf *b, const tg_graph *g, const tg_graph_edge *e,
                            const char *(*name_of)(const void *ctx, uint32_t node), const void *ctx)
{
    uint32_t named = e->via_len < VIA_NAMED ? e->via_len : VIA_NAMED;
    for (uint32_t i = 0; i < named; i++) {
        tg_buf_puts(b, "\\n  ");
        put_text(b, name_of(ctx, g->via[e->via_start + i]), EDGE_TIP_NAME_BYTES);
    }
    if (e->via_len > named) tg_buf_printf(b, "\\n  and %u more", (unsigned)(e->via_len - named));
}

void tg_style_put_passed_line(tg_buf *b, const tg_graph *g)
{
    if (!g->passed) return;
    char c[TG_FORMAT_SIZE];
    tg_buf line = TG_BUF_INIT;
    tg_buf_printf(&line, "Not drawn: %s frame%s of \xE2\x89\xA4 0.1%% self (dotted edges name them)",
                  tg_format_count(c, sizeof c, g->passed), g->passed == 1 ? "" : "s");
    tg_style_put_legend_line(b, &line);
    tg_buf_free(&line);
}

void tg_style_put_note_lines(tg_buf *b, const char *const *notes, size_t count)
{
    tg_buf line = TG_BUF_INIT;
    for (size_t i = 0; i < count; i++) {
        if (!notes[i]) continue;
        tg_buf_puts(&line, notes[i]);
        tg_style_put_legend_line(b, &line);
    }
    tg_buf_free(&line);
}

/* Whether a method is named by its file (a compiled template: the Rails
 * view "app/views/posts/_post.html.erb"), which its box then shows once:
 * the name is the file's path, or its end after a "/" (the path shortened
 * where the profile was recorded, the file where it is drawn). */
static bool named_by_its_file(const char *name, const char *file)
{
    size_t n = strlen(name), f = strlen(file);
    return n > 0 && f >= n && strcmp(file + f - n, name) == 0 && (f == n || file[f - n - 1] == '/');
}

void tg_style_put_label_title(tg_buf *b, const char *name, const tg_model_method *m, const char *cwd,
                              const char *short_file)
{
    put_box_text(b, name, LABEL_NAME_BYTES, WRAP_NAME);
    if (short_file && named_by_its_file(name, short_file)) return;
    if (short_file) {
        tg_buf_puts(b, "\\n");
        put_box_text(b, short_file, LABEL_PATH_BYTES, WRAP_PATH);
        if (m->line > 0) tg_buf_printf(b, ":%d", m->line);
    } else if (m->file) {
        tg_buf_puts(b, "\\n");
        put_location(b, m, cwd);
    }
}

void tg_style_put_label_context(tg_buf *b, const char *context)
{
    tg_buf_puts(b, "\\n");
    put_box_text(b, context, LABEL_NAME_BYTES, WRAP_NAME);
}

void tg_style_put_tooltip_context(tg_buf *b, const char *context)
{
    tg_buf_puts(b, "\\n");
    put_text(b, context, 0);
}

void tg_style_put_tooltip_title(tg_buf *b, const char *name, const tg_model_method *m)
{
    put_text(b, name, 0);
    if (m->file) {
        tg_buf_puts(b, "\\n");
        put_text(b, m->file, 0);
        if (m->line > 0) tg_buf_printf(b, ":%d", m->line);
    }
}

void tg_style_put_call_names(tg_buf *b, const char *caller, const char *callee)
{
    put_text(b, caller, EDGE_TIP_NAME_BYTES);
    put_text(b, " \xE2\x86\x92 ", 0);   /* " → " */
    put_text(b, callee, EDGE_TIP_NAME_BYTES);
}

void tg_style_put_box_size(tg_buf *b, uint64_t self, uint64_t max_self)
{
    /* Sublinear so small boxes stay readable. */
    tg_buf_puts(b, ", fontsize=");
    put_tenths(b, 9.0 + 15.0 * sqrt(tg_style_fraction_of(self, max_self)));
}

void tg_style_put_box_colors(tg_buf *b, tg_style_rgb fill)
{
    put_color(b, "fillcolor", fill);
    put_color(b, "color", shade(fill));
    /* Perceived brightness decides whether black text would be legible. */
    if (fill.r * 299 + fill.g * 587 + fill.b * 114 < 150 * 1000) tg_buf_puts(b, ", fontcolor=\"#ffffff\"");
}

void tg_style_put_edge_width(tg_buf *b, double f)
{
    tg_buf_puts(b, ", penwidth=");
    put_tenths(b, 0.8 + 5.2 * sqrt(f));
}

void tg_style_put_edge_color(tg_buf *b, tg_style_rgb c)
{
    put_color(b, "color", shade(c));
}

void tg_style_put_edge_layout(tg_buf *b, const tg_graph_edge *e, double f, bool pull)
{
    /* Up to 26 (it was 101): heavier pulls made dot push the other boxes
     * aside to keep the hot path straight; kramdown's graph by class was
     * 2,584 points wide instead of 2,401 (docs/real-programs.md). */
    tg_buf_printf(b, ", weight=%d", pull ? 1 + (int)(f * 25.0) : 1);
    if (e->minlen > 1) tg_buf_printf(b, ", minlen=%u", (unsigned)e->minlen);
    if (e->dotted) tg_buf_puts(b, ", style=dotted");
}

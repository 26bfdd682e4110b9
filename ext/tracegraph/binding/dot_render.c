/*
 * dot_render.c - the DOT call graphs' glue: a Ruby profile's plain arrays
 * (prepared by lib code, Profile#native_report_parts) into a tg_report,
 * rendered by the core's writers tg_dot_render and tg_diff_dot_render.
 *
 *   Tracegraph._render_dot        one profile (Tracegraph::DotGraph)
 *   Tracegraph._render_diff_dot   two profiles (Tracegraph::ProfileDiff)
 *
 * Uses: dot_render.h, core tg_report.h, tg_dot.h, tg_diff_dot.h. Calls no
 * other binding file.
 */
#include "dot_render.h"

#include <stdlib.h>

#include "tg_diff_dot.h"
#include "tg_dot.h"
#include "tg_report.h"

/* Everything Ruby profiles lend tg_reports while they are rendered. The
 * strings point into the Ruby objects, which the caller keeps alive. */
typedef struct report_buffers {
    tg_report_method *methods, *base_methods;
    tg_report_edge *edges, *base_edges;
    uint8_t *focus, *ignore, *waiting, *base_focus, *base_ignore;
    uint64_t *self_allocations, *allocations, *edge_allocations;
    uint64_t *base_self_allocations, *base_allocations, *base_edge_allocations;
    const char **context, **tooltips, **notes, **short_files, **edge_via, **allocation_types;
    char *output;
    tg_report_gc gc, base_gc;
} report_buffers;

static void report_buffers_free(report_buffers *b)
{
    free(b->methods);
    free(b->base_methods);
    free(b->edges);
    free(b->base_edges);
    free(b->focus);
    free(b->ignore);
    free(b->base_focus);
    free(b->base_ignore);
    free(b->waiting);
    free(b->self_allocations);
    free(b->allocations);
    free(b->edge_allocations);
    free(b->base_self_allocations);
    free(b->base_allocations);
    free(b->base_edge_allocations);
    free(b->context);
    free(b->tooltips);
    free(b->notes);
    free(b->short_files);
    free(b->edge_via);
    free(b->allocation_types);
    free(b->output);
}

static const char *cstr_or_null(VALUE s)
{
    return NIL_P(s) ? NULL : StringValueCStr(s);
}

static uint64_t u64(VALUE v)
{
    return NUM2ULL(v);
}

/* C strings (or NULL for nil) from an Array of exactly n Strings and nils
 * (any length if n < 0), or NULL for nil. They point into the Ruby
 * strings, which the caller keeps alive; the caller frees the array. */
static const char **strings_from(VALUE ary, long n)
{
    if (NIL_P(ary)) return NULL;
    Check_Type(ary, T_ARRAY);
    if (n >= 0 && RARRAY_LEN(ary) != n)
        rb_raise(rb_eArgError, "string array has %ld entries for %ld methods", RARRAY_LEN(ary), n);
    const char **strings = calloc((size_t)RARRAY_LEN(ary) + 1, sizeof *strings);
    if (!strings) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    for (long i = 0; i < RARRAY_LEN(ary); i++) {
        VALUE s = rb_ary_entry(ary, i);
        strings[i] = NIL_P(s) ? NULL : StringValueCStr(s);
    }
    return strings;
}

/* Counts from an Array of exactly n Integers (one per method, or per
 * edge), into *out (malloc'd and set before anything can raise, so the
 * caller frees it either way). */
static const uint64_t *counts_from(VALUE ary, long n, uint64_t **out)
{
    Check_Type(ary, T_ARRAY);
    if (RARRAY_LEN(ary) != n) rb_raise(rb_eArgError, "count array has %ld entries for %ld items", RARRAY_LEN(ary), n);
    uint64_t *counts = *out = calloc((size_t)n + 1, sizeof *counts);
    if (!counts) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    for (long i = 0; i < n; i++) counts[i] = NUM2ULL(rb_ary_entry(ary, i));
    return counts;
}

static uint8_t *flags_from(VALUE ary, long n)
{
    if (NIL_P(ary)) return NULL;
    Check_Type(ary, T_ARRAY);
    if (RARRAY_LEN(ary) != n) rb_raise(rb_eArgError, "flag array has %ld entries for %ld methods", RARRAY_LEN(ary), n);
    uint8_t *flags = calloc((size_t)n + 1, 1);
    if (!flags) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    for (long i = 0; i < n; i++) flags[i] = RTEST(rb_ary_entry(ary, i)) ? 1 : 0;
    return flags;
}

/*
 * Converts the plain arrays lib code prepares from a Tracegraph::Profile
 * (see Profile#native_report_parts) into a tg_report:
 *   meta    [program, clock, total_time, gc]
 *           gc: [runs, entries, time, mark_time, sweep_time], or nil
 *   methods [[name, file, line, is_c, calls, total, self], ...]
 *   edges   [[caller, callee, calls, total, self], ...]
 * The method and edge arrays are malloc'd into *methods_out and
 * *edges_out, which the caller frees even when this raises; the GC
 * numbers go to *gc_out, which the report points to.
 */
static tg_report report_from_ruby(VALUE meta, VALUE methods, VALUE edges,
                                  tg_report_method **methods_out, tg_report_edge **edges_out, tg_report_gc *gc_out)
{
    Check_Type(meta, T_ARRAY);
    Check_Type(methods, T_ARRAY);
    Check_Type(edges, T_ARRAY);
    long nm = RARRAY_LEN(methods), ne = RARRAY_LEN(edges);
    tg_report_method *ms = *methods_out = calloc((size_t)nm + 1, sizeof *ms);
    tg_report_edge *es = *edges_out = calloc((size_t)ne + 1, sizeof *es);
    if (!ms || !es) rb_raise(rb_eNoMemError, "tracegraph: out of memory");

    for (long i = 0; i < nm; i++) {
        VALUE m = rb_ary_entry(methods, i);   /* [name, file, line, is_c, calls, total, self] */
        Check_Type(m, T_ARRAY);
        VALUE name = rb_ary_entry(m, 0);
        ms[i] = (tg_report_method){
            .name = StringValueCStr(name),   /* Ruby replaced NUL bytes */
            .file = cstr_or_null(rb_ary_entry(m, 1)),
            .line = NIL_P(rb_ary_entry(m, 2)) ? 0 : NUM2INT(rb_ary_entry(m, 2)),
            .is_c = RTEST(rb_ary_entry(m, 3)),
            .calls = u64(rb_ary_entry(m, 4)),
            .total_time = u64(rb_ary_entry(m, 5)),
            .self_time = u64(rb_ary_entry(m, 6)),
        };
    }
    for (long i = 0; i < ne; i++) {
        VALUE e = rb_ary_entry(edges, i);     /* [caller, callee, calls, total, self] */
        Check_Type(e, T_ARRAY);
        long caller = NUM2LONG(rb_ary_entry(e, 0)), callee = NUM2LONG(rb_ary_entry(e, 1));
        if (caller < 0 || caller >= nm || callee < 0 || callee >= nm)
            rb_raise(rb_eArgError, "edge %ld points at a missing method", i);
        es[i] = (tg_report_edge){
            .caller = (uint32_t)caller,
            .callee = (uint32_t)callee,
            .calls = u64(rb_ary_entry(e, 2)),
            .total_time = u64(rb_ary_entry(e, 3)),
            .self_time = u64(rb_ary_entry(e, 4)),
        };
    }
    VALUE clock = rb_ary_entry(meta, 1);
    VALUE gc = rb_ary_entry(meta, 3);
    if (!NIL_P(gc)) {
        Check_Type(gc, T_ARRAY);
        *gc_out = (tg_report_gc){u64(rb_ary_entry(gc, 0)), u64(rb_ary_entry(gc, 1)), u64(rb_ary_entry(gc, 2)),
                                 u64(rb_ary_entry(gc, 3)), u64(rb_ary_entry(gc, 4))};
    }
    return (tg_report){
        .program = cstr_or_null(rb_ary_entry(meta, 0)),
        .clock = StringValueCStr(clock),
        .total_time = u64(rb_ary_entry(meta, 2)),
        .methods = ms,
        .method_count = (size_t)nm,
        .edges = es,
        .edge_count = (size_t)ne,
        .gc = NIL_P(gc) ? NULL : gc_out,
    };
}

typedef struct render_args {
    VALUE meta, methods, edges, options;
    report_buffers *buffers;
} render_args;

static VALUE render_dot(VALUE arg)
{
    render_args *a = (render_args *)arg;
    report_buffers *b = a->buffers;
    tg_report report = report_from_ruby(a->meta, a->methods, a->edges, &b->methods, &b->edges, &b->gc);
    long nm = (long)report.method_count;

    /* [node_fraction, edge_fraction, max_nodes, focus, ignore, cwd, waiting,
     *  [thread_count, threads_recorded, thread_names, wall_time, hidden_waiting],
     *  context (a line per method, or nil), notes (legend lines), short file names (per method, or nil),
     *  the number of methods the boxes stand for, or nil; folded chains (per edge, or nil),
     *  [self allocations, allocations (a count per method), total, allocations per edge,
     *   a tooltip line of types per method or nil] or nil,
     *  what sizes the graph: :time or :allocations (which needs the allocations),
     *  more tooltip lines (per method, or nil),
     *  the self amounts of the profile's methods in that metric, or nil (see tg_dot_options.held_whole),
 *  a focus's [whether the report is only the call paths through its matches,
 *   the methods it left out before], or nil,
 *  the profile's calls for the legend, or nil for the report's sum] */
    VALUE o = a->options;
    tg_dot_options opts;
    tg_dot_options_default(&opts);
    opts.node_fraction = NUM2DBL(rb_ary_entry(o, 0));
    opts.edge_fraction = NUM2DBL(rb_ary_entry(o, 1));
    opts.max_nodes = NUM2SIZET(rb_ary_entry(o, 2));
    b->focus = flags_from(rb_ary_entry(o, 3), nm);
    b->ignore = flags_from(rb_ary_entry(o, 4), nm);
    opts.focus = b->focus;
    opts.ignore = b->ignore;
    opts.cwd = cstr_or_null(rb_ary_entry(o, 5));
    b->waiting = flags_from(rb_ary_entry(o, 6), nm);
    opts.waiting = b->waiting;
    VALUE threads = rb_ary_entry(o, 7);
    if (!NIL_P(threads)) {
        Check_Type(threads, T_ARRAY);
        opts.thread_count = NUM2UINT(rb_ary_entry(threads, 0));
        opts.threads_recorded = NUM2UINT(rb_ary_entry(threads, 1));
        opts.thread_names = cstr_or_null(rb_ary_entry(threads, 2));
        opts.wall_time = NIL_P(rb_ary_entry(threads, 3)) ? 0 : u64(rb_ary_entry(threads, 3));
        opts.hidden_waiting = u64(rb_ary_entry(threads, 4));
    }
    b->context = strings_from(rb_ary_entry(o, 8), nm);
    opts.context = b->context;
    VALUE notes = rb_ary_entry(o, 9);
    b->notes = strings_from(notes, -1);
    opts.notes = b->notes;
    opts.note_count = NIL_P(notes) ? 0 : (size_t)RARRAY_LEN(notes);
    b->short_files = strings_from(rb_ary_entry(o, 10), nm);
    opts.short_files = b->short_files;
    opts.method_total = NIL_P(rb_ary_entry(o, 11)) ? 0 : NUM2SIZET(rb_ary_entry(o, 11));
    b->edge_via = strings_from(rb_ary_entry(o, 12), (long)report.edge_count);
    opts.edge_via = b->edge_via;
    VALUE allocations = rb_ary_entry(o, 13);
    if (!NIL_P(allocations)) {
        Check_Type(allocations, T_ARRAY);
        opts.self_allocations = counts_from(rb_ary_entry(allocations, 0), nm, &b->self_allocations);
        opts.allocations = counts_from(rb_ary_entry(allocations, 1), nm, &b->allocations);
        opts.total_allocations = u64(rb_ary_entry(allocations, 2));
        opts.edge_allocations = counts_from(rb_ary_entry(allocations, 3), (long)report.edge_count,
                                            &b->edge_allocations);
        b->allocation_types = strings_from(rb_ary_entry(allocations, 4), nm);
        opts.allocation_types = b->allocation_types;
    }
    VALUE metric = rb_ary_entry(o, 14);
    if (!NIL_P(metric)) Check_Type(metric, T_SYMBOL);
    if (!NIL_P(metric) && SYM2ID(metric) == rb_intern("allocations")) {
        if (NIL_P(allocations)) rb_raise(rb_eArgError, "size_by: :allocations needs allocation counts");
        opts.metric = TG_DOT_BY_ALLOCATIONS;
    }

    b->tooltips = strings_from(rb_ary_entry(o, 15), nm);
    opts.tooltips = b->tooltips;
    VALUE held_whole = rb_ary_entry(o, 16);
    if (!NIL_P(held_whole)) opts.held_whole = NUM2ULL(held_whole);
    VALUE focus_paths = rb_ary_entry(o, 17);
    if (!NIL_P(focus_paths)) {
        Check_Type(focus_paths, T_ARRAY);
        opts.focus_paths = RTEST(rb_ary_entry(focus_paths, 0));
        opts.focus_left_out = NUM2SIZET(rb_ary_entry(focus_paths, 1));
    }
    VALUE total_calls = rb_ary_entry(o, 18);
    if (!NIL_P(total_calls)) opts.total_calls = NUM2ULL(total_calls);

    size_t len = 0;
    b->output = tg_dot_render(&report, &opts, &len);
    if (!b->output) rb_raise(rb_eNoMemError, "tracegraph: out of memory while rendering DOT");
    return rb_utf8_str_new(b->output, (long)len);
}

/* Tracegraph._render_dot(meta, methods, edges, options) -> String.
 * Lib code prepares plain arrays; see Tracegraph::DotGraph. */
static VALUE render_dot_method(VALUE mod, VALUE meta, VALUE methods, VALUE edges, VALUE options)
{
    (void)mod;
    Check_Type(meta, T_ARRAY);
    Check_Type(methods, T_ARRAY);
    Check_Type(edges, T_ARRAY);
    Check_Type(options, T_ARRAY);
    report_buffers buffers = {0};
    render_args args = {meta, methods, edges, options, &buffers};
    int state = 0;
    VALUE dot = rb_protect(render_dot, (VALUE)&args, &state);
    report_buffers_free(&buffers);
    if (state) rb_jump_tag(state);
    RB_GC_GUARD(meta);
    RB_GC_GUARD(methods);
    RB_GC_GUARD(edges);
    RB_GC_GUARD(options);   /* the notes, context and tooltips point into its strings */
    return dot;
}

/* One report's allocation counts for the diff graph, from [self
 * allocations, allocations (a count per method), total, allocations per
 * edge] (as for _render_dot). The arrays go to *self, *total and *edges,
 * which the caller frees even when this raises. */
static tg_diff_dot_allocations diff_allocations_from(VALUE ary, const tg_report *r, uint64_t **self,
                                                     uint64_t **total, uint64_t **edges)
{
    Check_Type(ary, T_ARRAY);
    long nm = (long)r->method_count;
    tg_diff_dot_allocations a;
    a.self = counts_from(rb_ary_entry(ary, 0), nm, self);
    a.total = counts_from(rb_ary_entry(ary, 1), nm, total);
    a.whole = u64(rb_ary_entry(ary, 2));
    a.edges = counts_from(rb_ary_entry(ary, 3), (long)r->edge_count, edges);
    return a;
}

typedef struct diff_args {
    VALUE base[3], head[3];   /* meta, methods, edges of each profile */
    VALUE options;
    report_buffers *buffers;
} diff_args;

static VALUE render_diff_dot(VALUE arg)
{
    diff_args *a = (diff_args *)arg;
    report_buffers *b = a->buffers;
    tg_report base = report_from_ruby(a->base[0], a->base[1], a->base[2], &b->base_methods, &b->base_edges, &b->base_gc);
    tg_report head = report_from_ruby(a->head[0], a->head[1], a->head[2], &b->methods, &b->edges, &b->gc);

    /* [node_fraction, edge_fraction, max_nodes, normalize, cwd,
     *  base's and head's allocations (each as for _render_dot) or nil,
     *  what sizes the graph: :time or :allocations (which needs both),
     *  focus and ignore: each nil or [base's flags, head's flags], one per method;
 *   a focus may add whether both reports are only its call paths, and the methods left out before,
     *  notes (legend lines) or nil] */
    VALUE o = a->options;
    tg_diff_dot_options opts;
    tg_diff_dot_options_default(&opts);
    opts.node_fraction = NUM2DBL(rb_ary_entry(o, 0));
    opts.edge_fraction = NUM2DBL(rb_ary_entry(o, 1));
    opts.max_nodes = NUM2SIZET(rb_ary_entry(o, 2));
    opts.normalize = RTEST(rb_ary_entry(o, 3));
    opts.cwd = cstr_or_null(rb_ary_entry(o, 4));
    VALUE base_counts = rb_ary_entry(o, 5), head_counts = rb_ary_entry(o, 6);
    tg_diff_dot_allocations base_allocations, head_allocations;
    if (!NIL_P(base_counts) && !NIL_P(head_counts)) {
        base_allocations = diff_allocations_from(base_counts, &base, &b->base_self_allocations, &b->base_allocations,
                                                 &b->base_edge_allocations);
        head_allocations = diff_allocations_from(head_counts, &head, &b->self_allocations, &b->allocations,
                                                 &b->edge_allocations);
        opts.base_allocations = &base_allocations;
        opts.head_allocations = &head_allocations;
    }
    VALUE metric = rb_ary_entry(o, 7);
    if (!NIL_P(metric)) Check_Type(metric, T_SYMBOL);
    if (!NIL_P(metric) && SYM2ID(metric) == rb_intern("allocations")) {
        if (!opts.base_allocations) rb_raise(rb_eArgError, "size_by: :allocations needs both profiles' allocation counts");
        opts.metric = TG_DOT_BY_ALLOCATIONS;
    }
    VALUE focus = rb_ary_entry(o, 8), ignore = rb_ary_entry(o, 9);
    if (!NIL_P(focus)) {
        Check_Type(focus, T_ARRAY);
        opts.base_focus = b->base_focus = flags_from(rb_ary_entry(focus, 0), (long)base.method_count);
        opts.head_focus = b->focus = flags_from(rb_ary_entry(focus, 1), (long)head.method_count);
        opts.focus_paths = RTEST(rb_ary_entry(focus, 2));
        if (!NIL_P(rb_ary_entry(focus, 3))) opts.focus_left_out = NUM2SIZET(rb_ary_entry(focus, 3));
    }
    if (!NIL_P(ignore)) {
        Check_Type(ignore, T_ARRAY);
        opts.base_ignore = b->base_ignore = flags_from(rb_ary_entry(ignore, 0), (long)base.method_count);
        opts.head_ignore = b->ignore = flags_from(rb_ary_entry(ignore, 1), (long)head.method_count);
    }
    VALUE notes = rb_ary_entry(o, 10);
    b->notes = strings_from(notes, -1);
    opts.notes = b->notes;
    opts.note_count = NIL_P(notes) ? 0 : (size_t)RARRAY_LEN(notes);

    size_t len = 0;
    b->output = tg_diff_dot_render(&base, &head, &opts, &len);
    if (!b->output) rb_raise(rb_eNoMemError, "tracegraph: out of memory while rendering the diff DOT");
    return rb_utf8_str_new(b->output, (long)len);
}

/* Tracegraph._render_diff_dot(base_meta, base_methods, base_edges,
 *                             head_meta, head_methods, head_edges, options) -> String.
 * Each profile's parts are as for _render_dot; see Tracegraph::ProfileDiff. */
static VALUE render_diff_dot_method(VALUE mod, VALUE base_meta, VALUE base_methods, VALUE base_edges,
                                    VALUE head_meta, VALUE head_methods, VALUE head_edges, VALUE options)
{
    (void)mod;
    Check_Type(options, T_ARRAY);
    report_buffers buffers = {0};
    diff_args args = {{base_meta, base_methods, base_edges}, {head_meta, head_methods, head_edges}, options, &buffers};
    int state = 0;
    VALUE dot = rb_protect(render_diff_dot, (VALUE)&args, &state);
    report_buffers_free(&buffers);
    if (state) rb_jump_tag(state);
    RB_GC_GUARD(base_meta);
    RB_GC_GUARD(base_methods);
    RB_GC_GUARD(base_edges);
    RB_GC_GUARD(head_meta);
    RB_GC_GUARD(head_methods);
    RB_GC_GUARD(head_edges);
    RB_GC_GUARD(options);   /* the notes point into its strings */
    return dot;
}

void dot_render_init(VALUE mTracegraph)
{
    rb_define_singleton_method(mTracegraph, "_render_dot", render_dot_method, 4);
    rb_define_singleton_method(mTracegraph, "_render_diff_dot", render_diff_dot_method, 7);
}

/*
 * dot_text.c - the DOT call graphs' glue: a Ruby profile's plain arrays
 * (prepared by lib code, Formats::Dot.model_parts) into a tg_model,
 * rendered by the core's writers tg_dot_render and tg_diff_dot_render.
 *
 *   Tracegraph._render_dot        one profile (formats/dot.rb)
 *   Tracegraph._render_diff_dot   two profiles (comparison/diff.rb)
 *
 * Uses: dot_text.h, named_options.h, core tg_model.h, tg_dot.h, tg_diff_dot.h,
 * tg_graph.h. Calls no other binding file.
 */
#include "dot_text.h"

#include <stdlib.h>
#include <string.h>

#include "tg_diff_dot.h"
#include "tg_dot.h"
#include "named_options.h"
#include "tg_graph.h"
#include "tg_model.h"

/* Everything Ruby profiles lend tg_models while they are rendered. The
 * strings point into the Ruby objects, which the caller keeps alive. */
typedef struct model_buffers {
    tg_model_method *methods, *base_methods;
    tg_model_edge *edges, *base_edges;
    uint8_t *focus, *ignore, *waiting, *base_focus, *base_ignore;
    uint64_t *self_allocations, *allocations, *edge_allocations;
    uint64_t *base_self_allocations, *base_allocations, *base_edge_allocations;
    const char **context, **tooltips, **notes, **short_files, **edge_via, **allocation_types;
    char *output;
    tg_model_gc gc, base_gc;
} model_buffers;

static void model_buffers_free(model_buffers *b)
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
 * (see Formats::Dot.model_parts) into a tg_model:
 *   meta    {title:, clock:, total_time:, gc:}, each read by name
 *           (named_options.h); title: the legend's first line, or nil;
 *           gc: {runs:, entries:, time:, mark_time:, sweep_time:}, or nil
 *   methods [[name, file, line, is_c, calls, total, self], ...]
 *   edges   [[caller, callee, calls, total, self], ...]
 * The method and edge arrays are malloc'd into *methods_out and
 * *edges_out, which the caller frees even when this raises; the GC
 * numbers go to *gc_out, which the model points to.
 */
static tg_model model_from_ruby(VALUE meta, VALUE methods, VALUE edges,
                                  tg_model_method **methods_out, tg_model_edge **edges_out, tg_model_gc *gc_out)
{
    static const char *const meta_keys[] = {"title", "clock", "total_time", "gc", NULL};
    named_options_check(meta, "the DOT writer's meta", meta_keys);
    Check_Type(methods, T_ARRAY);
    Check_Type(edges, T_ARRAY);
    long nm = RARRAY_LEN(methods), ne = RARRAY_LEN(edges);
    tg_model_method *ms = *methods_out = calloc((size_t)nm + 1, sizeof *ms);
    tg_model_edge *es = *edges_out = calloc((size_t)ne + 1, sizeof *es);
    if (!ms || !es) rb_raise(rb_eNoMemError, "tracegraph: out of memory");

    for (long i = 0; i < nm; i++) {
        VALUE m = rb_ary_entry(methods, i);   /* [name, file, line, is_c, calls, total, self] */
        Check_Type(m, T_ARRAY);
        VALUE name = rb_ary_entry(m, 0);
        ms[i] = (tg_model_method){
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
        es[i] = (tg_model_edge){
            .caller = (uint32_t)caller,
            .callee = (uint32_t)callee,
            .calls = u64(rb_ary_entry(e, 2)),
            .total_time = u64(rb_ary_entry(e, 3)),
            .self_time = u64(rb_ary_entry(e, 4)),
        };
    }
    VALUE clock = named_options_get(meta, "clock");
    VALUE gc = named_options_get(meta, "gc");
    if (!NIL_P(gc)) {
        static const char *const gc_keys[] = {"runs", "entries", "time", "mark_time", "sweep_time", NULL};
        named_options_check(gc, "the DOT writer's gc", gc_keys);
        *gc_out = (tg_model_gc){u64(named_options_get(gc, "runs")), u64(named_options_get(gc, "entries")),
                                u64(named_options_get(gc, "time")), u64(named_options_get(gc, "mark_time")),
                                u64(named_options_get(gc, "sweep_time"))};
    }
    return (tg_model){
        .program = cstr_or_null(named_options_get(meta, "title")),
        .clock = StringValueCStr(clock),
        .total_time = u64(named_options_get(meta, "total_time")),
        .methods = ms,
        .method_count = (size_t)nm,
        .edges = es,
        .edge_count = (size_t)ne,
        .gc = NIL_P(gc) ? NULL : gc_out,
    };
}

typedef struct render_args {
    VALUE meta, methods, edges, options;
    model_buffers *buffers;
} render_args;

/* ---- named options (named_options.h) ----------------------------------------- */

static const char *const DOT_KEYS[] = {
    "node_fraction", "edge_fraction", "max_nodes", "focus", "ignore", "cwd", "waiting", "threads",
    "context", "notes", "short_files", "method_total", "edge_via", "allocations", "size_by",
    "tooltips", "held_whole", "focus_paths", "edge_calls_only", "total_calls", "recorded_by", NULL};
static const char *const THREAD_KEYS[] = {"count", "recorded", "names", "wall_time", "hidden_waiting",
                                              "waiting_where", NULL};
static const char *const ALLOCATION_KEYS[] = {"self", "total", "whole", "edges", "types", NULL};
static const char *const FOCUS_PATH_KEYS[] = {"only_paths", "left_out", NULL};

static VALUE render_dot(VALUE arg)
{
    render_args *a = (render_args *)arg;
    model_buffers *b = a->buffers;
    tg_model model = model_from_ruby(a->meta, a->methods, a->edges, &b->methods, &b->edges, &b->gc);
    long nm = (long)model.method_count;

    /* The keys are DOT_KEYS; formats/dot.rb (Formats::Dot.generate) says
     * what each holds. Per-method arrays have one entry per method. */
    VALUE o = a->options;
    named_options_check(o, "_render_dot", DOT_KEYS);
    tg_dot_options opts;
    tg_dot_options_default(&opts);
    opts.node_fraction = NUM2DBL(named_options_get(o, "node_fraction"));
    opts.edge_fraction = NUM2DBL(named_options_get(o, "edge_fraction"));
    opts.max_nodes = NUM2SIZET(named_options_get(o, "max_nodes"));
    b->focus = flags_from(named_options_get(o, "focus"), nm);
    b->ignore = flags_from(named_options_get(o, "ignore"), nm);
    opts.focus = b->focus;
    opts.ignore = b->ignore;
    opts.cwd = cstr_or_null(named_options_get(o, "cwd"));
    b->waiting = flags_from(named_options_get(o, "waiting"), nm);
    opts.waiting = b->waiting;
    VALUE threads = named_options_get(o, "threads");
    if (!NIL_P(threads)) {
        named_options_check(threads, "_render_dot threads", THREAD_KEYS);
        opts.thread_count = NUM2UINT(named_options_get(threads, "count"));
        opts.threads_recorded = NUM2UINT(named_options_get(threads, "recorded"));
        opts.thread_names = cstr_or_null(named_options_get(threads, "names"));
        opts.wall_time = NIL_P(named_options_get(threads, "wall_time")) ? 0 : u64(named_options_get(threads, "wall_time"));
        opts.hidden_waiting = u64(named_options_get(threads, "hidden_waiting"));
        opts.waiting_where = cstr_or_null(named_options_get(threads, "waiting_where"));
    }
    b->context = strings_from(named_options_get(o, "context"), nm);
    opts.context = b->context;
    VALUE notes = named_options_get(o, "notes");
    b->notes = strings_from(notes, -1);
    opts.notes = b->notes;
    opts.note_count = NIL_P(notes) ? 0 : (size_t)RARRAY_LEN(notes);
    opts.recorded_by = cstr_or_null(named_options_get(o, "recorded_by"));
    b->short_files = strings_from(named_options_get(o, "short_files"), nm);
    opts.short_files = b->short_files;
    opts.method_total = NIL_P(named_options_get(o, "method_total")) ? 0 : NUM2SIZET(named_options_get(o, "method_total"));
    b->edge_via = strings_from(named_options_get(o, "edge_via"), (long)model.edge_count);
    opts.edge_via = b->edge_via;
    VALUE allocations = named_options_get(o, "allocations");
    if (!NIL_P(allocations)) {
        named_options_check(allocations, "_render_dot allocations", ALLOCATION_KEYS);
        opts.self_allocations = counts_from(named_options_get(allocations, "self"), nm, &b->self_allocations);
        opts.allocations = counts_from(named_options_get(allocations, "total"), nm, &b->allocations);
        opts.total_allocations = u64(named_options_get(allocations, "whole"));
        opts.edge_allocations = counts_from(named_options_get(allocations, "edges"), (long)model.edge_count,
                                            &b->edge_allocations);
        b->allocation_types = strings_from(named_options_get(allocations, "types"), nm);
        opts.allocation_types = b->allocation_types;
    }
    VALUE metric = named_options_get(o, "size_by");
    if (!NIL_P(metric)) Check_Type(metric, T_SYMBOL);
    if (!NIL_P(metric) && SYM2ID(metric) == rb_intern("allocations")) {
        if (NIL_P(allocations)) rb_raise(rb_eArgError, "size_by: :allocations needs allocation counts");
        opts.metric = TG_DOT_BY_ALLOCATIONS;
    }

    b->tooltips = strings_from(named_options_get(o, "tooltips"), nm);
    opts.tooltips = b->tooltips;
    VALUE held_whole = named_options_get(o, "held_whole");
    if (!NIL_P(held_whole)) opts.held_whole = NUM2ULL(held_whole);
    opts.edge_calls_only = RTEST(named_options_get(o, "edge_calls_only"));
    opts.total_calls = u64(named_options_get(o, "total_calls"));
    VALUE focus_paths = named_options_get(o, "focus_paths");
    if (!NIL_P(focus_paths)) {
        named_options_check(focus_paths, "_render_dot focus_paths", FOCUS_PATH_KEYS);
        opts.focus_paths = RTEST(named_options_get(focus_paths, "only_paths"));
        opts.focus_left_out = NUM2SIZET(named_options_get(focus_paths, "left_out"));
    }

    size_t len = 0;
    b->output = tg_dot_render(&model, &opts, &len);
    if (!b->output) rb_raise(rb_eNoMemError, "tracegraph: out of memory while rendering DOT");
    return rb_utf8_str_new(b->output, (long)len);
}

/* Tracegraph._render_dot(meta, methods, edges, options) -> String.
 * Lib code prepares plain arrays; see Formats::Dot.generate. */
static VALUE render_dot_method(VALUE mod, VALUE meta, VALUE methods, VALUE edges, VALUE options)
{
    (void)mod;
    Check_Type(meta, T_HASH);
    Check_Type(methods, T_ARRAY);
    Check_Type(edges, T_ARRAY);
    Check_Type(options, T_HASH);
    model_buffers buffers = {0};
    render_args args = {meta, methods, edges, options, &buffers};
    int state = 0;
    VALUE dot = rb_protect(render_dot, (VALUE)&args, &state);
    model_buffers_free(&buffers);
    if (state) rb_jump_tag(state);
    RB_GC_GUARD(meta);
    RB_GC_GUARD(methods);
    RB_GC_GUARD(edges);
    RB_GC_GUARD(options);   /* the notes, context and tooltips point into its strings */
    return dot;
}

/* One model's allocation counts for the diff graph, from {self:, total:
 * (a count per method), whole:, edges:, types:} (as for _render_dot; the
 * diff graph has no use for types). The arrays go to *self, *total and *edges,
 * which the caller frees even when this raises. */
static tg_diff_dot_allocations diff_allocations_from(VALUE hash, const tg_model *r, uint64_t **self,
                                                     uint64_t **total, uint64_t **edges)
{
    named_options_check(hash, "_render_diff_dot allocations", ALLOCATION_KEYS);
    long nm = (long)r->method_count;
    tg_diff_dot_allocations a;
    a.self = counts_from(named_options_get(hash, "self"), nm, self);
    a.total = counts_from(named_options_get(hash, "total"), nm, total);
    a.whole = u64(named_options_get(hash, "whole"));
    a.edges = counts_from(named_options_get(hash, "edges"), (long)r->edge_count, edges);
    return a;
}

static const char *const DIFF_KEYS[] = {
    "node_fraction", "edge_fraction", "max_nodes", "normalize", "cwd", "base_allocations", "head_allocations",
    "size_by", "focus", "ignore", "notes", "edge_calls_only", NULL};
static const char *const DIFF_FOCUS_KEYS[] = {"base", "head", "only_paths", "left_out", NULL};
static const char *const SIDE_KEYS[] = {"base", "head", NULL};

typedef struct diff_args {
    VALUE base[3], head[3];   /* meta, methods, edges of each profile */
    VALUE options;
    model_buffers *buffers;
} diff_args;

static VALUE render_diff_dot(VALUE arg)
{
    diff_args *a = (diff_args *)arg;
    model_buffers *b = a->buffers;
    tg_model base = model_from_ruby(a->base[0], a->base[1], a->base[2], &b->base_methods, &b->base_edges, &b->base_gc);
    tg_model head = model_from_ruby(a->head[0], a->head[1], a->head[2], &b->methods, &b->edges, &b->gc);

    /* The keys are DIFF_KEYS; comparison/diff.rb (ProfileDiff#to_dot) says
     * what each holds. */
    VALUE o = a->options;
    named_options_check(o, "_render_diff_dot", DIFF_KEYS);
    tg_diff_dot_options opts;
    tg_diff_dot_options_default(&opts);
    opts.node_fraction = NUM2DBL(named_options_get(o, "node_fraction"));
    opts.edge_fraction = NUM2DBL(named_options_get(o, "edge_fraction"));
    opts.max_nodes = NUM2SIZET(named_options_get(o, "max_nodes"));
    opts.normalize = RTEST(named_options_get(o, "normalize"));
    opts.cwd = cstr_or_null(named_options_get(o, "cwd"));
    VALUE base_counts = named_options_get(o, "base_allocations"), head_counts = named_options_get(o, "head_allocations");
    tg_diff_dot_allocations base_allocations, head_allocations;
    if (!NIL_P(base_counts) && !NIL_P(head_counts)) {
        base_allocations = diff_allocations_from(base_counts, &base, &b->base_self_allocations, &b->base_allocations,
                                                 &b->base_edge_allocations);
        head_allocations = diff_allocations_from(head_counts, &head, &b->self_allocations, &b->allocations,
                                                 &b->edge_allocations);
        opts.base_allocations = &base_allocations;
        opts.head_allocations = &head_allocations;
    }
    VALUE metric = named_options_get(o, "size_by");
    if (!NIL_P(metric)) Check_Type(metric, T_SYMBOL);
    if (!NIL_P(metric) && SYM2ID(metric) == rb_intern("allocations")) {
        if (!opts.base_allocations) rb_raise(rb_eArgError, "size_by: :allocations needs both profiles' allocation counts");
        opts.metric = TG_DOT_BY_ALLOCATIONS;
    }
    VALUE focus = named_options_get(o, "focus"), ignore = named_options_get(o, "ignore");
    if (!NIL_P(focus)) {
        named_options_check(focus, "_render_diff_dot focus", DIFF_FOCUS_KEYS);
        opts.base_focus = b->base_focus = flags_from(named_options_get(focus, "base"), (long)base.method_count);
        opts.head_focus = b->focus = flags_from(named_options_get(focus, "head"), (long)head.method_count);
        opts.focus_paths = RTEST(named_options_get(focus, "only_paths"));
        opts.focus_left_out = NUM2SIZET(named_options_get(focus, "left_out"));
    }
    if (!NIL_P(ignore)) {
        named_options_check(ignore, "_render_diff_dot ignore", SIDE_KEYS);
        opts.base_ignore = b->base_ignore = flags_from(named_options_get(ignore, "base"), (long)base.method_count);
        opts.head_ignore = b->ignore = flags_from(named_options_get(ignore, "head"), (long)head.method_count);
    }
    VALUE notes = named_options_get(o, "notes");
    b->notes = strings_from(notes, -1);
    opts.notes = b->notes;
    opts.note_count = NIL_P(notes) ? 0 : (size_t)RARRAY_LEN(notes);
    opts.edge_calls_only = RTEST(named_options_get(o, "edge_calls_only"));

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
    Check_Type(options, T_HASH);
    model_buffers buffers = {0};
    diff_args args = {{base_meta, base_methods, base_edges}, {head_meta, head_methods, head_edges}, options, &buffers};
    int state = 0;
    VALUE dot = rb_protect(render_diff_dot, (VALUE)&args, &state);
    model_buffers_free(&buffers);
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

void dot_text_init(VALUE mTracegraph)
{
    /* The graph's defaults have one home, tg_graph.h; Ruby reads them here
     * (formats/dot.rb, comparison/diff.rb). */
    VALUE defaults = rb_hash_new();
    rb_hash_aset(defaults, ID2SYM(rb_intern("node_fraction")), DBL2NUM(TG_GRAPH_DEFAULT_NODE_FRACTION));
    rb_hash_aset(defaults, ID2SYM(rb_intern("edge_fraction")), DBL2NUM(TG_GRAPH_DEFAULT_EDGE_FRACTION));
    rb_hash_aset(defaults, ID2SYM(rb_intern("max_nodes")), INT2NUM(TG_GRAPH_DEFAULT_MAX_NODES));
    rb_define_const(mTracegraph, "GRAPH_DEFAULTS", rb_obj_freeze(defaults));
    rb_define_singleton_method(mTracegraph, "_render_dot", render_dot_method, 4);
    rb_define_singleton_method(mTracegraph, "_render_diff_dot", render_diff_dot_method, 7);
}

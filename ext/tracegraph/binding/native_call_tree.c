/*
 * native_call_tree.c - Tracegraph::NativeCallTree, all of it: a finished
 * call tree whose nodes stay the core's (tg_calltree_node), owned by a
 * Ruby object, so that views, statistics and the stack outputs work on
 * them in C and no Ruby object is made per node unless asked for.
 *
 *   NativeCallTree._pack, #size, #allocations?, #_rows   the nodes
 *   #_view, #_stats   some threads, or the profile without its waiting
 *                     time (Profile#view, lib/tracegraph/model/view.rb)
 *   #_group_stats     groups of methods (Profile#group_by,
 *                     lib/tracegraph/model/group_sums.rb)
 *   #_write           the stack outputs (:folded, :pprof, :speedscope,
 *                     :firefox), streamed by the core's tg_stacks writers
 *
 * Uses: native_call_tree.h, named_options.h (inline), core tg_calltree.h,
 * tg_tree_stats.h, tg_stacks.h. Calls no other binding file.
 */
#include "native_call_tree.h"

#include <stdlib.h>
#include <string.h>

#include "named_options.h"
#include "tg_stacks.h"
#include "tg_tree_stats.h"

/* A NativeCallTree's nodes (parents before children), and their
 * allocation counts if it has them. */
typedef struct native_tree {
    tg_calltree_node *nodes;
    tg_calltree_allocations *allocations;   /* parallel to nodes, never NULL if counted; NULL if not */
    uint32_t count;
} native_tree;

static VALUE cNativeCallTree, eError;

static void native_tree_free(void *ptr)
{
    native_tree *t = ptr;
    free(t->nodes);
    free(t->allocations);
    free(t);
}

static size_t native_tree_memsize(const void *ptr)
{
    const native_tree *t = ptr;
    return sizeof *t + (size_t)t->count * (sizeof *t->nodes + (t->allocations ? sizeof *t->allocations : 0));
}

static const rb_data_type_t native_tree_type = {
    .wrap_struct_name = "tracegraph_call_tree",
    .function = {.dfree = native_tree_free, .dsize = native_tree_memsize},
    .flags = RUBY_TYPED_FREE_IMMEDIATELY,
};

VALUE native_call_tree_wrap(tg_calltree_node *nodes, tg_calltree_allocations *allocations, bool counted,
                            uint32_t count)
{
    native_tree *t = malloc(sizeof *t);
    if (counted && !allocations) allocations = calloc(count ? count : 1, sizeof *allocations);   /* zeros */
    if (!t || (counted && !allocations)) {
        free(t);
        free(nodes);
        free(allocations);
        rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    }
    if (count) {   /* drop the growth slack */
        tg_calltree_node *fitted = realloc(nodes, (size_t)count * sizeof *nodes);
        if (fitted) nodes = fitted;
        if (counted) {
            tg_calltree_allocations *fitted_counts = realloc(allocations, (size_t)count * sizeof *allocations);
            if (fitted_counts) allocations = fitted_counts;
        }
    }
    *t = (native_tree){nodes, counted ? allocations : NULL, count};
    return TypedData_Wrap_Struct(cNativeCallTree, &native_tree_type, t);
}

static native_tree *native_tree_of(VALUE self)
{
    return rb_check_typeddata(self, &native_tree_type);
}

/* NativeCallTree#size */
static VALUE native_tree_size(VALUE self)
{
    return UINT2NUM(native_tree_of(self)->count);
}

/* NativeCallTree#allocations? : whether the nodes have allocation counts. */
static VALUE native_tree_allocations_p(VALUE self)
{
    return native_tree_of(self)->allocations ? Qtrue : Qfalse;
}

/* NativeCallTree#_rows -> [[parent or -1, method, calls, total, self, thread(,
 * allocations, self allocations)], ...] where thread is the thread's index
 * for a bottom frame (parent -1), else nil; the allocation counts only if
 * the tree has them. */
static VALUE native_tree_rows(VALUE self)
{
    const native_tree *t = native_tree_of(self);
    VALUE rows = rb_ary_new_capa(t->count);
    for (uint32_t i = 0; i < t->count; i++) {
        const tg_calltree_node *n = &t->nodes[i];
        bool bottom = tg_calltree_is_root(n->parent);
        VALUE row = rb_ary_new_from_args(6, bottom ? INT2FIX(-1) : UINT2NUM(n->parent), UINT2NUM(n->method),
                                         ULL2NUM(n->calls), ULL2NUM(n->total_time), ULL2NUM(n->self_time),
                                         bottom ? UINT2NUM(tg_calltree_root_thread(n->parent)) : Qnil);
        if (t->allocations) {
            rb_ary_push(row, ULL2NUM(t->allocations[i].total));
            rb_ary_push(row, ULL2NUM(t->allocations[i].self));
        }
        rb_ary_push(rows, row);
    }
    return rows;
}

/* The packed column `s` (a String: "L*" for width 4, "Q*" for 8) of
 * `count` rows, or raises. */
static const char *column(VALUE s, long count, long width)
{
    if (RSTRING_LEN(s) != count * width) rb_raise(rb_eArgError, "call tree columns of different lengths");
    return RSTRING_PTR(s);
}

/* NativeCallTree._pack({parents:, methods:, calls:, totals:, selfs:,
 * allocations:, self_allocations:}), each column read by name
 * (named_options.h): a tree from packed columns ("L*" for parents and
 * methods, "Q*" for the rest; allocations and self_allocations both nil
 * for a tree without allocation counts). A bottom frame's parent is
 * 0xFFFFFFFE - its thread's index. Checked when written. */
static VALUE native_tree_pack(VALUE klass, VALUE columns)
{
    (void)klass;
    static const char *const keys[] = {"parents", "methods", "calls", "totals", "selfs", "allocations",
                                       "self_allocations", NULL};
    named_options_check(columns, "_pack", keys);
    VALUE parents = named_options_get(columns, "parents"), methods = named_options_get(columns, "methods");
    VALUE calls = named_options_get(columns, "calls"), totals = named_options_get(columns, "totals");
    VALUE selfs = named_options_get(columns, "selfs"), allocations = named_options_get(columns, "allocations");
    VALUE self_allocations = named_options_get(columns, "self_allocations");
    /* Every conversion first: none may run Ruby once pointers are taken. */
    StringValue(parents);
    StringValue(methods);
    StringValue(calls);
    StringValue(totals);
    StringValue(selfs);
    bool counted = !NIL_P(allocations) || !NIL_P(self_allocations);
    if (counted) {
        StringValue(allocations);
        StringValue(self_allocations);
    }
    long count = RSTRING_LEN(parents) / 4;
    if (count > TG_CALLTREE_MAX_NODES) rb_raise(rb_eArgError, "call tree of more than %u nodes", TG_CALLTREE_MAX_NODES);
    const char *parent = column(parents, count, 4), *method = column(methods, count, 4);
    const char *call = column(calls, count, 8), *total = column(totals, count, 8), *self = column(selfs, count, 8);
    const char *allocated = counted ? column(allocations, count, 8) : NULL;
    const char *self_allocated = counted ? column(self_allocations, count, 8) : NULL;
    tg_calltree_node *nodes = count ? malloc((size_t)count * sizeof *nodes) : NULL;
    tg_calltree_allocations *counts = counted && count ? malloc((size_t)count * sizeof *counts) : NULL;
    if (count && (!nodes || (counted && !counts))) {
        free(nodes);
        free(counts);
        rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    }
    for (long i = 0; i < count; i++) {
        tg_calltree_node *n = &nodes[i];
        memcpy(&n->parent, parent + i * 4, 4);
        memcpy(&n->method, method + i * 4, 4);
        memcpy(&n->calls, call + i * 8, 8);
        memcpy(&n->total_time, total + i * 8, 8);
        memcpy(&n->self_time, self + i * 8, 8);
        if (!counted) continue;
        memcpy(&counts[i].total, allocated + i * 8, 8);
        memcpy(&counts[i].self, self_allocated + i * 8, 8);
    }
    VALUE tree = native_call_tree_wrap(nodes, counts, counted, (uint32_t)count);
    RB_GC_GUARD(columns);   /* it holds the Strings read above */
    return tree;
}

/* ---- views and statistics (tg_calltree_filter, tg_tree_stats_compute) ---- */

/* Per-index flags from an Array of booleans of exactly n entries, or NULL
 * for nil. The caller frees. */
static bool *flags_of(VALUE ary, long n, const char *what)
{
    if (NIL_P(ary)) return NULL;
    Check_Type(ary, T_ARRAY);
    if (RARRAY_LEN(ary) != n) rb_raise(rb_eArgError, "%s: %ld flags for %ld entries", what, RARRAY_LEN(ary), n);
    bool *flags = malloc((size_t)n + 1);
    if (!flags) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    for (long i = 0; i < n; i++) flags[i] = RTEST(rb_ary_entry(ary, i));
    return flags;
}

typedef struct view_args {
    const native_tree *t;
    VALUE thread_flags, hidden_flags;
    uint32_t method_count;
    bool *threads, *hidden;
    tg_calltree_node *out;
    tg_calltree_allocations *out_allocations;
} view_args;

static VALUE view_body(VALUE arg)
{
    view_args *a = (view_args *)arg;
    a->threads = flags_of(a->thread_flags, RARRAY_LEN(a->thread_flags), "thread flags");
    a->hidden = flags_of(a->hidden_flags, a->method_count, "hidden methods");
    a->out = malloc(((size_t)a->t->count + 1) * sizeof *a->out);
    if (!a->out) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    bool counted = a->t->allocations != NULL;
    if (counted) {
        a->out_allocations = malloc(((size_t)a->t->count + 1) * sizeof *a->out_allocations);
        if (!a->out_allocations) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    }
    uint64_t hidden_time = 0;
    uint32_t kept = tg_calltree_filter(a->t->nodes, a->t->allocations, a->t->count, a->threads,
                                       (uint32_t)RARRAY_LEN(a->thread_flags), a->hidden, a->method_count, a->out,
                                       a->out_allocations, &hidden_time);
    if (kept == UINT32_MAX) rb_raise(rb_eArgError, "malformed call tree, or out of memory while filtering it");
    tg_calltree_node *nodes = a->out;
    tg_calltree_allocations *allocations = a->out_allocations;
    a->out = NULL;   /* owned by the new tree from here, even if wrapping fails */
    a->out_allocations = NULL;
    if (kept == 0) {
        free(nodes);
        free(allocations);
        nodes = NULL;
        allocations = NULL;
    }
    VALUE result = rb_hash_new();
    rb_hash_aset(result, ID2SYM(rb_intern("tree")), native_call_tree_wrap(nodes, allocations, counted, kept));
    rb_hash_aset(result, ID2SYM(rb_intern("hidden_time")), ULL2NUM(hidden_time));
    return result;
}

static VALUE view_cleanup(VALUE arg)
{
    view_args *a = (view_args *)arg;
    free(a->threads);
    free(a->hidden);
    free(a->out);
    free(a->out_allocations);
    return Qnil;
}

/* NativeCallTree#_view({threads:, hidden:, method_count:}), each read by
 * name (named_options.h): threads the flags of the threads to keep,
 * hidden (or nil) of the methods whose subtrees are left out
 * -> {tree: NativeCallTree, hidden_time:}: the paths of the threads
 * flagged, less the hidden methods' subtrees (tg_calltree_filter), with
 * allocation counts if this tree has them. */
static VALUE native_tree_view(VALUE self, VALUE options)
{
    static const char *const keys[] = {"threads", "hidden", "method_count", NULL};
    named_options_check(options, "_view", keys);
    VALUE thread_flags = named_options_get(options, "threads");
    Check_Type(thread_flags, T_ARRAY);
    view_args a = {.t = native_tree_of(self), .thread_flags = thread_flags,
                   .hidden_flags = named_options_get(options, "hidden"),
                   .method_count = NUM2UINT(named_options_get(options, "method_count"))};
    return rb_ensure(view_body, (VALUE)&a, view_cleanup, (VALUE)&a);
}

typedef struct stats_args {
    tg_tree_stats_input in;
    tg_tree_stats out;
    VALUE thread_flags, hidden_flags, focus_flags;
    bool *threads, *hidden, *focus;
} stats_args;

/* Appends [total allocations, self allocations] to a stats row. */
static void push_allocations(VALUE row, const tg_allocation_stats *a)
{
    rb_ary_push(row, ULL2NUM(a->total));
    rb_ary_push(row, ULL2NUM(a->self));
}

/* [calls, total, self(, allocations, self allocations)], after `prefix`
 * (nil for none) */
static VALUE stats_row(VALUE prefix, uint64_t calls, uint64_t total, uint64_t self_time,
                       const tg_allocation_stats *a)
{
    VALUE row = NIL_P(prefix) ? rb_ary_new_capa(5) : prefix;
    rb_ary_push(row, ULL2NUM(calls));
    rb_ary_push(row, ULL2NUM(total));
    rb_ary_push(row, ULL2NUM(self_time));
    if (a) push_allocations(row, a);
    return row;
}

/* Raises for a tg_tree_stats_compute failure; returns on success. */
static void raise_unless_computed(tg_tree_stats_status status)
{
    if (status == TG_TREE_STATS_NO_MEMORY) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    if (status == TG_TREE_STATS_BAD_GROUPS) rb_raise(rb_eArgError, "a method's group or the top group out of range");
    if (status != TG_TREE_STATS_OK) rb_raise(rb_eArgError, "malformed call tree");
}

static VALUE stats_body(VALUE arg)
{
    stats_args *a = (stats_args *)arg;
    a->in.threads = a->threads = flags_of(a->thread_flags, a->in.thread_count, "thread flags");
    a->in.hidden = a->hidden = flags_of(a->hidden_flags, a->in.method_count, "hidden methods");
    a->in.focus = a->focus = flags_of(a->focus_flags, a->in.method_count, "focus matches");
    raise_unless_computed(tg_tree_stats_compute(&a->in, &a->out));
    bool counted = a->in.allocations != NULL;
    VALUE methods = rb_ary_new_capa(a->in.method_count);
    for (uint32_t i = 0; i < a->in.method_count; i++) {
        const tg_method_stats *m = &a->out.methods[i];
        rb_ary_push(methods, stats_row(Qnil, m->calls, m->total_time, m->self_time,
                                       counted ? &a->out.method_allocations[i] : NULL));
    }
    VALUE edges = rb_ary_new_capa(a->out.edge_count);
    for (uint32_t i = 0; i < a->out.edge_count; i++) {
        const tg_edge_stats *e = &a->out.edges[i];
        VALUE ends = rb_ary_new_from_args(2, UINT2NUM(e->caller), UINT2NUM(e->callee));
        rb_ary_push(edges, stats_row(ends, e->calls, e->total_time, e->self_time,
                                     counted ? &a->out.edge_allocations[i] : NULL));
    }
    VALUE threads = rb_ary_new_capa(a->in.thread_count);
    for (uint32_t i = 0; i < a->in.thread_count; i++) rb_ary_push(threads, ULL2NUM(a->out.thread_time[i]));
    VALUE result = rb_hash_new();
    rb_hash_aset(result, ID2SYM(rb_intern("methods")), methods);
    rb_hash_aset(result, ID2SYM(rb_intern("edges")), edges);
    rb_hash_aset(result, ID2SYM(rb_intern("threads")), threads);
    rb_hash_aset(result, ID2SYM(rb_intern("hidden_time")), ULL2NUM(a->out.hidden_time));
    return result;
}

static VALUE stats_cleanup(VALUE arg)
{
    stats_args *a = (stats_args *)arg;
    tg_tree_stats_free(&a->out);
    free(a->threads);
    free(a->hidden);
    free(a->focus);
    return Qnil;
}

/* NativeCallTree#_stats({method_count:, threads:, hidden:, focus:}), each
 * read by name (named_options.h): threads the flags of the threads to
 * keep, hidden (or nil) of the methods whose subtrees are left out, focus
 * (or nil) of the methods only the paths through which are kept
 * -> {methods: [[calls, total, self(, allocations, self allocations)] per
 * method], edges: [[caller, callee, calls, total, self(, allocations,
 * self allocations)], ...], threads: [time per thread], hidden_time:}:
 * the method and edge statistics of the flagged threads' paths
 * (tg_tree_stats_compute), with the allocation counts if this tree has
 * them. */
static VALUE native_tree_stats(VALUE self, VALUE options)
{
    static const char *const keys[] = {"method_count", "threads", "hidden", "focus", NULL};
    named_options_check(options, "_stats", keys);
    VALUE thread_flags = named_options_get(options, "threads");
    Check_Type(thread_flags, T_ARRAY);
    const native_tree *t = native_tree_of(self);
    stats_args a = {.in = {.nodes = t->nodes, .allocations = t->allocations, .node_count = t->count,
                           .method_count = NUM2UINT(named_options_get(options, "method_count")),
                           .thread_count = (uint32_t)RARRAY_LEN(thread_flags)},
                    .thread_flags = thread_flags, .hidden_flags = named_options_get(options, "hidden"),
                    .focus_flags = named_options_get(options, "focus")};
    return rb_ensure(stats_body, (VALUE)&a, stats_cleanup, (VALUE)&a);
}

typedef struct group_stats_args {
    tg_tree_stats_input in;
    tg_tree_stats out;
    VALUE group_of;
    uint32_t *groups;
} group_stats_args;

static VALUE group_stats_body(VALUE arg)
{
    group_stats_args *a = (group_stats_args *)arg;
    long n = RARRAY_LEN(a->group_of);
    a->groups = malloc(((size_t)n + 1) * sizeof *a->groups);
    if (!a->groups) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    for (long i = 0; i < n; i++) {
        VALUE g = rb_ary_entry(a->group_of, i);
        a->groups[i] = NIL_P(g) ? TG_TREE_STATS_INHERIT : NUM2UINT(g);
        if (a->groups[i] == TG_TREE_STATS_INHERIT && !NIL_P(g)) rb_raise(rb_eArgError, "group index out of range");
    }
    a->in.group_of = a->groups;
    raise_unless_computed(tg_tree_stats_compute(&a->in, &a->out));
    bool counted = a->in.allocations != NULL;
    VALUE groups = rb_ary_new_capa(a->in.group_count);
    for (uint32_t i = 0; i < a->in.group_count; i++) {
        const tg_method_stats *g = &a->out.groups[i];
        rb_ary_push(groups, stats_row(Qnil, g->calls, g->total_time, g->self_time,
                                      counted ? &a->out.group_allocations[i] : NULL));
    }
    VALUE arrows = rb_ary_new_capa(a->out.edge_count);
    for (uint32_t i = 0; i < a->out.edge_count; i++) {
        const tg_edge_stats *e = &a->out.edges[i];
        VALUE ends = rb_ary_new_from_args(2, UINT2NUM(e->caller), UINT2NUM(e->callee));
        rb_ary_push(arrows, stats_row(ends, e->calls, e->total_time, e->self_time,
                                      counted ? &a->out.edge_allocations[i] : NULL));
    }
    VALUE pieces = rb_ary_new_capa(a->out.piece_count);
    for (uint32_t i = 0; i < a->out.piece_count; i++) {
        const tg_tree_stats_piece *p = &a->out.pieces[i];
        VALUE ends = rb_ary_new_from_args(2, UINT2NUM(p->method), UINT2NUM(p->group));
        rb_ary_push(pieces, stats_row(ends, p->calls, p->total_time, p->self_time,
                                      counted ? &a->out.piece_allocations[i] : NULL));
    }
    VALUE result = rb_hash_new();
    rb_hash_aset(result, ID2SYM(rb_intern("groups")), groups);
    rb_hash_aset(result, ID2SYM(rb_intern("arrows")), arrows);
    rb_hash_aset(result, ID2SYM(rb_intern("pieces")), pieces);
    return result;
}

static VALUE group_stats_cleanup(VALUE arg)
{
    group_stats_args *a = (group_stats_args *)arg;
    tg_tree_stats_free(&a->out);
    free(a->groups);
    return Qnil;
}

/* NativeCallTree#_group_stats({group_of:, group_count:, top_group:,
 * thread_count:}), each read by name (named_options.h)
 * -> {groups: [[calls, total, self(, allocations, self allocations)] per
 * group], arrows: [[from group, to group, calls, total, self(, ...)], ...],
 * pieces: [[method, group, calls, total, self(, ...)], ...]}: the tree's
 * every path summed by group (tg_tree_stats_compute with a grouping).
 * group_of has a group index per method, or nil for a method that takes
 * its caller's group (top_group at the bottom of a stack); thread_count is
 * how many thread indexes the tree's bottom frames use. */
static VALUE native_tree_group_stats(VALUE self, VALUE options)
{
    static const char *const keys[] = {"group_of", "group_count", "top_group", "thread_count", NULL};
    named_options_check(options, "_group_stats", keys);
    VALUE group_of = named_options_get(options, "group_of");
    Check_Type(group_of, T_ARRAY);
    const native_tree *t = native_tree_of(self);
    group_stats_args a = {.in = {.nodes = t->nodes, .allocations = t->allocations, .node_count = t->count,
                                 .method_count = (uint32_t)RARRAY_LEN(group_of),
                                 .thread_count = NUM2UINT(named_options_get(options, "thread_count")),
                                 .group_count = NUM2UINT(named_options_get(options, "group_count")),
                                 .top_group = NUM2UINT(named_options_get(options, "top_group"))},
                          .group_of = group_of};
    VALUE result = rb_ensure(group_stats_body, (VALUE)&a, group_stats_cleanup, (VALUE)&a);
    RB_GC_GUARD(group_of);
    return result;
}

/* ---- the stack outputs (tg_stacks) ---- */

/* What a stack output borrows while it is written: C copies of every
 * string, so that nothing points into Ruby objects while Ruby runs the
 * output's write method. Freed by stacks_cleanup, even on a raise. */
typedef struct stacks_job {
    tg_stacks_input in;
    tg_stacks_method *methods;
    char **threads;
    char *clock, *program, *exporter;
    VALUE self, format, io, method_rows, thread_names, meta;
    int write_state;   /* a raise in io.write, re-raised after cleanup */
} stacks_job;

static char *copy_cstr(VALUE s)
{
    const char *p = StringValueCStr(s);   /* raises on a NUL: names are cleaned */
    size_t n = strlen(p) + 1;
    char *copy = malloc(n);
    if (!copy) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    return memcpy(copy, p, n);
}

static VALUE stacks_io_write(VALUE arg)
{
    const VALUE *args = (const VALUE *)arg;
    return rb_funcall(args[0], rb_intern("write"), 1, args[1]);
}

/* The core's write function: one chunk to io.write, a raise caught. */
static bool stacks_sink(void *ctx, const char *bytes, size_t len)
{
    stacks_job *job = ctx;
    VALUE args[2] = {job->io, rb_str_new(bytes, (long)len)};
    rb_protect(stacks_io_write, (VALUE)args, &job->write_state);
    return job->write_state == 0;
}

static VALUE stacks_body(VALUE arg)
{
    stacks_job *job = (stacks_job *)arg;
    const native_tree *t = native_tree_of(job->self);
    Check_Type(job->method_rows, T_ARRAY);
    Check_Type(job->thread_names, T_ARRAY);
    static const char *const meta_keys[] = {"max_depth", "folded_calls", "clock", "program", "exporter", "complete",
                                            NULL};
    named_options_check(job->meta, "_write's meta", meta_keys);
    long nm = RARRAY_LEN(job->method_rows), nt = RARRAY_LEN(job->thread_names);
    if (nm >= UINT32_MAX || nt >= TG_CALLTREE_MAX_NODES) rb_raise(rb_eArgError, "too many methods or threads");
    job->methods = calloc((size_t)nm + 1, sizeof *job->methods);
    job->threads = calloc((size_t)nt + 1, sizeof *job->threads);
    if (!job->methods || !job->threads) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    job->in.methods = job->methods;
    for (long i = 0; i < nm; i++) {
        VALUE m = rb_ary_entry(job->method_rows, i);   /* [name, file or nil, line or nil] */
        Check_Type(m, T_ARRAY);
        job->methods[i].name = copy_cstr(rb_ary_entry(m, 0));
        job->in.method_count = (uint32_t)i + 1;   /* what cleanup frees */
        VALUE file = rb_ary_entry(m, 1), line = rb_ary_entry(m, 2);
        job->methods[i].file = NIL_P(file) ? NULL : copy_cstr(file);
        job->methods[i].line = NIL_P(line) ? 0 : NUM2UINT(line);
    }
    job->in.threads = (const char *const *)job->threads;
    for (long i = 0; i < nt; i++) {
        job->threads[i] = copy_cstr(rb_ary_entry(job->thread_names, i));
        job->in.thread_count = (uint32_t)i + 1;
    }
    VALUE m = job->meta;
    job->in.max_depth = NUM2UINT(named_options_get(m, "max_depth"));
    job->in.folded_calls = NUM2ULL(named_options_get(m, "folded_calls"));
    job->in.clock = job->clock = copy_cstr(named_options_get(m, "clock"));
    VALUE program = named_options_get(m, "program");
    job->in.program = job->program = NIL_P(program) ? NULL : copy_cstr(program);
    job->in.exporter = job->exporter = copy_cstr(named_options_get(m, "exporter"));
    job->in.complete = RTEST(named_options_get(m, "complete"));
    job->in.nodes = t->nodes;
    job->in.allocations = t->allocations;
    job->in.node_count = t->count;

    /* The writers by their format's name, one core file each (tg_stacks_<name>.c). */
    static const struct {
        const char *name;
        tg_stacks_status (*write)(const tg_stacks_input *, tg_stacks_write_fn, void *);
    } writers[] = {{"folded", tg_stacks_write_folded},
                   {"pprof", tg_stacks_write_pprof},
                   {"speedscope", tg_stacks_write_speedscope},
                   {"firefox", tg_stacks_write_firefox}};
    tg_stacks_status (*writer)(const tg_stacks_input *, tg_stacks_write_fn, void *) = NULL;
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++)
        if (job->format == ID2SYM(rb_intern(writers[i].name))) writer = writers[i].write;
    if (!writer) rb_raise(rb_eArgError, "unknown stack format %+" PRIsVALUE, job->format);
    tg_stacks_status status = writer(&job->in, stacks_sink, job);
    if (job->write_state) return Qnil;   /* re-raised by the caller, after cleanup */
    if (status != TG_STACKS_OK) rb_raise(eError, "cannot write the %" PRIsVALUE " output: %s", job->format,
                                         tg_stacks_status_message(status));
    return Qnil;
}

static VALUE stacks_cleanup(VALUE arg)
{
    stacks_job *job = (stacks_job *)arg;
    for (uint32_t i = 0; i < job->in.method_count; i++) {
        free((char *)job->methods[i].name);
        free((char *)job->methods[i].file);
    }
    for (uint32_t i = 0; i < job->in.thread_count; i++) free(job->threads[i]);
    free(job->methods);
    free(job->threads);
    free(job->clock);
    free(job->program);
    free(job->exporter);
    return Qnil;
}

/* NativeCallTree#_write(format, io, methods, thread_names, meta): streams
 * the :folded, :pprof, :speedscope or :firefox output to io.write in chunks.
 *   methods      [[name, file or nil, line or nil], ...] by method index
 *   thread_names [name, ...] by thread index
 *   meta         {max_depth:, folded_calls:, clock:, program: (or nil), exporter:, complete:},
 *                each read by name (named_options.h) */
static VALUE native_tree_write(VALUE self, VALUE format, VALUE io, VALUE methods, VALUE thread_names, VALUE meta)
{
    stacks_job job = {.self = self, .format = format, .io = io, .method_rows = methods,
                      .thread_names = thread_names, .meta = meta};
    rb_ensure(stacks_body, (VALUE)&job, stacks_cleanup, (VALUE)&job);
    if (job.write_state) rb_jump_tag(job.write_state);
    RB_GC_GUARD(self);
    RB_GC_GUARD(io);
    RB_GC_GUARD(methods);
    RB_GC_GUARD(thread_names);
    RB_GC_GUARD(meta);
    return io;
}

void native_call_tree_init(VALUE mTracegraph, VALUE error)
{
    eError = error;
    cNativeCallTree = rb_define_class_under(mTracegraph, "NativeCallTree", rb_cObject);
    rb_undef_alloc_func(cNativeCallTree);
    rb_define_singleton_method(cNativeCallTree, "_pack", native_tree_pack, 1);
    rb_define_method(cNativeCallTree, "size", native_tree_size, 0);
    rb_define_method(cNativeCallTree, "allocations?", native_tree_allocations_p, 0);
    rb_define_method(cNativeCallTree, "_rows", native_tree_rows, 0);
    rb_define_method(cNativeCallTree, "_view", native_tree_view, 1);
    rb_define_method(cNativeCallTree, "_stats", native_tree_stats, 1);
    rb_define_method(cNativeCallTree, "_group_stats", native_tree_group_stats, 1);
    rb_define_method(cNativeCallTree, "_write", native_tree_write, 5);
}

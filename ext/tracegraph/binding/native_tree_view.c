/* native_tree_view.c - see native_tree_view.h. The work is in the core
 * (tg_calltree_filter, tg_tree_stats_compute); this file converts. */
#include "native_tree_view.h"

#include <stdlib.h>

#include "tg_tree_stats.h"

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
    return rb_ary_new_from_args(2, native_tree_wrap(nodes, allocations, counted, kept), ULL2NUM(hidden_time));
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

/* NativeCallTree#_view(thread_flags, hidden_flags or nil, method_count)
 * -> [NativeCallTree, hidden_time]: the paths of the threads flagged, less
 * the hidden methods' subtrees (tg_calltree_filter), with allocation
 * counts if this tree has them. */
static VALUE native_tree_view(VALUE self, VALUE thread_flags, VALUE hidden_flags, VALUE method_count)
{
    Check_Type(thread_flags, T_ARRAY);
    view_args a = {.t = native_tree_of(self), .thread_flags = thread_flags, .hidden_flags = hidden_flags,
                   .method_count = NUM2UINT(method_count)};
    return rb_ensure(view_body, (VALUE)&a, view_cleanup, (VALUE)&a);
}

typedef struct stats_args {
    tg_tree_stats_input in;
    tg_tree_stats out;
    VALUE thread_flags, hidden_flags;
    bool *threads, *hidden;
} stats_args;

/* Appends [total allocations, self allocations] to a stats row. */
static void push_allocations(VALUE row, const tg_allocation_stats *a)
{
    rb_ary_push(row, ULL2NUM(a->total));
    rb_ary_push(row, ULL2NUM(a->self));
}

static VALUE stats_body(VALUE arg)
{
    stats_args *a = (stats_args *)arg;
    a->in.threads = a->threads = flags_of(a->thread_flags, a->in.thread_count, "thread flags");
    a->in.hidden = a->hidden = flags_of(a->hidden_flags, a->in.method_count, "hidden methods");
    tg_tree_stats_status status = tg_tree_stats_compute(&a->in, &a->out);
    if (status == TG_TREE_STATS_NO_MEMORY) rb_raise(rb_eNoMemError, "tracegraph: out of memory");
    if (status != TG_TREE_STATS_OK) rb_raise(rb_eArgError, "malformed call tree");
    VALUE methods = rb_ary_new_capa(a->in.method_count);
    for (uint32_t i = 0; i < a->in.method_count; i++) {
        const tg_method_stats *m = &a->out.methods[i];
        VALUE row = rb_ary_new_from_args(3, ULL2NUM(m->calls), ULL2NUM(m->total_time), ULL2NUM(m->self_time));
        if (a->in.allocations) push_allocations(row, &a->out.method_allocations[i]);
        rb_ary_push(methods, row);
    }
    VALUE edges = rb_ary_new_capa(a->out.edge_count);
    for (uint32_t i = 0; i < a->out.edge_count; i++) {
        const tg_edge_stats *e = &a->out.edges[i];
        VALUE row = rb_ary_new_from_args(5, UINT2NUM(e->caller), UINT2NUM(e->callee), ULL2NUM(e->calls),
                                         ULL2NUM(e->total_time), ULL2NUM(e->self_time));
        if (a->in.allocations) push_allocations(row, &a->out.edge_allocations[i]);
        rb_ary_push(edges, row);
    }
    VALUE threads = rb_ary_new_capa(a->in.thread_count);
    for (uint32_t i = 0; i < a->in.thread_count; i++) rb_ary_push(threads, ULL2NUM(a->out.thread_time[i]));
    return rb_ary_new_from_args(4, methods, edges, threads, ULL2NUM(a->out.hidden_time));
}

static VALUE stats_cleanup(VALUE arg)
{
    stats_args *a = (stats_args *)arg;
    tg_tree_stats_free(&a->out);
    free(a->threads);
    free(a->hidden);
    return Qnil;
}

/* NativeCallTree#_stats(method_count, thread_flags, hidden_flags or nil)
 * -> [[[calls, total, self(, allocations, self allocations)] per method],
 * [[caller, callee, calls, total, self(, allocations, self allocations)],
 * ...], [time per thread], hidden_time]: the method and edge statistics
 * of the flagged threads' paths without the hidden methods
 * (tg_tree_stats_compute), with the allocation counts if this tree has
 * them. */
static VALUE native_tree_stats(VALUE self, VALUE method_count, VALUE thread_flags, VALUE hidden_flags)
{
    Check_Type(thread_flags, T_ARRAY);
    const native_tree *t = native_tree_of(self);
    stats_args a = {.in = {.nodes = t->nodes, .allocations = t->allocations, .node_count = t->count,
                           .method_count = NUM2UINT(method_count),
                           .thread_count = (uint32_t)RARRAY_LEN(thread_flags)},
                    .thread_flags = thread_flags, .hidden_flags = hidden_flags};
    return rb_ensure(stats_body, (VALUE)&a, stats_cleanup, (VALUE)&a);
}

void native_tree_view_init(VALUE cNativeCallTree)
{
    rb_define_method(cNativeCallTree, "_view", native_tree_view, 3);
    rb_define_method(cNativeCallTree, "_stats", native_tree_stats, 3);
}

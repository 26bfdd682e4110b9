/*
 * stacks_checks.h - what the stack writers' tests share: a write function
 * that collects the output (and can fail on purpose), a small call tree
 * of two threads, and a chain of any depth. Header-only: each test file
 * (test_stacks*.c, one per writer) is its own executable.
 */
#ifndef TG_TEST_STACKS_CHECKS_H
#define TG_TEST_STACKS_CHECKS_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tg_stacks.h"

/* A write function that collects the output, and can fail on purpose. */
typedef struct sink {
    char *data;
    size_t len;
    size_t chunks, largest;
    size_t fail_after;   /* chunks; 0: never fail */
} sink;

static inline bool collect(void *ctx, const char *bytes, size_t len)
{
    sink *s = ctx;
    if (s->fail_after && s->chunks == s->fail_after) return false;
    s->data = realloc(s->data, s->len + len + 1);
    ck_assert_ptr_nonnull(s->data);
    memcpy(s->data + s->len, bytes, len);
    s->len += len;
    s->data[s->len] = '\0';
    s->chunks++;
    if (len > s->largest) s->largest = len;
    return true;
}

__attribute__((unused)) static const tg_stacks_method methods[] = {
    {"Object#main", "app.rb", 1}, {"Object#work", "app.rb", 5}, {"Integer#times", NULL, 0}, {"A#x;y\n", NULL, 0},
};
__attribute__((unused)) static const char *const threads[] = {"main", "worker"};

#define ROOT(t) (TG_CALLTREE_ROOT - 1 - (t))   /* tg_calltree_root(t), as a constant */

/* main: main -> work -> times, main -> x;y. worker: work -> times. */
__attribute__((unused)) static const tg_calltree_node tree[] = {
    {ROOT(0), 0, 1, 100, 10},   /* 0 main */
    {0, 1, 2, 60, 20},          /* 1 main > work */
    {1, 2, 2, 40, 40},          /* 2 main > work > times */
    {ROOT(1), 1, 1, 50, 5},     /* 3 worker: work */
    {3, 2, 1, 45, 45},          /* 4 worker: work > times */
    {0, 3, 3, 30, 30},          /* 5 main > x;y */
};

static inline tg_stacks_input input(const tg_calltree_node *nodes, uint32_t count, uint32_t thread_count)
{
    return (tg_stacks_input){
        .nodes = nodes, .node_count = count, .methods = methods, .method_count = 4,
        .threads = threads, .thread_count = thread_count, .max_depth = 1000,
        .clock = "wall", .program = "app.rb", .exporter = "tracegraph test", .complete = true,
    };
}


/* A chain of `depth` frames alternating main and work, each with self 1. */
static inline tg_calltree_node *chain(uint32_t depth)
{
    tg_calltree_node *nodes = calloc(depth, sizeof *nodes);
    for (uint32_t i = 0; i < depth; i++)
        nodes[i] = (tg_calltree_node){i ? i - 1 : ROOT(0), i % 2, 1, depth - i, 1};
    return nodes;
}

#endif

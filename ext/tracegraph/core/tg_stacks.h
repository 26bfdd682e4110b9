/*
 * tg_stacks.h - stack outputs streamed from the call tree: folded stacks,
 * pprof's profile.proto, speedscope's JSON and the Firefox Profiler's JSON.
 *
 * Each writer walks the tree depth first once (Firefox Profiler: once per
 * column of a thread) and hands its output to a write function in chunks
 * of at most TG_STACKS_CHUNK bytes, so the output is never held whole: memory is the tree, two links per
 * node and the deepest path (Firefox Profiler: one more index per node and
 * two per method). Nothing here allocates per call or per line.
 *
 * Threads are kept apart: a bottom frame's parent is its thread's root
 * (tg_calltree_root), and every writer groups or labels paths by thread.
 *
 * Paths deeper than max_depth frames:
 *  - folded: the line stops at max_depth frames; deeper frames' self time
 *    is added to the line of their ancestor at that depth.
 *  - pprof: the sample keeps its bottom max_depth - 1 frames and its leaf,
 *    so every method's self time and calls stay exact.
 *  - speedscope: a node that deep is its self time alone, under its
 *    ancestor at depth max_depth - 1 (as pprof's sample), so every
 *    method's self time stays exact.
 *  - Firefox Profiler: no limit; its stack table has one entry per node.
 */
#ifndef TG_STACKS_H
#define TG_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tg_calltree.h"

#define TG_STACKS_CHUNK 65536

/* Takes len bytes of output; false stops the writer (TG_STACKS_WRITE_FAILED). */
typedef bool (*tg_stacks_write_fn)(void *ctx, const char *bytes, size_t len);

typedef struct tg_stacks_method {
    const char *name;   /* NUL-terminated UTF-8 */
    const char *file;   /* NULL for C methods */
    uint32_t line;      /* 0 if unknown */
} tg_stacks_method;

typedef struct tg_stacks_input {
    const tg_calltree_node *nodes;   /* parents before children */
    const tg_calltree_allocations *allocations;   /* node_count entries, or NULL: not counted */
    uint32_t node_count;
    const tg_stacks_method *methods;
    uint32_t method_count;
    const char *const *threads;      /* names, by thread index */
    uint32_t thread_count;
    uint32_t max_depth;              /* >= 2 */
    uint64_t folded_calls;           /* calls folded past the tree's cap */
    const char *clock;               /* "wall", "cpu", "thread_cpu" */
    const char *program;             /* NULL if unknown */
    const char *exporter;            /* "tracegraph 1.2.3" */
    bool complete;                   /* false if events were dropped */
} tg_stacks_input;

typedef enum tg_stacks_status {
    TG_STACKS_OK,
    TG_STACKS_NO_MEMORY,
    TG_STACKS_WRITE_FAILED,
    TG_STACKS_BAD_TREE,   /* a parent after its child, a missing method or thread */
} tg_stacks_status;

/* Checks that the input is a tree the writers can walk (they check too). */
tg_stacks_status tg_stacks_check(const tg_stacks_input *in);

/* "frame;frame;frame self_time\n" for every path with self time, depth
 * first; with more than one thread, each line starts with "thread: NAME".
 * ';' in names becomes ':', CR and LF a space. */
tg_stacks_status tg_stacks_write_folded(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx);

/* A profile.proto message (uncompressed: the caller gzips it). Sample
 * types calls/count and time/nanoseconds (the default), and with
 * allocation counts alloc_objects/count; one function and one location
 * per method; one sample per path, leaf first, with values [calls, self
 * time(, self allocations)] and the label thread: NAME. */
tg_stacks_status tg_stacks_write_pprof(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx);

/* speedscope's file format: shared frames, one evented profile per
 * thread. Each node opens its frame, its self time passes, its children
 * follow, and it closes: two events a node, however deep, where a sampled
 * profile would repeat each path's whole stack. The times are a layout of
 * the tree (each thread's self times laid end to end), not when calls
 * happened. */
tg_stacks_status tg_stacks_write_speedscope(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx);

/* The Firefox Profiler's processed format, version 47 (which the profiler
 * upgrades to its current one on load): one thread per thread with paths,
 * each with its own tables; a stack per call-tree node (so no depth limit
 * applies), a frame and a func per method the thread ran, and one sample
 * per path with self time, weighted by it in milliseconds (tracing-ms). */
tg_stacks_status tg_stacks_write_firefox(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx);

/* A short English description of a status, for error messages. */
const char *tg_stacks_status_message(tg_stacks_status status);

#endif

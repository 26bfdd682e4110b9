/* tg_stacks.c - what the stack writers share (tg_stacks_writer.h): the
 * output's chunks, the tree walk, a JSON string; and the input's check
 * and the status messages of tg_stacks.h. The writers are a file each:
 * tg_stacks_folded.c, tg_stacks_pprof.c (with its protobuf encoder),
 * tg_stacks_speedscope.c, tg_stacks_firefox.c. */
#include "tg_stacks_writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output: a chunk buffer in front of the write function ------------ */

void tg_stacks_out_flush(tg_stacks_out *o)
{
    if (o->len && !o->failed && !o->write(o->ctx, o->buf, o->len)) o->failed = true;
    o->len = 0;
}

void tg_stacks_put_u64(tg_stacks_out *o, uint64_t v)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    tg_stacks_put(o, digits, (size_t)n);
}

tg_stacks_out *tg_stacks_out_new(tg_stacks_write_fn write, void *ctx)
{
    tg_stacks_out *o = malloc(sizeof *o);
    if (!o) return NULL;
    o->len = 0;
    o->write = write;
    o->ctx = ctx;
    o->failed = false;
    return o;
}

/* Flushes and frees; the status of the whole write. */
tg_stacks_status tg_stacks_out_finish(tg_stacks_out *o, tg_stacks_status status)
{
    if (status == TG_STACKS_OK) tg_stacks_out_flush(o);
    if (status == TG_STACKS_OK && o->failed) status = TG_STACKS_WRITE_FAILED;
    free(o);
    return status;
}

/* ---- the tree walk -------------------------------------------------------- */

tg_stacks_status tg_stacks_check(const tg_stacks_input *in)
{
    if (in->max_depth < 2) return TG_STACKS_BAD_TREE;
    return tg_calltree_valid(in->nodes, in->node_count, in->method_count, in->thread_count) ? TG_STACKS_OK
                                                                                           : TG_STACKS_BAD_TREE;
}

void tg_stacks_walk_free(tg_stacks_walk *w)
{
    free(w->first_child);
    free(w->next_sibling);
    free(w->first_root);
    free(w->path);
    memset(w, 0, sizeof *w);
}

/* Links children in creation order under their parents, and bottom
 * frames under their thread. */
tg_stacks_status tg_stacks_walk_init(tg_stacks_walk *w, const tg_stacks_input *in)
{
    memset(w, 0, sizeof *w);
    tg_stacks_status status = tg_stacks_check(in);
    if (status != TG_STACKS_OK) return status;
    w->in = in;
    size_t n = (size_t)in->node_count + 1, t = (size_t)in->thread_count + 1;
    w->first_child = malloc(n * sizeof *w->first_child);
    w->next_sibling = malloc(n * sizeof *w->next_sibling);
    w->first_root = malloc(t * sizeof *w->first_root);
    w->path_capacity = 256;
    w->path = malloc(w->path_capacity * sizeof *w->path);
    if (!w->first_child || !w->next_sibling || !w->first_root || !w->path) {
        tg_stacks_walk_free(w);
        return TG_STACKS_NO_MEMORY;
    }
    memset(w->first_child, 0xFF, n * sizeof *w->first_child);
    memset(w->first_root, 0xFF, t * sizeof *w->first_root);
    for (uint32_t i = in->node_count; i-- > 0;) {
        uint32_t parent = in->nodes[i].parent;
        uint32_t *head = tg_calltree_is_root(parent) ? &w->first_root[tg_calltree_root_thread(parent)]
                                                    : &w->first_child[parent];
        w->next_sibling[i] = *head;
        *head = i;
    }
    return TG_STACKS_OK;
}

/* Visits one thread's paths depth first. */
tg_stacks_status tg_stacks_walk_thread(tg_stacks_walk *w, uint32_t thread, tg_stacks_visit_fn enter,
                                       tg_stacks_visit_fn leave, void *v)
{
    uint32_t depth = 0;
    uint32_t i = w->first_root[thread];
    while (i != TG_STACKS_NONE) {
        if (depth == w->path_capacity) {
            uint32_t *bigger = realloc(w->path, (size_t)w->path_capacity * 2 * sizeof *bigger);
            if (!bigger) return TG_STACKS_NO_MEMORY;
            w->path = bigger;
            w->path_capacity *= 2;
        }
        w->path[depth++] = i;
        if (enter) enter(v, i, depth, w->path);
        if (w->first_child[i] != TG_STACKS_NONE) {
            i = w->first_child[i];
            continue;
        }
        /* Leave nodes until one has a next sibling. */
        for (;;) {
            uint32_t done = w->path[--depth];
            if (leave) leave(v, done, depth + 1, w->path);
            i = w->next_sibling[done];
            if (i != TG_STACKS_NONE || depth == 0) break;
        }
    }
    return TG_STACKS_OK;
}

/* The number of threads that have paths. */
uint32_t tg_stacks_threads_used(const tg_stacks_walk *w)
{
    uint32_t used = 0;
    for (uint32_t t = 0; t < w->in->thread_count; t++) used += w->first_root[t] != TG_STACKS_NONE;
    return used;
}

/* The methods of a sample's frames, leaf first, into `ids` (room for
 * max_depth): a path deeper than max_depth keeps its bottom max_depth - 1
 * frames and its leaf. Returns the count. */
uint32_t tg_stacks_sample_frames(const tg_stacks_walk *w, const uint32_t *path, uint32_t depth, uint32_t *ids)
{
    uint32_t kept = depth <= w->in->max_depth ? depth : w->in->max_depth, k = 0;
    ids[k++] = w->in->nodes[path[depth - 1]].method;
    for (uint32_t d = kept - 1; d-- > 0;) ids[k++] = w->in->nodes[path[d]].method;
    return k;
}

void tg_stacks_put_json_string(tg_stacks_out *o, const char *s)
{
    tg_stacks_put(o, "\"", 1);
    for (const char *run = s;; s++) {
        unsigned char c = (unsigned char)*s;
        if (c && c != '"' && c != '\\' && c >= 0x20) continue;
        tg_stacks_put(o, run, (size_t)(s - run));
        if (!c) break;
        char escaped[8];
        if (c == '"' || c == '\\') snprintf(escaped, sizeof escaped, "\\%c", c);
        else snprintf(escaped, sizeof escaped, "\\u%04x", c);
        tg_stacks_put_str(o, escaped);
        run = s + 1;
    }
    tg_stacks_put(o, "\"", 1);
}

const char *tg_stacks_status_message(tg_stacks_status status)
{
    switch (status) {
    case TG_STACKS_OK: return "ok";
    case TG_STACKS_NO_MEMORY: return "out of memory";
    case TG_STACKS_WRITE_FAILED: return "the output could not be written";
    case TG_STACKS_BAD_TREE: return "the call tree is malformed (a node before its parent, or a missing method or thread)";
    }
    return "unknown error";
}

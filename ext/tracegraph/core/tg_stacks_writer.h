/*
 * tg_stacks_writer.h - what the stack writers share (tg_stacks.c has it):
 * the chunk buffer in front of the write function, the depth-first walk
 * of the call tree, and a JSON string. Each writer is a file of its own,
 * tg_stacks_<format>.c, and includes this; tg_stacks.h is their public
 * header. Not for code outside the stack writers.
 */
#ifndef TG_STACKS_WRITER_H
#define TG_STACKS_WRITER_H

#include <string.h>

#include "tg_stacks.h"

#define TG_STACKS_NONE UINT32_MAX

/* ---- output: a chunk buffer in front of the write function ------------ */

typedef struct tg_stacks_out {
    char buf[TG_STACKS_CHUNK];
    size_t len;
    tg_stacks_write_fn write;
    void *ctx;
    bool failed;   /* sticky: the write function said stop */
} tg_stacks_out;

/* Hands the buffered bytes to the write function. */
void tg_stacks_out_flush(tg_stacks_out *o);

static inline void tg_stacks_put(tg_stacks_out *o, const void *bytes, size_t n)
{
    const char *s = bytes;
    while (n && !o->failed) {
        if (o->len == TG_STACKS_CHUNK) tg_stacks_out_flush(o);
        size_t k = TG_STACKS_CHUNK - o->len < n ? TG_STACKS_CHUNK - o->len : n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

static inline void tg_stacks_put_str(tg_stacks_out *o, const char *s) { tg_stacks_put(o, s, strlen(s)); }

void tg_stacks_put_u64(tg_stacks_out *o, uint64_t v);

/* A JSON string, quoted and escaped. */
void tg_stacks_put_json_string(tg_stacks_out *o, const char *s);

/* NULL if out of memory. */
tg_stacks_out *tg_stacks_out_new(tg_stacks_write_fn write, void *ctx);

/* Flushes and frees; the status of the whole write. */
tg_stacks_status tg_stacks_out_finish(tg_stacks_out *o, tg_stacks_status status);

/* ---- the tree walk -------------------------------------------------------- */

typedef struct tg_stacks_walk {
    const tg_stacks_input *in;
    uint32_t *first_child, *next_sibling;   /* per node; TG_STACKS_NONE ends a list */
    uint32_t *first_root;                   /* per thread */
    uint32_t *path;                         /* nodes from the bottom */
    uint32_t path_capacity;
} tg_stacks_walk;

/* Links children in creation order under their parents, and bottom
 * frames under their thread (the input checked first). */
tg_stacks_status tg_stacks_walk_init(tg_stacks_walk *w, const tg_stacks_input *in);
void tg_stacks_walk_free(tg_stacks_walk *w);

/* Called with the node entered or left, its depth (1 for a bottom frame)
 * and the path of nodes from the bottom (path[depth - 1] is the node). */
typedef void (*tg_stacks_visit_fn)(void *v, uint32_t node, uint32_t depth, const uint32_t *path);

/* Visits one thread's paths depth first. */
tg_stacks_status tg_stacks_walk_thread(tg_stacks_walk *w, uint32_t thread, tg_stacks_visit_fn enter,
                                       tg_stacks_visit_fn leave, void *v);

/* The number of threads that have paths. */
uint32_t tg_stacks_threads_used(const tg_stacks_walk *w);

/* The methods of a sample's frames, leaf first, into `ids` (room for
 * max_depth): a path deeper than max_depth keeps its bottom max_depth - 1
 * frames and its leaf. Returns the count. */
uint32_t tg_stacks_sample_frames(const tg_stacks_walk *w, const uint32_t *path, uint32_t depth, uint32_t *ids);

#endif

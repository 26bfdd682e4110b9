/* tg_stacks_folded.c - tg_stacks_write_folded (tg_stacks.h): folded stacks, one line per path:
 * "thread;frame;...;leaf self_time", on the walk and
 * output of tg_stacks_writer.h. */
#include "tg_stacks_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct folded {
    tg_stacks_out *o;
    const tg_stacks_walk *w;
    const char *thread;   /* the frame that starts each line, or NULL */
    char *text;           /* the current path's line, up to its weight */
    size_t len, capacity;
    size_t *starts;       /* where each depth's frame starts in text */
    uint64_t carry;       /* self time below max_depth, for the line there */
    bool no_memory;
} folded;

static void text_append_frame(folded *f, const char *name)
{
    size_t n = strlen(name);
    if (f->len + n + 2 > f->capacity) {
        size_t capacity = f->capacity ? f->capacity : 4096;
        while (f->len + n + 2 > capacity) capacity *= 2;
        char *bigger = realloc(f->text, capacity);
        if (!bigger) {
            f->no_memory = true;
            return;
        }
        f->text = bigger;
        f->capacity = capacity;
    }
    if (f->len) f->text[f->len++] = ';';
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        f->text[f->len++] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
    }
}

static void folded_enter(void *v, uint32_t node, uint32_t depth, const uint32_t *path)
{
    (void)path;
    folded *f = v;
    if (depth > f->w->in->max_depth || f->no_memory) return;
    f->starts[depth - 1] = f->len;
    if (depth == 1 && f->thread) text_append_frame(f, f->thread);
    text_append_frame(f, f->w->in->methods[f->w->in->nodes[node].method].name);
}

static void folded_leave(void *v, uint32_t node, uint32_t depth, const uint32_t *path)
{
    (void)path;
    folded *f = v;
    uint32_t max = f->w->in->max_depth;
    uint64_t weight = f->w->in->nodes[node].self_time;
    if (depth > max) {
        f->carry += weight;
        return;
    }
    if (depth == max) {
        weight += f->carry;
        f->carry = 0;
    }
    if (f->no_memory) return;
    if (weight) {
        tg_stacks_put(f->o, f->text, f->len);
        tg_stacks_put(f->o, " ", 1);
        tg_stacks_put_u64(f->o, weight);
        tg_stacks_put(f->o, "\n", 1);
    }
    f->len = f->starts[depth - 1];
}

tg_stacks_status tg_stacks_write_folded(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx)
{
    tg_stacks_walk w;
    tg_stacks_status status = tg_stacks_walk_init(&w, in);
    if (status != TG_STACKS_OK) return status;
    tg_stacks_out *o = tg_stacks_out_new(write, ctx);
    folded f = {.o = o, .w = &w, .starts = malloc(((size_t)in->max_depth + 1) * sizeof *f.starts)};
    if (!o || !f.starts) status = TG_STACKS_NO_MEMORY;
    bool threaded = tg_stacks_threads_used(&w) > 1;
    for (uint32_t t = 0; status == TG_STACKS_OK && t < in->thread_count; t++) {
        char *label = NULL;
        if (threaded) {
            size_t size = strlen(in->threads[t]) + sizeof "thread: ";
            if (!(label = malloc(size))) {
                status = TG_STACKS_NO_MEMORY;
                break;
            }
            snprintf(label, size, "thread: %s", in->threads[t]);
        }
        f.thread = label;
        status = tg_stacks_walk_thread(&w, t, folded_enter, folded_leave, &f);
        if (f.no_memory) status = TG_STACKS_NO_MEMORY;
        free(label);
    }
    free(f.text);
    free(f.starts);
    tg_stacks_walk_free(&w);
    return o ? tg_stacks_out_finish(o, status) : status;
}

/* tg_stacks_speedscope.c - tg_stacks_write_speedscope (tg_stacks.h): speedscope's evented
 * JSON, on the walk and
 * output of tg_stacks_writer.h. */
#include "tg_stacks_writer.h"

#include <inttypes.h>
#include <stdio.h>

/* The evented form: each node opens its frame, its self time passes, its
 * children follow, and it closes, so a node costs two events however deep
 * it is (the sampled form repeats a path's whole stack in every sample).
 * A node at depth max_depth or deeper is its self time alone, under its
 * ancestor at depth max_depth - 1, as pprof's samples keep their leaf. */
typedef struct speedscope {
    tg_stacks_out *o;
    const tg_stacks_walk *w;
    bool first;
    uint64_t at;   /* the thread's self time so far */
} speedscope;

static void speedscope_event(speedscope *s, const char *type, uint32_t method)
{
    tg_stacks_put_str(s->o, s->first ? "{\"type\":\"" : ",{\"type\":\"");
    s->first = false;
    tg_stacks_put_str(s->o, type);
    tg_stacks_put_str(s->o, "\",\"frame\":");
    tg_stacks_put_u64(s->o, method);
    tg_stacks_put_str(s->o, ",\"at\":");
    tg_stacks_put_u64(s->o, s->at);
    tg_stacks_put(s->o, "}", 1);
}

static void speedscope_open(void *v, uint32_t node, uint32_t depth, const uint32_t *path)
{
    (void)path;
    speedscope *s = v;
    const tg_calltree_node *n = &s->w->in->nodes[node];
    if (depth < s->w->in->max_depth) {
        speedscope_event(s, "O", n->method);
        s->at += n->self_time;
    } else if (n->self_time) {
        speedscope_event(s, "O", n->method);
        s->at += n->self_time;
        speedscope_event(s, "C", n->method);
    }
}

static void speedscope_close(void *v, uint32_t node, uint32_t depth, const uint32_t *path)
{
    (void)path;
    speedscope *s = v;
    if (depth < s->w->in->max_depth) speedscope_event(s, "C", s->w->in->nodes[node].method);
}

tg_stacks_status tg_stacks_write_speedscope(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx)
{
    tg_stacks_walk w;
    tg_stacks_status status = tg_stacks_walk_init(&w, in);
    if (status != TG_STACKS_OK) return status;
    tg_stacks_out *o = tg_stacks_out_new(write, ctx);
    speedscope s = {.o = o, .w = &w};
    if (!o) status = TG_STACKS_NO_MEMORY;
    if (status == TG_STACKS_OK) {
        tg_stacks_put_str(o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":");
        tg_stacks_put_json_string(o, in->exporter);
        tg_stacks_put_str(o, ",\"name\":");
        char name[512];
        snprintf(name, sizeof name, "%.400s (%" PRIu64 " calls past the call tree's cap folded)",
                 in->program ? in->program : "tracegraph profile", in->folded_calls);
        tg_stacks_put_json_string(o, in->folded_calls ? name : in->program ? in->program : "tracegraph profile");
        tg_stacks_put_str(o, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
        for (uint32_t i = 0; i < in->method_count; i++) {
            tg_stacks_put_str(o, i ? ",{\"name\":" : "{\"name\":");
            tg_stacks_put_json_string(o, in->methods[i].name);
            if (in->methods[i].file) {
                tg_stacks_put_str(o, ",\"file\":");
                tg_stacks_put_json_string(o, in->methods[i].file);
            }
            if (in->methods[i].line) {
                tg_stacks_put_str(o, ",\"line\":");
                tg_stacks_put_u64(o, in->methods[i].line);
            }
            tg_stacks_put(o, "}", 1);
        }
        tg_stacks_put_str(o, "]},\"profiles\":[");
    }
    bool first_profile = true;
    for (uint32_t t = 0; status == TG_STACKS_OK && t < in->thread_count; t++) {
        if (w.first_root[t] == TG_STACKS_NONE) continue;
        tg_stacks_put_str(o, first_profile ? "{\"type\":\"evented\",\"name\":" : ",{\"type\":\"evented\",\"name\":");
        first_profile = false;
        tg_stacks_put_json_string(o, in->threads[t]);
        tg_stacks_put_str(o, ",\"unit\":\"nanoseconds\",\"startValue\":0,\"events\":[");
        s.first = true;
        s.at = 0;
        status = tg_stacks_walk_thread(&w, t, speedscope_open, speedscope_close, &s);
        tg_stacks_put_str(o, "],\"endValue\":");
        tg_stacks_put_u64(o, s.at);
        tg_stacks_put(o, "}", 1);
    }
    if (status == TG_STACKS_OK) tg_stacks_put_str(o, "]}\n");
    tg_stacks_walk_free(&w);
    return o ? tg_stacks_out_finish(o, status) : status;
}

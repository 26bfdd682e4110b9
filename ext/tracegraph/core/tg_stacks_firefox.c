/* tg_stacks_firefox.c - tg_stacks_write_firefox (tg_stacks.h): the Firefox Profiler's
 * processed JSON, on the walk and
 * output of tg_stacks_writer.h. */
#include "tg_stacks_writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ns as milliseconds, exactly: "1.5", "0.000042", "3". */
static void put_ms(tg_stacks_out *o, uint64_t ns)
{
    tg_stacks_put_u64(o, ns / 1000000);
    uint32_t frac = (uint32_t)(ns % 1000000);
    if (!frac) return;
    char digits[8];
    snprintf(digits, sizeof digits, ".%06" PRIu32, frac);
    size_t n = 7;
    while (digits[n - 1] == '0') n--;
    tg_stacks_put(o, digits, n);
}

/* The columns the walks of a thread write, one walk per column. */
typedef enum ff_column {
    FF_NUMBER,   /* numbers each node and each method on first use; writes nothing */
    FF_STACK_FRAME, FF_STACK_PREFIX, FF_STACK_CATEGORY, FF_STACK_SUBCATEGORY,
    FF_SAMPLE_STACK, FF_SAMPLE_TIME, FF_SAMPLE_WEIGHT,
} ff_column;

typedef struct firefox {
    tg_stacks_out *o;
    tg_stacks_walk *w;
    uint32_t *stack_of;   /* per node: its index in its thread's stack table */
    uint32_t *frame_of;   /* per method: its frame in this thread, TG_STACKS_NONE if unused */
    uint32_t *frames;     /* this thread's methods, by frame (and func) index */
    uint32_t stack_count, frame_count, sample_count;
    ff_column column;
    bool first;
    uint64_t time;        /* self time of the samples written so far */
} firefox;

/* Category 0 is the default one the profiler requires (grey); Ruby
 * methods (with a file) are 1, C methods 2. */
static uint32_t ff_category(const firefox *f, uint32_t method) { return f->w->in->methods[method].file ? 1 : 2; }

static void ff_sep(firefox *f)
{
    if (!f->first) tg_stacks_put(f->o, ",", 1);
    f->first = false;
}

static void ff_visit(void *v, uint32_t node, uint32_t depth, const uint32_t *path)
{
    firefox *f = v;
    const tg_calltree_node *n = &f->w->in->nodes[node];
    switch (f->column) {
    case FF_NUMBER:
        f->stack_of[node] = f->stack_count++;
        if (f->frame_of[n->method] == TG_STACKS_NONE) {
            f->frames[f->frame_count] = n->method;
            f->frame_of[n->method] = f->frame_count++;
        }
        if (n->self_time) f->sample_count++;
        return;
    case FF_STACK_FRAME: ff_sep(f); tg_stacks_put_u64(f->o, f->frame_of[n->method]); return;
    case FF_STACK_PREFIX:
        ff_sep(f);
        if (depth == 1) tg_stacks_put_str(f->o, "null");
        else tg_stacks_put_u64(f->o, f->stack_of[path[depth - 2]]);
        return;
    case FF_STACK_CATEGORY: ff_sep(f); tg_stacks_put_u64(f->o, ff_category(f, n->method)); return;
    case FF_STACK_SUBCATEGORY: ff_sep(f); tg_stacks_put(f->o, "0", 1); return;
    default: break;
    }
    if (!n->self_time) return;
    ff_sep(f);
    if (f->column == FF_SAMPLE_STACK) {
        tg_stacks_put_u64(f->o, f->stack_of[node]);
    } else if (f->column == FF_SAMPLE_TIME) {
        put_ms(f->o, f->time);
        f->time += n->self_time;
    } else {
        put_ms(f->o, n->self_time);
    }
}

static tg_stacks_status ff_column_walk(firefox *f, uint32_t thread, ff_column column, const char *head)
{
    tg_stacks_put_str(f->o, head);
    f->column = column;
    f->first = true;
    f->time = 0;
    tg_stacks_status status = tg_stacks_walk_thread(f->w, thread, ff_visit, NULL, f);
    tg_stacks_put(f->o, "]", 1);
    return status;
}

/* `count` copies of `value`, comma-separated, as a JSON array. */
static void ff_repeat(tg_stacks_out *o, const char *head, const char *value, uint32_t count)
{
    tg_stacks_put_str(o, head);
    for (uint32_t i = 0; i < count; i++) {
        if (i) tg_stacks_put(o, ",", 1);
        tg_stacks_put_str(o, value);
    }
    tg_stacks_put(o, "]", 1);
}

/* One frame column of the frame or func table: each frame's method's
 * `what`: 'c' category, 'f' file's string or null, 'j' isJS, 'l' line or
 * null, 'n' name's string, 'i' its own index. */
static void ff_frames(firefox *f, const char *head, char what)
{
    tg_stacks_put_str(f->o, head);
    for (uint32_t i = 0; i < f->frame_count; i++) {
        const tg_stacks_method *m = &f->w->in->methods[f->frames[i]];
        if (i) tg_stacks_put(f->o, ",", 1);
        switch (what) {
        case 'c': tg_stacks_put_u64(f->o, ff_category(f, f->frames[i])); break;
        case 'f': if (m->file) tg_stacks_put_u64(f->o, 2 * (uint64_t)i + 1); else tg_stacks_put_str(f->o, "null"); break;
        case 'j': tg_stacks_put_str(f->o, m->file ? "true" : "false"); break;
        case 'l': if (m->line) tg_stacks_put_u64(f->o, m->line); else tg_stacks_put_str(f->o, "null"); break;
        case 'n': tg_stacks_put_u64(f->o, 2 * (uint64_t)i); break;
        default: tg_stacks_put_u64(f->o, i); break;
        }
    }
    tg_stacks_put(f->o, "]", 1);
}

static tg_stacks_status ff_thread(firefox *f, uint32_t t)
{
    const tg_stacks_input *in = f->w->in;
    tg_stacks_out *o = f->o;
    f->stack_count = f->frame_count = f->sample_count = 0;
    f->column = FF_NUMBER;
    tg_stacks_status status = tg_stacks_walk_thread(f->w, t, ff_visit, NULL, f);
    if (status != TG_STACKS_OK) return status;
    char number[32];

    tg_stacks_put_str(o, "{\"name\":");
    tg_stacks_put_json_string(o, in->threads[t]);
    tg_stacks_put_str(o, ",\"processType\":\"default\",\"processName\":");
    tg_stacks_put_json_string(o, in->program ? in->program : "ruby");
    tg_stacks_put_str(o, ",\"processStartupTime\":0,\"processShutdownTime\":null,\"registerTime\":0,\"unregisterTime\":null,"
               "\"pausedRanges\":[],\"isMainThread\":");
    tg_stacks_put_str(o, t == 0 ? "true" : "false");
    tg_stacks_put_str(o, ",\"pid\":\"0\",\"tid\":");
    tg_stacks_put_u64(o, t);

    tg_stacks_put_str(o, ",\"samples\":{\"weightType\":\"tracing-ms\"");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_SAMPLE_STACK, ",\"stack\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_SAMPLE_TIME, ",\"time\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_SAMPLE_WEIGHT, ",\"weight\":[");
    snprintf(number, sizeof number, ",\"length\":%" PRIu32 "}", f->sample_count);
    tg_stacks_put_str(o, number);

    tg_stacks_put_str(o, ",\"markers\":{\"data\":[],\"name\":[],\"startTime\":[],\"endTime\":[],\"phase\":[],\"category\":[],"
               "\"length\":0}");

    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_STACK_FRAME, ",\"stackTable\":{\"frame\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_STACK_PREFIX, ",\"prefix\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_STACK_CATEGORY, ",\"category\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_STACK_SUBCATEGORY, ",\"subcategory\":[");
    snprintf(number, sizeof number, ",\"length\":%" PRIu32 "}", f->stack_count);
    tg_stacks_put_str(o, number);

    uint32_t k = f->frame_count;
    ff_repeat(o, ",\"frameTable\":{\"address\":[", "-1", k);
    ff_repeat(o, ",\"inlineDepth\":[", "0", k);
    ff_frames(f, ",\"category\":[", 'c');
    ff_repeat(o, ",\"subcategory\":[", "0", k);
    ff_frames(f, ",\"func\":[", 'i');
    ff_repeat(o, ",\"nativeSymbol\":[", "null", k);
    ff_repeat(o, ",\"innerWindowID\":[", "0", k);
    ff_repeat(o, ",\"implementation\":[", "null", k);
    ff_frames(f, ",\"line\":[", 'l');
    ff_repeat(o, ",\"column\":[", "null", k);
    snprintf(number, sizeof number, ",\"length\":%" PRIu32 "}", k);
    tg_stacks_put_str(o, number);

    ff_frames(f, ",\"funcTable\":{\"name\":[", 'n');
    ff_frames(f, ",\"isJS\":[", 'j');
    ff_repeat(o, ",\"relevantForJS\":[", "false", k);
    ff_repeat(o, ",\"resource\":[", "-1", k);
    ff_frames(f, ",\"fileName\":[", 'f');
    ff_frames(f, ",\"lineNumber\":[", 'l');
    ff_repeat(o, ",\"columnNumber\":[", "null", k);
    snprintf(number, sizeof number, ",\"length\":%" PRIu32 "}", k);
    tg_stacks_put_str(o, number);

    tg_stacks_put_str(o, ",\"resourceTable\":{\"lib\":[],\"name\":[],\"host\":[],\"type\":[],\"length\":0},"
               "\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],\"length\":0},"
               "\"stringArray\":[");
    for (uint32_t i = 0; i < k; i++) {
        const tg_stacks_method *m = &in->methods[f->frames[i]];
        if (i) tg_stacks_put(o, ",", 1);
        tg_stacks_put_json_string(o, m->name);
        tg_stacks_put(o, ",", 1);
        tg_stacks_put_json_string(o, m->file ? m->file : "");
        f->frame_of[f->frames[i]] = TG_STACKS_NONE;   /* unused again, for the next thread */
    }
    tg_stacks_put_str(o, "]}");
    return status;
}

tg_stacks_status tg_stacks_write_firefox(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx)
{
    tg_stacks_walk w;
    tg_stacks_status status = tg_stacks_walk_init(&w, in);
    if (status != TG_STACKS_OK) return status;
    tg_stacks_out *o = tg_stacks_out_new(write, ctx);
    size_t nodes = (size_t)in->node_count + 1, methods = (size_t)in->method_count + 1;
    firefox f = {.o = o, .w = &w, .stack_of = malloc(nodes * sizeof *f.stack_of),
                 .frame_of = malloc(methods * sizeof *f.frame_of), .frames = malloc(methods * sizeof *f.frames)};
    if (!o || !f.stack_of || !f.frame_of || !f.frames) status = TG_STACKS_NO_MEMORY;
    if (status == TG_STACKS_OK) {
        memset(f.frame_of, 0xFF, methods * sizeof *f.frame_of);
        char product[512];
        int n = snprintf(product, sizeof product, "%.400s (tracegraph, %.20s clock", in->program ? in->program : "ruby",
                         in->clock);
        if (in->folded_calls && n > 0 && (size_t)n < sizeof product)
            n += snprintf(product + n, sizeof product - (size_t)n, "; %" PRIu64 " calls past the call tree's cap folded",
                          in->folded_calls);
        if (!in->complete && n > 0 && (size_t)n < sizeof product)
            n += snprintf(product + n, sizeof product - (size_t)n, "; incomplete: the profiler ran out of memory");
        if (n > 0 && (size_t)n < sizeof product) snprintf(product + n, sizeof product - (size_t)n, ")");
        tg_stacks_put_str(o, "{\"meta\":{\"version\":27,\"preprocessedProfileVersion\":47,\"interval\":1,\"startTime\":0,"
                   "\"processType\":0,\"stackwalk\":0,\"debug\":false,\"symbolicated\":true,\"product\":");
        tg_stacks_put_json_string(o, product);
        tg_stacks_put_str(o, ",\"importedFrom\":");
        tg_stacks_put_json_string(o, in->exporter);
        tg_stacks_put_str(o, ",\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
                   "{\"name\":\"Ruby\",\"color\":\"red\",\"subcategories\":[\"Other\"]},"
                   "{\"name\":\"C\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]}],"
                   "\"markerSchema\":[],\"usesOnlyOneStackType\":true,\"sourceCodeIsNotOnSearchfox\":true},"
                   "\"libs\":[],\"threads\":[");
    }
    bool first_thread = true;
    for (uint32_t t = 0; status == TG_STACKS_OK && t < in->thread_count; t++) {
        if (w.first_root[t] == TG_STACKS_NONE) continue;
        if (!first_thread) tg_stacks_put(o, ",", 1);
        first_thread = false;
        status = ff_thread(&f, t);
    }
    if (status == TG_STACKS_OK) tg_stacks_put_str(o, "]}\n");
    free(f.stack_of);
    free(f.frame_of);
    free(f.frames);
    tg_stacks_walk_free(&w);
    return o ? tg_stacks_out_finish(o, status) : status;
}

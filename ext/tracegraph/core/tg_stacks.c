/* tg_stacks.c - see tg_stacks.h. Sections: output chunks, the tree walk,
 * folded stacks, pprof, speedscope, Firefox Profiler. */
#include "tg_stacks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* ---- output: a chunk buffer in front of the write function ------------ */

typedef struct out {
    char buf[TG_STACKS_CHUNK];
    size_t len;
    tg_stacks_write_fn write;
    void *ctx;
    bool failed;   /* sticky: the write function said stop */
} out;

static void out_flush(out *o)
{
    if (o->len && !o->failed && !o->write(o->ctx, o->buf, o->len)) o->failed = true;
    o->len = 0;
}

static void put(out *o, const void *bytes, size_t n)
{
    const char *s = bytes;
    while (n && !o->failed) {
        if (o->len == TG_STACKS_CHUNK) out_flush(o);
        size_t k = TG_STACKS_CHUNK - o->len < n ? TG_STACKS_CHUNK - o->len : n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

static void put_str(out *o, const char *s) { put(o, s, strlen(s)); }

static void put_u64(out *o, uint64_t v)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    put(o, digits, (size_t)n);
}

static out *out_new(tg_stacks_write_fn write, void *ctx)
{
    out *o = malloc(sizeof *o);
    if (!o) return NULL;
    o->len = 0;
    o->write = write;
    o->ctx = ctx;
    o->failed = false;
    return o;
}

/* Flushes and frees; the status of the whole write. */
static tg_stacks_status out_finish(out *o, tg_stacks_status status)
{
    if (status == TG_STACKS_OK) out_flush(o);
    if (status == TG_STACKS_OK && o->failed) status = TG_STACKS_WRITE_FAILED;
    free(o);
    return status;
}

/* ---- the tree walk -------------------------------------------------------- */

typedef struct walk {
    const tg_stacks_input *in;
    uint32_t *first_child, *next_sibling;   /* per node; NONE ends a list */
    uint32_t *first_root;                   /* per thread */
    uint32_t *path;                         /* nodes from the bottom */
    uint32_t path_capacity;
} walk;

tg_stacks_status tg_stacks_check(const tg_stacks_input *in)
{
    if (in->max_depth < 2) return TG_STACKS_BAD_TREE;
    return tg_calltree_valid(in->nodes, in->node_count, in->method_count, in->thread_count) ? TG_STACKS_OK
                                                                                           : TG_STACKS_BAD_TREE;
}

static void walk_free(walk *w)
{
    free(w->first_child);
    free(w->next_sibling);
    free(w->first_root);
    free(w->path);
    memset(w, 0, sizeof *w);
}

/* Links children in creation order under their parents, and bottom
 * frames under their thread. */
static tg_stacks_status walk_init(walk *w, const tg_stacks_input *in)
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
        walk_free(w);
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

/* Called with the node entered or left, its depth (1 for a bottom frame)
 * and the path of nodes from the bottom (path[depth - 1] is the node). */
typedef void (*visit_fn)(void *v, uint32_t node, uint32_t depth, const uint32_t *path);

/* Visits one thread's paths depth first. */
static tg_stacks_status walk_thread(walk *w, uint32_t thread, visit_fn enter, visit_fn leave, void *v)
{
    uint32_t depth = 0;
    uint32_t i = w->first_root[thread];
    while (i != NONE) {
        if (depth == w->path_capacity) {
            uint32_t *bigger = realloc(w->path, (size_t)w->path_capacity * 2 * sizeof *bigger);
            if (!bigger) return TG_STACKS_NO_MEMORY;
            w->path = bigger;
            w->path_capacity *= 2;
        }
        w->path[depth++] = i;
        if (enter) enter(v, i, depth, w->path);
        if (w->first_child[i] != NONE) {
            i = w->first_child[i];
            continue;
        }
        /* Leave nodes until one has a next sibling. */
        for (;;) {
            uint32_t done = w->path[--depth];
            if (leave) leave(v, done, depth + 1, w->path);
            i = w->next_sibling[done];
            if (i != NONE || depth == 0) break;
        }
    }
    return TG_STACKS_OK;
}

/* The number of threads that have paths. */
static uint32_t threads_used(const walk *w)
{
    uint32_t used = 0;
    for (uint32_t t = 0; t < w->in->thread_count; t++) used += w->first_root[t] != NONE;
    return used;
}

/* The methods of a sample's frames, leaf first, into `ids` (room for
 * max_depth): a path deeper than max_depth keeps its bottom max_depth - 1
 * frames and its leaf. Returns the count. */
static uint32_t sample_frames(const walk *w, const uint32_t *path, uint32_t depth, uint32_t *ids)
{
    uint32_t kept = depth <= w->in->max_depth ? depth : w->in->max_depth, k = 0;
    ids[k++] = w->in->nodes[path[depth - 1]].method;
    for (uint32_t d = kept - 1; d-- > 0;) ids[k++] = w->in->nodes[path[d]].method;
    return k;
}

/* ---- folded stacks -------------------------------------------------------- */

typedef struct folded {
    out *o;
    const walk *w;
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
        put(f->o, f->text, f->len);
        put(f->o, " ", 1);
        put_u64(f->o, weight);
        put(f->o, "\n", 1);
    }
    f->len = f->starts[depth - 1];
}

tg_stacks_status tg_stacks_write_folded(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx)
{
    walk w;
    tg_stacks_status status = walk_init(&w, in);
    if (status != TG_STACKS_OK) return status;
    out *o = out_new(write, ctx);
    folded f = {.o = o, .w = &w, .starts = malloc(((size_t)in->max_depth + 1) * sizeof *f.starts)};
    if (!o || !f.starts) status = TG_STACKS_NO_MEMORY;
    bool threaded = threads_used(&w) > 1;
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
        status = walk_thread(&w, t, folded_enter, folded_leave, &f);
        if (f.no_memory) status = TG_STACKS_NO_MEMORY;
        free(label);
    }
    free(f.text);
    free(f.starts);
    walk_free(&w);
    return o ? out_finish(o, status) : status;
}

/* ---- pprof ----------------------------------------------------------------- */

/* A message being built, for its length prefix. */
typedef struct pb {
    uint8_t *bytes;
    size_t len, capacity;
    bool failed;
} pb;

static void pb_byte(pb *m, uint8_t b)
{
    if (m->len == m->capacity) {
        size_t capacity = m->capacity ? m->capacity * 2 : 256;
        uint8_t *bigger = realloc(m->bytes, capacity);
        if (!bigger) {
            m->failed = true;
            return;
        }
        m->bytes = bigger;
        m->capacity = capacity;
    }
    m->bytes[m->len++] = b;
}

static void pb_varint(pb *m, uint64_t v)
{
    while (v >= 0x80) {
        pb_byte(m, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    pb_byte(m, (uint8_t)v);
}

enum { VARINT = 0, LENGTH_DELIMITED = 2 };

static void pb_key(pb *m, uint32_t field, uint32_t wire_type) { pb_varint(m, (uint64_t)field << 3 | wire_type); }

/* An integer field; zero is the default and is left out. */
static void pb_uint(pb *m, uint32_t field, uint64_t v)
{
    if (!v) return;
    pb_key(m, field, VARINT);
    pb_varint(m, v);
}

static void pb_bytes(pb *m, uint32_t field, const void *bytes, size_t n)
{
    pb_key(m, field, LENGTH_DELIMITED);
    pb_varint(m, n);
    for (size_t i = 0; i < n; i++) pb_byte(m, ((const uint8_t *)bytes)[i]);
}

/* Writes `m` as field `field` of the Profile, then empties it. */
static void put_message(out *o, uint32_t field, pb *m)
{
    uint8_t head[16];   /* a key and a length: at most 5 + 10 bytes, so never grown */
    pb h = {.bytes = head, .capacity = sizeof head};
    pb_key(&h, field, LENGTH_DELIMITED);
    pb_varint(&h, m->len);
    put(o, head, h.len);
    put(o, m->bytes, m->len);
    m->len = 0;
}

/* profile.proto's field numbers. */
enum {
    PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
    PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
    VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
    SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3,
    LABEL_KEY = 1, LABEL_STR = 2,
    MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8,
    MAPPING_HAS_LINE_NUMBERS = 9,
    LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_LINE = 4,
    LINE_FUNCTION_ID = 1, LINE_LINE = 2,
    FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_FILENAME = 4, FUNCTION_START_LINE = 5,
};

/* The string table is fixed before anything is written, so no string
 * needs looking up: these first, then each thread's name, then each
 * method's name and file. */
enum {
    STR_EMPTY, STR_CALLS, STR_COUNT, STR_TIME, STR_NANOSECONDS, STR_THREAD,
    STR_COMMENT_CLOCK, STR_COMMENT_FOLDED, STR_COMMENT_INCOMPLETE, STR_PROGRAM, STR_ALLOC_OBJECTS,
    STR_FIRST_THREAD,
};

typedef struct pprof {
    out *o;
    const walk *w;
    pb sample, part;
    uint32_t *ids;        /* a sample's methods, leaf first */
    uint64_t thread_str;  /* the thread's name in the string table */
} pprof;

static uint64_t method_str(const tg_stacks_input *in, uint32_t method)
{
    return STR_FIRST_THREAD + (uint64_t)in->thread_count + 2 * (uint64_t)method;
}

static void pprof_sample(void *v, uint32_t node, uint32_t depth, const uint32_t *path)
{
    pprof *p = v;
    const tg_calltree_node *n = &p->w->in->nodes[node];
    const tg_calltree_allocations *counts = p->w->in->allocations;
    uint64_t self_allocations = counts ? counts[node].self : 0;
    if (!n->calls && !n->self_time && !self_allocations) return;
    uint32_t k = sample_frames(p->w, path, depth, p->ids);
    pb *part = &p->part;
    for (uint32_t i = 0; i < k; i++) pb_varint(part, (uint64_t)p->ids[i] + 1);   /* location = method + 1 */
    pb_bytes(&p->sample, SAMPLE_LOCATION_ID, part->bytes, part->len);
    part->len = 0;
    pb_varint(part, n->calls);
    pb_varint(part, n->self_time);
    if (counts) pb_varint(part, self_allocations);
    pb_bytes(&p->sample, SAMPLE_VALUE, part->bytes, part->len);
    part->len = 0;
    pb_uint(part, LABEL_KEY, STR_THREAD);
    pb_uint(part, LABEL_STR, p->thread_str);
    pb_bytes(&p->sample, SAMPLE_LABEL, part->bytes, part->len);
    part->len = 0;
    put_message(p->o, PROFILE_SAMPLE, &p->sample);
}

static void put_string(out *o, pb *m, const char *s)
{
    pb_bytes(m, PROFILE_STRING_TABLE, s, strlen(s));
    put(o, m->bytes, m->len);
    m->len = 0;
}

/* Whether a name begins with a constant path that has a `::` in it
 * ("Foo::Bar#work", "Foo::Bar::Baz.run"): a run of identifier bytes
 * (ASCII letters, digits, '_', or UTF-8) not starting with a digit, then
 * "::". */
static bool starts_with_namespace(const char *s)
{
    const unsigned char *c = (const unsigned char *)s;
    if (*c >= '0' && *c <= '9') return false;
    const unsigned char *start = c;
    while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' || *c >= 0x80)
        c++;
    return c > start && c[0] == ':' && c[1] == ':';
}

/* A function's name in pprof's string table: the name itself, with two
 * exceptions pprof's display forces.
 *
 * pprof reads a function whose system_name equals its name as perhaps
 * demangled C++, and if it holds '<', '>' or "::" drops what is between
 * '<' and '>' and between '(' and ')' (symbolizer.go, removeMatching):
 * `Integer#<=>` would show as `Integer#`, and `block (2 levels) in
 * Foo::Bar#work` as `block  in Foo::Bar#work`, added to the other levels.
 * It leaves a name alone whose system_name differs: the functions we write
 * have no system_name.
 *
 * pprof's graphs (-dot, -web) shorten C++-looking names with a regexp
 * (graph.go, ShortenFunctionName) that keeps only the last two parts of
 * "A::B::C...": `Foo::Baz::Qux#work` and `Foo::Baz::Qux#run` would both
 * be `Baz::Qux`. A name that begins with a namespace is written fully
 * qualified, `::Foo::Baz::Qux#work`, as Ruby allows, which no shortening
 * regexp matches. */
static void put_function_name(out *o, pb *m, const char *s)
{
    const char *prefix = starts_with_namespace(s) ? "::" : "";
    size_t prefix_len = strlen(prefix), n = strlen(s);
    pb_key(m, PROFILE_STRING_TABLE, LENGTH_DELIMITED);
    pb_varint(m, prefix_len + n);
    for (size_t i = 0; i < prefix_len; i++) pb_byte(m, (uint8_t)prefix[i]);
    for (size_t i = 0; i < n; i++) pb_byte(m, (uint8_t)s[i]);
    put(o, m->bytes, m->len);
    m->len = 0;
}

tg_stacks_status tg_stacks_write_pprof(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx)
{
    walk w;
    tg_stacks_status status = walk_init(&w, in);
    if (status != TG_STACKS_OK) return status;
    out *o = out_new(write, ctx);
    pprof p = {.o = o, .w = &w, .ids = malloc((size_t)in->max_depth * sizeof *p.ids)};
    if (!o || !p.ids) status = TG_STACKS_NO_MEMORY;
    pb *m = &p.sample, *part = &p.part;

    if (status == TG_STACKS_OK) {
        static const uint64_t types[][2] = {
            {STR_CALLS, STR_COUNT}, {STR_TIME, STR_NANOSECONDS}, {STR_ALLOC_OBJECTS, STR_COUNT}};
        for (size_t i = 0; i < (in->allocations ? 3 : 2); i++) {
            pb_uint(m, VALUE_TYPE_TYPE, types[i][0]);
            pb_uint(m, VALUE_TYPE_UNIT, types[i][1]);
            put_message(o, PROFILE_SAMPLE_TYPE, m);
        }
    }
    for (uint32_t t = 0; status == TG_STACKS_OK && t < in->thread_count; t++) {
        p.thread_str = STR_FIRST_THREAD + t;
        status = walk_thread(&w, t, pprof_sample, NULL, &p);
    }
    if (status == TG_STACKS_OK) {
        /* One mapping, for the program, that says its locations are
         * symbolized already: pprof then looks for no binary. */
        pb_uint(m, MAPPING_ID, 1);
        pb_uint(m, MAPPING_FILENAME, STR_PROGRAM);
        pb_uint(m, MAPPING_HAS_FUNCTIONS, 1);
        pb_uint(m, MAPPING_HAS_FILENAMES, 1);
        pb_uint(m, MAPPING_HAS_LINE_NUMBERS, 1);
        put_message(o, PROFILE_MAPPING, m);
        for (uint32_t i = 0; i < in->method_count; i++) {
            uint64_t id = (uint64_t)i + 1;
            pb_uint(part, LINE_FUNCTION_ID, id);
            pb_uint(part, LINE_LINE, in->methods[i].line);
            pb_uint(m, LOCATION_ID, id);
            pb_uint(m, LOCATION_MAPPING_ID, 1);
            pb_bytes(m, LOCATION_LINE, part->bytes, part->len);
            part->len = 0;
            put_message(o, PROFILE_LOCATION, m);
            pb_uint(m, FUNCTION_ID, id);
            pb_uint(m, FUNCTION_NAME, method_str(in, i));
            pb_uint(m, FUNCTION_FILENAME, in->methods[i].file ? method_str(in, i) + 1 : STR_EMPTY);
            pb_uint(m, FUNCTION_START_LINE, in->methods[i].line);
            put_message(o, PROFILE_FUNCTION, m);
        }
        pb_uint(m, PROFILE_COMMENT, STR_COMMENT_CLOCK);
        if (in->folded_calls) pb_uint(m, PROFILE_COMMENT, STR_COMMENT_FOLDED);
        if (!in->complete) pb_uint(m, PROFILE_COMMENT, STR_COMMENT_INCOMPLETE);
        pb_uint(m, PROFILE_DEFAULT_SAMPLE_TYPE, STR_TIME);
        put(o, m->bytes, m->len);
        m->len = 0;

        /* The string table, last: repeated fields keep their order
         * wherever they appear in the message. */
        char clock[128], folded_note[256];
        snprintf(clock, sizeof clock, "tracegraph: %s clock, times in nanoseconds", in->clock);
        snprintf(folded_note, sizeof folded_note,
                 "tracegraph: %" PRIu64 " calls past the call tree's cap were folded into their nearest kept "
                 "ancestor (their time is its self time, their calls are not counted)", in->folded_calls);
        const char *fixed[] = {"", "calls", "count", "time", "nanoseconds", "thread", clock,
                               in->folded_calls ? folded_note : "",
                               in->complete ? "" : "tracegraph: the profile is incomplete (the profiler ran out of memory)",
                               in->program ? in->program : "ruby", in->allocations ? "alloc_objects" : ""};
        for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) put_string(o, m, fixed[i]);
        for (uint32_t t = 0; t < in->thread_count; t++) put_string(o, m, in->threads[t]);
        for (uint32_t i = 0; i < in->method_count; i++) {
            put_function_name(o, m, in->methods[i].name);
            put_string(o, m, in->methods[i].file ? in->methods[i].file : "");
        }
    }
    if (m->failed || part->failed) status = TG_STACKS_NO_MEMORY;
    free(p.sample.bytes);
    free(p.part.bytes);
    free(p.ids);
    walk_free(&w);
    return o ? out_finish(o, status) : status;
}

/* ---- speedscope ------------------------------------------------------------ */

static void put_json_string(out *o, const char *s)
{
    put(o, "\"", 1);
    for (const char *run = s;; s++) {
        unsigned char c = (unsigned char)*s;
        if (c && c != '"' && c != '\\' && c >= 0x20) continue;
        put(o, run, (size_t)(s - run));
        if (!c) break;
        char escaped[8];
        if (c == '"' || c == '\\') snprintf(escaped, sizeof escaped, "\\%c", c);
        else snprintf(escaped, sizeof escaped, "\\u%04x", c);
        put_str(o, escaped);
        run = s + 1;
    }
    put(o, "\"", 1);
}

/* The evented form: each node opens its frame, its self time passes, its
 * children follow, and it closes, so a node costs two events however deep
 * it is (the sampled form repeats a path's whole stack in every sample).
 * A node at depth max_depth or deeper is its self time alone, under its
 * ancestor at depth max_depth - 1, as pprof's samples keep their leaf. */
typedef struct speedscope {
    out *o;
    const walk *w;
    bool first;
    uint64_t at;   /* the thread's self time so far */
} speedscope;

static void speedscope_event(speedscope *s, const char *type, uint32_t method)
{
    put_str(s->o, s->first ? "{\"type\":\"" : ",{\"type\":\"");
    s->first = false;
    put_str(s->o, type);
    put_str(s->o, "\",\"frame\":");
    put_u64(s->o, method);
    put_str(s->o, ",\"at\":");
    put_u64(s->o, s->at);
    put(s->o, "}", 1);
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
    walk w;
    tg_stacks_status status = walk_init(&w, in);
    if (status != TG_STACKS_OK) return status;
    out *o = out_new(write, ctx);
    speedscope s = {.o = o, .w = &w};
    if (!o) status = TG_STACKS_NO_MEMORY;
    if (status == TG_STACKS_OK) {
        put_str(o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":");
        put_json_string(o, in->exporter);
        put_str(o, ",\"name\":");
        char name[512];
        snprintf(name, sizeof name, "%.400s (%" PRIu64 " calls past the call tree's cap folded)",
                 in->program ? in->program : "tracegraph profile", in->folded_calls);
        put_json_string(o, in->folded_calls ? name : in->program ? in->program : "tracegraph profile");
        put_str(o, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
        for (uint32_t i = 0; i < in->method_count; i++) {
            put_str(o, i ? ",{\"name\":" : "{\"name\":");
            put_json_string(o, in->methods[i].name);
            if (in->methods[i].file) {
                put_str(o, ",\"file\":");
                put_json_string(o, in->methods[i].file);
            }
            if (in->methods[i].line) {
                put_str(o, ",\"line\":");
                put_u64(o, in->methods[i].line);
            }
            put(o, "}", 1);
        }
        put_str(o, "]},\"profiles\":[");
    }
    bool first_profile = true;
    for (uint32_t t = 0; status == TG_STACKS_OK && t < in->thread_count; t++) {
        if (w.first_root[t] == NONE) continue;
        put_str(o, first_profile ? "{\"type\":\"evented\",\"name\":" : ",{\"type\":\"evented\",\"name\":");
        first_profile = false;
        put_json_string(o, in->threads[t]);
        put_str(o, ",\"unit\":\"nanoseconds\",\"startValue\":0,\"events\":[");
        s.first = true;
        s.at = 0;
        status = walk_thread(&w, t, speedscope_open, speedscope_close, &s);
        put_str(o, "],\"endValue\":");
        put_u64(o, s.at);
        put(o, "}", 1);
    }
    if (status == TG_STACKS_OK) put_str(o, "]}\n");
    walk_free(&w);
    return o ? out_finish(o, status) : status;
}

/* ---- Firefox Profiler ------------------------------------------------------- */

/* ns as milliseconds, exactly: "1.5", "0.000042", "3". */
static void put_ms(out *o, uint64_t ns)
{
    put_u64(o, ns / 1000000);
    uint32_t frac = (uint32_t)(ns % 1000000);
    if (!frac) return;
    char digits[8];
    snprintf(digits, sizeof digits, ".%06" PRIu32, frac);
    size_t n = 7;
    while (digits[n - 1] == '0') n--;
    put(o, digits, n);
}

/* The columns the walks of a thread write, one walk per column. */
typedef enum ff_column {
    FF_NUMBER,   /* numbers each node and each method on first use; writes nothing */
    FF_STACK_FRAME, FF_STACK_PREFIX, FF_STACK_CATEGORY, FF_STACK_SUBCATEGORY,
    FF_SAMPLE_STACK, FF_SAMPLE_TIME, FF_SAMPLE_WEIGHT,
} ff_column;

typedef struct firefox {
    out *o;
    walk *w;
    uint32_t *stack_of;   /* per node: its index in its thread's stack table */
    uint32_t *frame_of;   /* per method: its frame in this thread, NONE if unused */
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
    if (!f->first) put(f->o, ",", 1);
    f->first = false;
}

static void ff_visit(void *v, uint32_t node, uint32_t depth, const uint32_t *path)
{
    firefox *f = v;
    const tg_calltree_node *n = &f->w->in->nodes[node];
    switch (f->column) {
    case FF_NUMBER:
        f->stack_of[node] = f->stack_count++;
        if (f->frame_of[n->method] == NONE) {
            f->frames[f->frame_count] = n->method;
            f->frame_of[n->method] = f->frame_count++;
        }
        if (n->self_time) f->sample_count++;
        return;
    case FF_STACK_FRAME: ff_sep(f); put_u64(f->o, f->frame_of[n->method]); return;
    case FF_STACK_PREFIX:
        ff_sep(f);
        if (depth == 1) put_str(f->o, "null");
        else put_u64(f->o, f->stack_of[path[depth - 2]]);
        return;
    case FF_STACK_CATEGORY: ff_sep(f); put_u64(f->o, ff_category(f, n->method)); return;
    case FF_STACK_SUBCATEGORY: ff_sep(f); put(f->o, "0", 1); return;
    default: break;
    }
    if (!n->self_time) return;
    ff_sep(f);
    if (f->column == FF_SAMPLE_STACK) {
        put_u64(f->o, f->stack_of[node]);
    } else if (f->column == FF_SAMPLE_TIME) {
        put_ms(f->o, f->time);
        f->time += n->self_time;
    } else {
        put_ms(f->o, n->self_time);
    }
}

static tg_stacks_status ff_column_walk(firefox *f, uint32_t thread, ff_column column, const char *head)
{
    put_str(f->o, head);
    f->column = column;
    f->first = true;
    f->time = 0;
    tg_stacks_status status = walk_thread(f->w, thread, ff_visit, NULL, f);
    put(f->o, "]", 1);
    return status;
}

/* `count` copies of `value`, comma-separated, as a JSON array. */
static void ff_repeat(out *o, const char *head, const char *value, uint32_t count)
{
    put_str(o, head);
    for (uint32_t i = 0; i < count; i++) {
        if (i) put(o, ",", 1);
        put_str(o, value);
    }
    put(o, "]", 1);
}

/* One frame column of the frame or func table: each frame's method's
 * `what`: 'c' category, 'f' file's string or null, 'j' isJS, 'l' line or
 * null, 'n' name's string, 'i' its own index. */
static void ff_frames(firefox *f, const char *head, char what)
{
    put_str(f->o, head);
    for (uint32_t i = 0; i < f->frame_count; i++) {
        const tg_stacks_method *m = &f->w->in->methods[f->frames[i]];
        if (i) put(f->o, ",", 1);
        switch (what) {
        case 'c': put_u64(f->o, ff_category(f, f->frames[i])); break;
        case 'f': if (m->file) put_u64(f->o, 2 * (uint64_t)i + 1); else put_str(f->o, "null"); break;
        case 'j': put_str(f->o, m->file ? "true" : "false"); break;
        case 'l': if (m->line) put_u64(f->o, m->line); else put_str(f->o, "null"); break;
        case 'n': put_u64(f->o, 2 * (uint64_t)i); break;
        default: put_u64(f->o, i); break;
        }
    }
    put(f->o, "]", 1);
}

static tg_stacks_status ff_thread(firefox *f, uint32_t t)
{
    const tg_stacks_input *in = f->w->in;
    out *o = f->o;
    f->stack_count = f->frame_count = f->sample_count = 0;
    f->column = FF_NUMBER;
    tg_stacks_status status = walk_thread(f->w, t, ff_visit, NULL, f);
    if (status != TG_STACKS_OK) return status;
    char number[32];

    put_str(o, "{\"name\":");
    put_json_string(o, in->threads[t]);
    put_str(o, ",\"processType\":\"default\",\"processName\":");
    put_json_string(o, in->program ? in->program : "ruby");
    put_str(o, ",\"processStartupTime\":0,\"processShutdownTime\":null,\"registerTime\":0,\"unregisterTime\":null,"
               "\"pausedRanges\":[],\"isMainThread\":");
    put_str(o, t == 0 ? "true" : "false");
    put_str(o, ",\"pid\":\"0\",\"tid\":");
    put_u64(o, t);

    put_str(o, ",\"samples\":{\"weightType\":\"tracing-ms\"");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_SAMPLE_STACK, ",\"stack\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_SAMPLE_TIME, ",\"time\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_SAMPLE_WEIGHT, ",\"weight\":[");
    snprintf(number, sizeof number, ",\"length\":%" PRIu32 "}", f->sample_count);
    put_str(o, number);

    put_str(o, ",\"markers\":{\"data\":[],\"name\":[],\"startTime\":[],\"endTime\":[],\"phase\":[],\"category\":[],"
               "\"length\":0}");

    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_STACK_FRAME, ",\"stackTable\":{\"frame\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_STACK_PREFIX, ",\"prefix\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_STACK_CATEGORY, ",\"category\":[");
    if (status == TG_STACKS_OK) status = ff_column_walk(f, t, FF_STACK_SUBCATEGORY, ",\"subcategory\":[");
    snprintf(number, sizeof number, ",\"length\":%" PRIu32 "}", f->stack_count);
    put_str(o, number);

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
    put_str(o, number);

    ff_frames(f, ",\"funcTable\":{\"name\":[", 'n');
    ff_frames(f, ",\"isJS\":[", 'j');
    ff_repeat(o, ",\"relevantForJS\":[", "false", k);
    ff_repeat(o, ",\"resource\":[", "-1", k);
    ff_frames(f, ",\"fileName\":[", 'f');
    ff_frames(f, ",\"lineNumber\":[", 'l');
    ff_repeat(o, ",\"columnNumber\":[", "null", k);
    snprintf(number, sizeof number, ",\"length\":%" PRIu32 "}", k);
    put_str(o, number);

    put_str(o, ",\"resourceTable\":{\"lib\":[],\"name\":[],\"host\":[],\"type\":[],\"length\":0},"
               "\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],\"length\":0},"
               "\"stringArray\":[");
    for (uint32_t i = 0; i < k; i++) {
        const tg_stacks_method *m = &in->methods[f->frames[i]];
        if (i) put(o, ",", 1);
        put_json_string(o, m->name);
        put(o, ",", 1);
        put_json_string(o, m->file ? m->file : "");
        f->frame_of[f->frames[i]] = NONE;   /* unused again, for the next thread */
    }
    put_str(o, "]}");
    return status;
}

tg_stacks_status tg_stacks_write_firefox(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx)
{
    walk w;
    tg_stacks_status status = walk_init(&w, in);
    if (status != TG_STACKS_OK) return status;
    out *o = out_new(write, ctx);
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
        put_str(o, "{\"meta\":{\"version\":27,\"preprocessedProfileVersion\":47,\"interval\":1,\"startTime\":0,"
                   "\"processType\":0,\"stackwalk\":0,\"debug\":false,\"symbolicated\":true,\"product\":");
        put_json_string(o, product);
        put_str(o, ",\"importedFrom\":");
        put_json_string(o, in->exporter);
        put_str(o, ",\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
                   "{\"name\":\"Ruby\",\"color\":\"red\",\"subcategories\":[\"Other\"]},"
                   "{\"name\":\"C\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]}],"
                   "\"markerSchema\":[],\"usesOnlyOneStackType\":true,\"sourceCodeIsNotOnSearchfox\":true},"
                   "\"libs\":[],\"threads\":[");
    }
    bool first_thread = true;
    for (uint32_t t = 0; status == TG_STACKS_OK && t < in->thread_count; t++) {
        if (w.first_root[t] == NONE) continue;
        if (!first_thread) put(o, ",", 1);
        first_thread = false;
        status = ff_thread(&f, t);
    }
    if (status == TG_STACKS_OK) put_str(o, "]}\n");
    free(f.stack_of);
    free(f.frame_of);
    free(f.frames);
    walk_free(&w);
    return o ? out_finish(o, status) : status;
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

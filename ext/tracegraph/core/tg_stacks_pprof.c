/* tg_stacks_pprof.c - tg_stacks_write_pprof (tg_stacks.h): pprof's profile.proto, with the
 * small protobuf encoder it needs, on the walk and
 * output of tg_stacks_writer.h. */
#include "tg_stacks_writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static void put_message(tg_stacks_out *o, uint32_t field, pb *m)
{
    uint8_t head[16];   /* a key and a length: at most 5 + 10 bytes, so never grown */
    pb h = {.bytes = head, .capacity = sizeof head};
    pb_key(&h, field, LENGTH_DELIMITED);
    pb_varint(&h, m->len);
    tg_stacks_put(o, head, h.len);
    tg_stacks_put(o, m->bytes, m->len);
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
    tg_stacks_out *o;
    const tg_stacks_walk *w;
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
    uint32_t k = tg_stacks_sample_frames(p->w, path, depth, p->ids);
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

static void put_string(tg_stacks_out *o, pb *m, const char *s)
{
    pb_bytes(m, PROFILE_STRING_TABLE, s, strlen(s));
    tg_stacks_put(o, m->bytes, m->len);
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
static void put_function_name(tg_stacks_out *o, pb *m, const char *s)
{
    const char *prefix = starts_with_namespace(s) ? "::" : "";
    size_t prefix_len = strlen(prefix), n = strlen(s);
    pb_key(m, PROFILE_STRING_TABLE, LENGTH_DELIMITED);
    pb_varint(m, prefix_len + n);
    for (size_t i = 0; i < prefix_len; i++) pb_byte(m, (uint8_t)prefix[i]);
    for (size_t i = 0; i < n; i++) pb_byte(m, (uint8_t)s[i]);
    tg_stacks_put(o, m->bytes, m->len);
    m->len = 0;
}

tg_stacks_status tg_stacks_write_pprof(const tg_stacks_input *in, tg_stacks_write_fn write, void *ctx)
{
    tg_stacks_walk w;
    tg_stacks_status status = tg_stacks_walk_init(&w, in);
    if (status != TG_STACKS_OK) return status;
    tg_stacks_out *o = tg_stacks_out_new(write, ctx);
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
        status = tg_stacks_walk_thread(&w, t, pprof_sample, NULL, &p);
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
        tg_stacks_put(o, m->bytes, m->len);
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
    tg_stacks_walk_free(&w);
    return o ? tg_stacks_out_finish(o, status) : status;
}

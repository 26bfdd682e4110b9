/*
 * test_stacks.c - the stack outputs streamed from a call tree: exact folded
 * lines (each written when its path is left, so children first) and
 * speedscope JSON, pprof's protobuf decoded field by field, the Firefox
 * Profiler's tables,
 * threads kept apart, the depth limit, chunked writes, a failing write and
 * malformed trees.
 */
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

static bool collect(void *ctx, const char *bytes, size_t len)
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

static const tg_stacks_method methods[] = {
    {"Object#main", "app.rb", 1}, {"Object#work", "app.rb", 5}, {"Integer#times", NULL, 0}, {"A#x;y\n", NULL, 0},
};
static const char *const threads[] = {"main", "worker"};

#define ROOT(t) (TG_CALLTREE_ROOT - 1 - (t))   /* tg_calltree_root(t), as a constant */

/* main: main -> work -> times, main -> x;y. worker: work -> times. */
static const tg_calltree_node tree[] = {
    {ROOT(0), 0, 1, 100, 10},   /* 0 main */
    {0, 1, 2, 60, 20},          /* 1 main > work */
    {1, 2, 2, 40, 40},          /* 2 main > work > times */
    {ROOT(1), 1, 1, 50, 5},     /* 3 worker: work */
    {3, 2, 1, 45, 45},          /* 4 worker: work > times */
    {0, 3, 3, 30, 30},          /* 5 main > x;y */
};

static tg_stacks_input input(const tg_calltree_node *nodes, uint32_t count, uint32_t thread_count)
{
    return (tg_stacks_input){
        .nodes = nodes, .node_count = count, .methods = methods, .method_count = 4,
        .threads = threads, .thread_count = thread_count, .max_depth = 1000,
        .clock = "wall", .program = "app.rb", .exporter = "tracegraph test", .complete = true,
    };
}

START_TEST(folded_lines_keep_threads_apart)
{
    tg_stacks_input in = input(tree, 6, 2);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_str_eq(s.data,
                     "thread: main;Object#main;Object#work;Integer#times 40\n"
                     "thread: main;Object#main;Object#work 20\n"
                     "thread: main;Object#main;A#x:y  30\n"
                     "thread: main;Object#main 10\n"
                     "thread: worker;Object#work;Integer#times 45\n"
                     "thread: worker;Object#work 5\n");
    free(s.data);
}
END_TEST

START_TEST(one_thread_has_no_thread_frame)
{
    tg_stacks_input in = input(tree, 3, 2);   /* only main's first path */
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_str_eq(s.data, "Object#main;Object#work;Integer#times 40\nObject#main;Object#work 20\nObject#main 10\n");
    free(s.data);
}
END_TEST

/* A chain of `depth` frames alternating main and work, each with self 1. */
static tg_calltree_node *chain(uint32_t depth)
{
    tg_calltree_node *nodes = calloc(depth, sizeof *nodes);
    for (uint32_t i = 0; i < depth; i++)
        nodes[i] = (tg_calltree_node){i ? i - 1 : ROOT(0), i % 2, 1, depth - i, 1};
    return nodes;
}

START_TEST(deep_paths_stop_at_the_limit_and_keep_their_time)
{
    tg_calltree_node *nodes = chain(10);
    tg_stacks_input in = input(nodes, 10, 1);
    in.max_depth = 3;
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_str_eq(s.data, "Object#main;Object#work;Object#main 8\nObject#main;Object#work 1\nObject#main 1\n");
    free(s.data);

    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_OK);
    /* The bottom two frames open; each deeper node is its self time alone
     * under them, as a sample that keeps its bottom two frames and its leaf. */
    ck_assert_ptr_nonnull(strstr(s.data, "\"events\":["
                                         "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,\"at\":1},"
                                         "{\"type\":\"O\",\"frame\":0,\"at\":2},{\"type\":\"C\",\"frame\":0,\"at\":3},"
                                         "{\"type\":\"O\",\"frame\":1,\"at\":3},{\"type\":\"C\",\"frame\":1,\"at\":4},"
                                         "{\"type\":\"O\",\"frame\":0,\"at\":4},{\"type\":\"C\",\"frame\":0,\"at\":5},"));
    ck_assert_ptr_nonnull(strstr(s.data, "{\"type\":\"O\",\"frame\":1,\"at\":9},{\"type\":\"C\",\"frame\":1,\"at\":10},"
                                         "{\"type\":\"C\",\"frame\":1,\"at\":10},{\"type\":\"C\",\"frame\":0,\"at\":10}],"
                                         "\"endValue\":10}]}\n"));
    free(s.data);
    free(nodes);
}
END_TEST

START_TEST(speedscope_has_shared_frames_and_a_profile_per_thread)
{
    tg_stacks_input in = input(tree, 6, 2);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_OK);
    ck_assert_str_eq(
        s.data,
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"tracegraph test\","
        "\"name\":\"app.rb\",\"activeProfileIndex\":0,\"shared\":{\"frames\":["
        "{\"name\":\"Object#main\",\"file\":\"app.rb\",\"line\":1},{\"name\":\"Object#work\",\"file\":\"app.rb\",\"line\":5},"
        "{\"name\":\"Integer#times\"},{\"name\":\"A#x;y\\u000a\"}]},\"profiles\":["
        /* Each node opens, its self time passes, its children follow, it closes. */
        "{\"type\":\"evented\",\"name\":\"main\",\"unit\":\"nanoseconds\",\"startValue\":0,\"events\":["
        "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,\"at\":10},"
        "{\"type\":\"O\",\"frame\":2,\"at\":30},{\"type\":\"C\",\"frame\":2,\"at\":70},"
        "{\"type\":\"C\",\"frame\":1,\"at\":70},{\"type\":\"O\",\"frame\":3,\"at\":70},"
        "{\"type\":\"C\",\"frame\":3,\"at\":100},{\"type\":\"C\",\"frame\":0,\"at\":100}],\"endValue\":100},"
        "{\"type\":\"evented\",\"name\":\"worker\",\"unit\":\"nanoseconds\",\"startValue\":0,\"events\":["
        "{\"type\":\"O\",\"frame\":1,\"at\":0},{\"type\":\"O\",\"frame\":2,\"at\":5},"
        "{\"type\":\"C\",\"frame\":2,\"at\":50},{\"type\":\"C\",\"frame\":1,\"at\":50}],\"endValue\":50}]}\n");
    free(s.data);

    /* The cap's folding is said in the name. */
    in.folded_calls = 12;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"name\":\"app.rb (12 calls past the call tree's cap folded)\","));
    free(s.data);
}
END_TEST

/* ---- a small protobuf reader for the pprof checks ---- */

typedef struct reader {
    const uint8_t *p, *end;
} reader;

static uint64_t read_varint(reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; r->p < r->end; shift += 7) {
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) return v;
    }
    ck_abort_msg("truncated varint");
    return 0;
}

/* Reads one field: its number, and its value or bytes. */
static uint32_t read_field(reader *r, uint64_t *value, reader *bytes)
{
    uint64_t key = read_varint(r);
    if ((key & 7) == 0) {
        *value = read_varint(r);
    } else {
        ck_assert_uint_eq(key & 7, 2);
        uint64_t n = read_varint(r);
        ck_assert_uint_le(n, (uint64_t)(r->end - r->p));
        *bytes = (reader){r->p, r->p + n};
        r->p += n;
    }
    return (uint32_t)(key >> 3);
}

START_TEST(pprof_decodes_to_our_numbers)
{
    tg_stacks_input in = input(tree, 6, 2);
    in.folded_calls = 7;
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_pprof(&in, collect, &s), TG_STACKS_OK);

    const char *strings[64];
    size_t string_count = 0;
    uint64_t samples[8][6];   /* leaf location, depth, calls, self, label key, label string */
    size_t sample_count = 0, functions = 0, locations = 0, sample_types = 0, comments = 0, mappings = 0;
    uint64_t default_type = 0, function_name[8] = {0};
    char *copy[64];
    reader r = {(const uint8_t *)s.data, (const uint8_t *)s.data + s.len}, b;
    while (r.p < r.end) {
        uint64_t v = 0;
        switch (read_field(&r, &v, &b)) {
        case 1: sample_types++; break;
        case 2: {
            uint64_t *out = samples[sample_count++];
            reader f;
            while (b.p < b.end) {
                uint32_t field = read_field(&b, &v, &f);
                if (field == 1) {
                    out[0] = read_varint(&f);
                    out[1] = 1;
                    while (f.p < f.end) read_varint(&f), out[1]++;
                } else if (field == 2) {
                    out[2] = read_varint(&f);
                    out[3] = read_varint(&f);
                } else if (field == 3) {
                    reader g;
                    while (f.p < f.end) {
                        uint32_t lf = read_field(&f, &v, &g);
                        out[lf == 1 ? 4 : 5] = v;
                    }
                }
            }
            break;
        }
        case 3: mappings++; break;
        case 4: locations++; break;
        case 5: {
            uint64_t id = 0, name = 0;
            reader f;
            while (b.p < b.end) {
                uint32_t field = read_field(&b, &v, &f);
                if (field == 1) id = v;
                if (field == 2) name = v;
            }
            ck_assert_uint_le(id, 4);
            function_name[id] = name;
            functions++;
            break;
        }
        case 6:
            copy[string_count] = strndup((const char *)b.p, (size_t)(b.end - b.p));
            strings[string_count] = copy[string_count];
            string_count++;
            break;
        case 13: comments++; break;
        case 14: default_type = v; break;
        default: ck_abort_msg("unexpected field");
        }
    }
    ck_assert_uint_eq(sample_types, 2);
    ck_assert_uint_eq(mappings, 1);
    ck_assert_uint_eq(locations, 4);
    ck_assert_uint_eq(functions, 4);
    ck_assert_uint_eq(comments, 2);   /* the clock, and the folded calls */
    ck_assert_str_eq(strings[0], "");
    ck_assert_str_eq(strings[default_type], "time");
    ck_assert_str_eq(strings[function_name[3]], "Integer#times");
    ck_assert_uint_eq(sample_count, 6);
    /* main > work > times: leaf first, 3 deep, its own calls and self time. */
    ck_assert_uint_eq(samples[2][0], 3);
    ck_assert_uint_eq(samples[2][1], 3);
    ck_assert_uint_eq(samples[2][2], 2);
    ck_assert_uint_eq(samples[2][3], 40);
    ck_assert_str_eq(strings[samples[2][4]], "thread");
    ck_assert_str_eq(strings[samples[2][5]], "main");
    ck_assert_str_eq(strings[samples[5][5]], "worker");
    ck_assert_uint_eq(samples[5][3], 45);
    bool folded_said = false;
    for (size_t i = 0; i < string_count; i++) {
        if (strstr(strings[i], "7 calls past the call tree's cap")) folded_said = true;
        free(copy[i]);
    }
    ck_assert(folded_said);
    free(s.data);
}
END_TEST

/* Names as pprof must show them: whole, with no system_name (which would
 * let pprof strip <...> and (...)), and fully qualified when they begin
 * with a namespace (which its graphs would cut to the last two parts). */
START_TEST(pprof_names_are_whole_and_namespaces_fully_qualified)
{
    static const tg_stacks_method names[] = {
        {"Integer#<=>", NULL, 0},
        {"Foo::Bar::Baz#work", "app.rb", 3},
        {"block (2 levels) in Foo::Bar#<<", "app.rb", 4},
        {"block in <top (required)>", "app.rb", 5},
        {"Caf\xc3\xa9::Menu.open", "app.rb", 6},
        {"#<Class:app.rb:7>::X#y", "app.rb", 7},
        {"::", NULL, 0},
        {"Foo#::", NULL, 0},
    };
    static const char *const expected[] = {
        "Integer#<=>", "::Foo::Bar::Baz#work", "block (2 levels) in Foo::Bar#<<", "block in <top (required)>",
        "::Caf\xc3\xa9::Menu.open", "#<Class:app.rb:7>::X#y", "::", "Foo#::",
    };
    tg_calltree_node nodes[8];
    for (uint32_t i = 0; i < 8; i++) nodes[i] = (tg_calltree_node){ROOT(0), i, 1, 1, 1};
    tg_stacks_input in = input(nodes, 8, 1);
    in.methods = names;
    in.method_count = 8;
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_pprof(&in, collect, &s), TG_STACKS_OK);

    char *strings[64];
    size_t string_count = 0, function_count = 0;
    uint64_t function_name[9] = {0};
    reader r = {(const uint8_t *)s.data, (const uint8_t *)s.data + s.len}, b, f;
    while (r.p < r.end) {
        uint64_t v = 0;
        switch (read_field(&r, &v, &b)) {
        case 5: {
            uint64_t id = 0, name = 0;
            while (b.p < b.end) {
                uint32_t field = read_field(&b, &v, &f);
                ck_assert_uint_ne(field, 3);   /* no system_name */
                if (field == 1) id = v;
                if (field == 2) name = v;
            }
            ck_assert_uint_ge(id, 1);
            ck_assert_uint_le(id, 8);
            function_name[id] = name;
            function_count++;
            break;
        }
        case 6:
            ck_assert_uint_lt(string_count, 64);
            strings[string_count++] = strndup((const char *)b.p, (size_t)(b.end - b.p));
            break;
        default: break;
        }
    }
    ck_assert_uint_eq(function_count, 8);
    for (uint32_t i = 0; i < 8; i++) ck_assert_str_eq(strings[function_name[i + 1]], expected[i]);
    for (size_t i = 0; i < string_count; i++) free(strings[i]);
    free(s.data);
}
END_TEST

START_TEST(pprof_has_alloc_objects_when_the_tree_counts_allocations)
{
    /* The tree above and one more node, main > times, with objects but
     * neither calls nor time: still a sample. */
    tg_calltree_node nodes[7];
    memcpy(nodes, tree, sizeof tree);
    nodes[6] = (tg_calltree_node){0, 2, 0, 0, 0};
    const tg_calltree_allocations counts[7] = {{33, 1}, {15, 3}, {12, 12}, {9, 4}, {5, 5}, {10, 10}, {7, 7}};
    tg_stacks_input in = input(nodes, 7, 2);
    in.allocations = counts;
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_pprof(&in, collect, &s), TG_STACKS_OK);

    char *strings[64];
    size_t string_count = 0, sample_count = 0, type_count = 0;
    uint64_t types[4][2], values[8][4], value_count[8] = {0}, leaf[8], default_type = 0;
    reader r = {(const uint8_t *)s.data, (const uint8_t *)s.data + s.len}, b, f;
    while (r.p < r.end) {
        uint64_t v = 0;
        switch (read_field(&r, &v, &b)) {
        case 1:
            ck_assert_uint_lt(type_count, 4);
            while (b.p < b.end) {
                uint32_t field = read_field(&b, &v, &f);
                types[type_count][field - 1] = v;
            }
            type_count++;
            break;
        case 2:
            while (b.p < b.end) {
                uint32_t field = read_field(&b, &v, &f);
                if (field == 1) leaf[sample_count] = read_varint(&f);
                if (field == 2)
                    while (f.p < f.end) values[sample_count][value_count[sample_count]++] = read_varint(&f);
            }
            sample_count++;
            break;
        case 6: strings[string_count++] = strndup((const char *)b.p, (size_t)(b.end - b.p)); break;
        case 14: default_type = v; break;
        default: break;
        }
    }
    ck_assert_uint_eq(type_count, 3);
    ck_assert_str_eq(strings[types[0][0]], "calls");
    ck_assert_str_eq(strings[types[1][0]], "time");
    ck_assert_str_eq(strings[types[1][1]], "nanoseconds");
    ck_assert_str_eq(strings[types[2][0]], "alloc_objects");
    ck_assert_str_eq(strings[types[2][1]], "count");
    ck_assert_str_eq(strings[default_type], "time");   /* still */
    /* Depth first: main, main > work, main > work > times, main > x;y,
     * main > times; then worker: work, work > times. */
    ck_assert_uint_eq(sample_count, 7);
    static const size_t order[] = {0, 1, 2, 5, 6, 3, 4};
    uint64_t sum = 0;
    for (size_t i = 0; i < 7; i++) {
        const tg_calltree_node *n = &nodes[order[i]];
        ck_assert_uint_eq(value_count[i], 3);
        ck_assert_uint_eq(leaf[i], n->method + 1);
        ck_assert_uint_eq(values[i][0], n->calls);
        ck_assert_uint_eq(values[i][1], n->self_time);
        ck_assert_uint_eq(values[i][2], counts[order[i]].self);   /* the path's own objects */
        sum += values[i][2];
    }
    ck_assert_uint_eq(sum, 42);
    for (size_t i = 0; i < string_count; i++) free(strings[i]);
    free(s.data);

    /* Without counts: two sample types and two values, as before. */
    in.allocations = NULL;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_pprof(&in, collect, &s), TG_STACKS_OK);
    r = (reader){(const uint8_t *)s.data, (const uint8_t *)s.data + s.len};
    type_count = sample_count = 0;
    while (r.p < r.end) {
        uint64_t v = 0;
        uint32_t field = read_field(&r, &v, &b);
        if (field == 1) type_count++;
        if (field != 2) continue;
        size_t n = 0;
        while (b.p < b.end)
            if (read_field(&b, &v, &f) == 2)
                while (f.p < f.end) read_varint(&f), n++;
        ck_assert_uint_eq(n, 2);
        sample_count++;
    }
    ck_assert_uint_eq(type_count, 2);
    ck_assert_uint_eq(sample_count, 6);   /* main > times has nothing to show */
    free(s.data);
}
END_TEST

START_TEST(firefox_has_a_thread_per_thread_with_tracing_ms_weights)
{
    tg_stacks_input in = input(tree, 6, 2);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    const char *expected[] = {
        "{\"meta\":{\"version\":27,\"preprocessedProfileVersion\":47,",
        "\"product\":\"app.rb (tracegraph, wall clock)\",\"importedFrom\":\"tracegraph test\",",
        "\"markerSchema\":[]",
        /* main: a stack per node in depth-first order, its caller's stack as prefix. */
        "{\"name\":\"main\",",
        "\"isMainThread\":true,\"pid\":\"0\",\"tid\":0,",
        "\"samples\":{\"weightType\":\"tracing-ms\",\"stack\":[0,1,2,3],\"time\":[0,0.00001,0.00003,0.00007],"
        "\"weight\":[0.00001,0.00002,0.00004,0.00003],\"length\":4}",
        "\"stackTable\":{\"frame\":[0,1,2,3],\"prefix\":[null,0,1,0],\"category\":[1,1,2,2],\"subcategory\":[0,0,0,0],"
        "\"length\":4}",
        "\"func\":[0,1,2,3],",
        "\"line\":[1,5,null,null],",
        "\"funcTable\":{\"name\":[0,2,4,6],\"isJS\":[true,true,false,false],",
        "\"fileName\":[1,3,null,null],\"lineNumber\":[1,5,null,null],",
        "\"stringArray\":[\"Object#main\",\"app.rb\",\"Object#work\",\"app.rb\",\"Integer#times\",\"\",\"A#x;y\\u000a\",\"\"]}",
        /* worker: its own tables, with only the methods it ran. */
        "{\"name\":\"worker\",",
        "\"isMainThread\":false,\"pid\":\"0\",\"tid\":1,",
        "\"samples\":{\"weightType\":\"tracing-ms\",\"stack\":[0,1],\"time\":[0,0.000005],\"weight\":[0.000005,0.000045],"
        "\"length\":2}",
        "\"stackTable\":{\"frame\":[0,1],\"prefix\":[null,0],",
        "\"stringArray\":[\"Object#work\",\"app.rb\",\"Integer#times\",\"\"]}]}\n",
    };
    const char *at = s.data;
    for (size_t i = 0; i < sizeof expected / sizeof *expected; i++) {
        const char *found = strstr(at, expected[i]);
        ck_assert_msg(found, "missing, in order: %s", expected[i]);
        at = found + strlen(expected[i]);
    }
    ck_assert_str_eq(at, "");
    free(s.data);

    /* The cap's folding and an incomplete profile are said in the product. */
    in.folded_calls = 12;
    in.complete = false;
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"product\":\"app.rb (tracegraph, wall clock; 12 calls past the call tree's "
                                         "cap folded; incomplete: the profiler ran out of memory)\","));
    free(s.data);
}
END_TEST

START_TEST(firefox_weights_are_exact_milliseconds_and_paths_have_no_depth_limit)
{
    tg_calltree_node *nodes = chain(3000);
    nodes[2999].self_time = 1234567891;   /* 1234.567891 ms */
    nodes[0].self_time = 2000000;         /* 2 ms */
    tg_stacks_input in = input(nodes, 3000, 1);
    in.max_depth = 3;
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"weight\":[2,0.000001,"));
    ck_assert_ptr_nonnull(strstr(s.data, ",1234.567891],\"length\":3000}"));
    ck_assert_ptr_nonnull(strstr(s.data, ",2997,2998],\"category\":["));   /* the last prefixes */
    ck_assert_ptr_nonnull(strstr(s.data, "\"func\":[0,1],"));             /* two methods, two funcs */
    free(s.data);
    free(nodes);
}
END_TEST

START_TEST(big_outputs_come_in_bounded_chunks)
{
    uint32_t n = 20000;
    tg_calltree_node *nodes = calloc(n, sizeof *nodes);
    for (uint32_t i = 0; i < n; i++) nodes[i] = (tg_calltree_node){i ? 0 : ROOT(0), i ? 1 : 0, 1, 5, 5};
    tg_stacks_input in = input(nodes, n, 1);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_uint_gt(s.len, 4 * TG_STACKS_CHUNK);
    ck_assert_uint_le(s.largest, TG_STACKS_CHUNK);
    free(s.data);

    sink failing = {.fail_after = 2};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &failing), TG_STACKS_WRITE_FAILED);
    sink failing_pprof = {.fail_after = 1};
    ck_assert_int_eq(tg_stacks_write_pprof(&in, collect, &failing_pprof), TG_STACKS_WRITE_FAILED);
    sink failing_firefox = {.fail_after = 1};
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &failing_firefox), TG_STACKS_WRITE_FAILED);
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    ck_assert_uint_gt(s.len, 4 * TG_STACKS_CHUNK);
    ck_assert_uint_le(s.largest, TG_STACKS_CHUNK);
    free(s.data);
    free(failing.data);
    free(failing_pprof.data);
    free(failing_firefox.data);
    free(nodes);
}
END_TEST

START_TEST(malformed_trees_are_refused)
{
    tg_calltree_node bad_parent[] = {{ROOT(0), 0, 1, 1, 1}, {5, 1, 1, 1, 1}};
    tg_calltree_node bad_method[] = {{ROOT(0), 9, 1, 1, 1}};
    tg_calltree_node bad_thread[] = {{ROOT(7), 0, 1, 1, 1}};
    tg_calltree_node self_parent[] = {{0, 0, 1, 1, 1}};
    const tg_calltree_node *trees[] = {bad_parent, bad_method, bad_thread, self_parent};
    uint32_t counts[] = {2, 1, 1, 1};
    for (size_t i = 0; i < 4; i++) {
        tg_stacks_input in = input(trees[i], counts[i], 2);
        sink s = {0};
        ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_BAD_TREE);
        ck_assert_int_eq(tg_stacks_write_pprof(&in, collect, &s), TG_STACKS_BAD_TREE);
        ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_BAD_TREE);
        ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_BAD_TREE);
        ck_assert_uint_eq(s.len, 0);
    }
    ck_assert_str_eq(tg_stacks_status_message(TG_STACKS_WRITE_FAILED), "the output could not be written");
}
END_TEST

START_TEST(an_empty_tree_writes_empty_outputs)
{
    tg_stacks_input in = input(NULL, 0, 1);
    sink s = {0};
    ck_assert_int_eq(tg_stacks_write_folded(&in, collect, &s), TG_STACKS_OK);
    ck_assert_uint_eq(s.len, 0);
    ck_assert_int_eq(tg_stacks_write_speedscope(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"profiles\":[]}"));
    free(s.data);
    memset(&s, 0, sizeof s);
    ck_assert_int_eq(tg_stacks_write_firefox(&in, collect, &s), TG_STACKS_OK);
    ck_assert_ptr_nonnull(strstr(s.data, "\"libs\":[],\"threads\":[]}\n"));
    free(s.data);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("stacks");
    TCase *tc = tcase_create("outputs");
    tcase_add_test(tc, folded_lines_keep_threads_apart);
    tcase_add_test(tc, one_thread_has_no_thread_frame);
    tcase_add_test(tc, deep_paths_stop_at_the_limit_and_keep_their_time);
    tcase_add_test(tc, speedscope_has_shared_frames_and_a_profile_per_thread);
    tcase_add_test(tc, pprof_decodes_to_our_numbers);
    tcase_add_test(tc, pprof_names_are_whole_and_namespaces_fully_qualified);
    tcase_add_test(tc, pprof_has_alloc_objects_when_the_tree_counts_allocations);
    tcase_add_test(tc, firefox_has_a_thread_per_thread_with_tracing_ms_weights);
    tcase_add_test(tc, firefox_weights_are_exact_milliseconds_and_paths_have_no_depth_limit);
    tcase_add_test(tc, big_outputs_come_in_bounded_chunks);
    tcase_add_test(tc, malformed_trees_are_refused);
    tcase_add_test(tc, an_empty_tree_writes_empty_outputs);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

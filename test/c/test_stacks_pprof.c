/*
 * test_stacks_pprof.c - pprof's profile.proto, decoded field by field by a small protobuf
 * reader.
 */
#include "stacks_checks.h"

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

int main(void)
{
    Suite *suite = suite_create("stacks_pprof");
    TCase *tc = tcase_create("outputs");
    tcase_add_test(tc, pprof_decodes_to_our_numbers);
    tcase_add_test(tc, pprof_names_are_whole_and_namespaces_fully_qualified);
    tcase_add_test(tc, pprof_has_alloc_objects_when_the_tree_counts_allocations);
    suite_add_tcase(suite, tc);
    SRunner *sr = srunner_create(suite);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/*
 * fuzz_dot.c - libFuzzer target for tg_dot_render.
 *
 * Builds a small model from the fuzz bytes (hostile names, extreme
 * numbers, edges between any methods, self loops, options), renders it,
 * and checks the text is one well-formed digraph: valid UTF-8 is checked
 * by fuzz_escape; here, balanced braces outside quoted strings and no
 * unterminated quote. With FUZZ_DOT_COMMAND set (e.g. "dot -Tcanon"),
 * every 256th input is also piped through the real dot, which must
 * accept it.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_dot.h"

typedef struct reader {
    const uint8_t *data;
    size_t size, pos;
} reader;

static uint8_t byte(reader *r) { return r->pos < r->size ? r->data[r->pos++] : 0; }

static uint64_t number(reader *r)
{
    /* Mostly small, sometimes huge: the values that break arithmetic. */
    switch (byte(r) % 4) {
    case 0: return byte(r);
    case 1: return UINT64_MAX - byte(r);
    case 2: return (uint64_t)1 << (byte(r) % 64);
    default: {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++) v = v << 8 | byte(r);
        return v;
    }
    }
}

/* A NUL-terminated string of up to 64 fuzz bytes (NULs end it early). */
static char *string(reader *r)
{
    size_t len = byte(r) % 65;
    char *s = calloc(len + 1, 1);
    for (size_t i = 0; i < len; i++) s[i] = (char)byte(r);
    return s;
}

/* Quotes closed and braces balanced, skipping quoted text. */
static void assert_well_formed(const char *dot, size_t len)
{
    int depth = 0;
    int in_quote = 0;
    for (size_t i = 0; i < len; i++) {
        char c = dot[i];
        if (in_quote) {
            if (c == '\\') i++;
            else if (c == '"') in_quote = 0;
            else assert(c != '\n');
        } else if (c == '"') in_quote = 1;
        else if (c == '{') depth++;
        else if (c == '}') assert(--depth >= 0);
    }
    assert(!in_quote && depth == 0);
    assert(strlen(dot) == len);
}

static void check_with_dot(const char *dot, size_t len)
{
    const char *command = getenv("FUZZ_DOT_COMMAND");
    static unsigned runs;
    if (!command || runs++ % 256) return;
    char line[512];
    snprintf(line, sizeof line, "%s > /dev/null 2>&1", command);
    FILE *p = popen(line, "w");
    assert(p);
    fwrite(dot, 1, len, p);
    assert(pclose(p) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size, 0};
    size_t method_count = 1 + byte(&r) % 12, edge_count = byte(&r) % 24;
    tg_model_method *methods = calloc(method_count, sizeof *methods);
    tg_model_edge *edges = calloc(edge_count + 1, sizeof *edges);
    uint8_t *focus = calloc(method_count, 1), *ignore = calloc(method_count, 1);

    for (size_t i = 0; i < method_count; i++) {
        uint8_t flags = byte(&r);
        methods[i] = (tg_model_method){
            .name = string(&r),
            .file = (flags & 1) ? string(&r) : NULL,
            .line = (flags & 2) ? (int)number(&r) : 0,
            .is_c = flags & 4,
            .calls = number(&r),
            .total_time = number(&r),
            .self_time = number(&r),
        };
        focus[i] = (flags >> 3) & 1;
        ignore[i] = (flags >> 4) & 1;
    }
    for (size_t i = 0; i < edge_count; i++) {
        edges[i] = (tg_model_edge){
            .caller = byte(&r) % method_count,
            .callee = byte(&r) % method_count,
            .calls = number(&r),
            .total_time = number(&r),
            .self_time = number(&r),
        };
    }
    uint8_t mode = byte(&r);
    char *program = string(&r);
    tg_model_gc gc = { 0, 0, 0, 0, 0 };
    if (mode & 64) {
        gc.runs = number(&r);
        gc.entries = number(&r);
        gc.time = number(&r);
        gc.mark_time = number(&r);
        gc.sweep_time = number(&r);
    }
    tg_model model = {
        .program = (mode & 1) ? program : NULL,
        .clock = "wall",
        .total_time = number(&r),
        .methods = methods,
        .method_count = method_count,
        .edges = edges,
        .edge_count = edge_count,
        .gc = (mode & 64) ? &gc : NULL,
    };
    tg_dot_options opts;
    tg_dot_options_default(&opts);
    if (mode & 2) opts.node_fraction = opts.edge_fraction = 0;
    opts.max_nodes = (mode & 4) ? byte(&r) % 5 : opts.max_nodes;
    opts.focus = (mode & 8) ? focus : NULL;
    opts.ignore = (mode & 16) ? ignore : NULL;
    opts.cwd = (mode & 32) ? "/" : NULL;

    size_t len = 0;
    char *dot = tg_dot_render(&model, &opts, &len);
    assert(dot);
    assert_well_formed(dot, len);
    check_with_dot(dot, len);

    free(dot);
    free(program);
    for (size_t i = 0; i < method_count; i++) {
        free((char *)methods[i].name);
        free((char *)methods[i].file);
    }
    free(methods);
    free(edges);
    free(focus);
    free(ignore);
    return 0;
}

/*
 * fuzz_escape.c - libFuzzer target for tg_escape_dot.
 *
 * Whatever bytes a method name holds, the escaped text must be valid
 * UTF-8 (dot rejects or mangles anything else) and must not be able to
 * end the quoted string or the line: no bare '"', no raw newline or CR,
 * and no NUL.
 */
#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "tg_escape.h"

/* Strict UTF-8: no overlongs, no surrogates, nothing above U+10FFFF. */
static bool valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t len;
        uint32_t cp, min;
        if (c < 0x80) { i++; continue; }
        else if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
        else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
        else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
        else return false;
        if (i + len > n) return false;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

/* Every '"' must be escaped: preceded by an odd run of backslashes. */
static bool quotes_escaped(const char *s, size_t n)
{
    size_t backslashes = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' && backslashes % 2 == 0) return false;
        if (s[i] == '\n' || s[i] == '\r' || s[i] == '\0') return false;
        backslashes = s[i] == '\\' ? backslashes + 1 : 0;
    }
    return backslashes % 2 == 0;   /* a trailing lone '\' would eat the closing quote */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first byte picks the limit, so the cutting code is fuzzed too. */
    size_t limit = size ? (size_t)data[0] * 17 : 0;
    tg_buf out = TG_BUF_INIT;
    tg_escape_dot(&out, (const char *)data, size, limit);
    assert(!out.failed);
    if (out.len) {
        assert(valid_utf8((const unsigned char *)out.data, out.len));
        assert(quotes_escaped(out.data, out.len));
    }
    tg_buf_free(&out);
    return 0;
}

/* tg_escape.c - see tg_escape.h. */
#include "tg_escape.h"

#include <stdbool.h>
#include <stdint.h>

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */
static const char ELLIPSIS[] = "\xE2\x80\xA6";    /* U+2026 */

/*
 * Length of the well-formed UTF-8 sequence starting at s[i], or 0 if it
 * is ill-formed; *bad is then the length of the maximal ill-formed
 * subsequence (>= 1) that one U+FFFD replaces. Ranges follow Table 3-7
 * of the Unicode standard.
 */
static size_t utf8_sequence(const unsigned char *s, size_t i, size_t len, size_t *bad)
{
    unsigned char c = s[i];
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the 2nd byte */
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 3;
        if (c == 0xE0) lo = 0xA0;       /* no overlongs */
        if (c == 0xED) hi = 0x9F;       /* no surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 4;
        if (c == 0xF0) lo = 0x90;       /* no overlongs */
        if (c == 0xF4) hi = 0x8F;       /* nothing above U+10FFFF */
    } else {
        *bad = 1;                       /* stray continuation, C0, C1, F5..FF */
        return 0;
    }
    size_t k = 1;
    for (; k < need && i + k < len; k++) {
        unsigned char cc = s[i + k];
        unsigned char min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xBF;
        if (cc < min || cc > max) break;
    }
    if (k == need) return need;
    *bad = k;
    return 0;
}

/* Appends one well-formed character (n bytes at p), escaped if needed. */
static void put_char(tg_buf *out, const unsigned char *p, size_t n)
{
    if (n == 1) {
        unsigned char c = p[0];
        switch (c) {
        case '\\': tg_buf_append(out, "\\\\", 2); return;
        case '"':  tg_buf_append(out, "\\\"", 2); return;
        case '\n': tg_buf_append(out, "\\\\n", 3); return;
        case '\r': tg_buf_append(out, "\\\\r", 3); return;
        case '\t': tg_buf_append(out, "\\\\t", 3); return;
        default: break;
        }
        if (c < 0x20 || c == 0x7F) {
            tg_buf_printf(out, "\\\\x%02X", c);
            return;
        }
    } else if (n == 2 && p[0] == 0xC2 && p[1] < 0xA0) {
        /* C1 controls: valid UTF-8, but invisible or harmful in a label. */
        tg_buf_printf(out, "\\\\u%04X", (unsigned)p[1]);
        return;
    }
    tg_buf_append(out, p, n);
}

void tg_escape_dot(tg_buf *out, const char *s, size_t len, size_t limit)
{
    const unsigned char *u = (const unsigned char *)s;
    if (limit == 0 || limit > TG_ESCAPE_MAX_BYTES) limit = TG_ESCAPE_MAX_BYTES;
    /* Too long: show what fits beside the ellipsis (3 bytes). */
    bool truncate = len > limit;
    size_t stop = truncate ? (limit > 3 ? limit - 3 : 0) : len;
    size_t i = 0;
    while (i < stop) {
        size_t bad = 0;
        size_t n = utf8_sequence(u, i, len, &bad);
        if (n) {
            if (i + n > stop) break;    /* never split a character */
            put_char(out, u + i, n);
            i += n;
        } else {
            if (i + bad > stop) bad = stop - i; /* a run straddling the cut */
            tg_buf_append(out, REPLACEMENT, 3);
            i += bad;
        }
    }
    if (truncate) tg_buf_append(out, ELLIPSIS, 3);
}

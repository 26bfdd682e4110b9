/* tg_buf.c - see tg_buf.h. */
#include "tg_buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tg_buf_init(tg_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = false;
}

bool tg_buf_reserve(tg_buf *b, size_t extra)
{
    if (b->failed) return false;
    /* +1 for the NUL; checked so a huge request fails instead of wrapping. */
    if (extra > SIZE_MAX - 1 - b->len) goto fail;
    size_t need = b->len + extra + 1;
    if (need <= b->cap) return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *data = realloc(b->data, cap);
    if (!data) goto fail;
    b->data = data;
    b->cap = cap;
    return true;
fail:
    b->failed = true;
    return false;
}

void tg_buf_append(tg_buf *b, const void *bytes, size_t n)
{
    if (!tg_buf_reserve(b, n)) return;
    if (n) memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void tg_buf_puts(tg_buf *b, const char *s)
{
    tg_buf_append(b, s, strlen(s));
}

void tg_buf_putc(tg_buf *b, char c)
{
    tg_buf_append(b, &c, 1);
}

void tg_buf_printf(tg_buf *b, const char *fmt, ...)
{
    if (b->failed) return;
    /* Try the free space first; most pieces are short and fit. */
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        tg_buf_append(b, small, (size_t)n);
        return;
    }
    if (!tg_buf_reserve(b, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *tg_buf_take(tg_buf *b, size_t *len)
{
    if (!b->failed && !b->data) tg_buf_reserve(b, 0);
    char *out = b->failed ? NULL : b->data;
    if (!out) {
        free(b->data);
    } else {
        out[b->len] = '\0';
    }
    if (len) *len = out ? b->len : 0;
    tg_buf_init(b);
    return out;
}

void tg_buf_free(tg_buf *b)
{
    free(b->data);
    tg_buf_init(b);
}

/*
 * tg_buf.h - a growable byte buffer for building output text.
 *
 * The emitters append many small pieces; this keeps them free of length
 * bookkeeping. Out-of-memory is not fatal: the first failed allocation
 * sets the sticky `failed` flag, every later append becomes a no-op, and
 * tg_buf_take() returns NULL. Callers check once, at the end.
 *
 * Invariant: while !failed and data != NULL, data[len] == '\0', so the
 * contents are always a valid C string (they may also contain NULs).
 */
#ifndef TG_BUF_H
#define TG_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tg_buf {
    char *data;    /* malloc'd, NULL until the first append */
    size_t len;    /* bytes used, excluding the trailing NUL */
    size_t cap;    /* bytes allocated, including room for the NUL */
    bool failed;   /* sticky: an allocation failed, contents are incomplete */
} tg_buf;

#define TG_BUF_INIT { NULL, 0, 0, false }

void tg_buf_init(tg_buf *b);
/* Makes room for `extra` more bytes; false (and failed set) if impossible. */
bool tg_buf_reserve(tg_buf *b, size_t extra);
void tg_buf_append(tg_buf *b, const void *bytes, size_t n);
void tg_buf_puts(tg_buf *b, const char *s);
void tg_buf_putc(tg_buf *b, char c);
void tg_buf_printf(tg_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/*
 * Hands the NUL-terminated contents to the caller (who frees them) and
 * resets b to empty. Returns NULL, freeing everything, if any append
 * failed. An untouched buffer yields an allocated "".
 */
char *tg_buf_take(tg_buf *b, size_t *len);
void tg_buf_free(tg_buf *b);

#endif

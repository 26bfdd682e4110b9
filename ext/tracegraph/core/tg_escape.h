/*
 * tg_escape.h - make any byte string safe inside a DOT "quoted string".
 *
 * Method names come from user code and may hold anything: quotes,
 * backslashes, newlines, NULs, invalid UTF-8 (`dot` warns on it), or
 * kilobytes of generated text. The output is always valid UTF-8 that
 * `dot` shows exactly as the name reads:
 *
 *   \  -> \\         (a lone backslash would start \n, \l, \N, \G... escapes)
 *   "  -> \"
 *   newline, CR, tab -> the visible two characters \n, \r, \t
 *   other C0 controls and DEL -> visible \xNN (e.g. \x01)
 *   C1 controls U+0080..U+009F -> visible \u0080 .. \u009f
 *   invalid UTF-8 -> U+FFFD, one per maximal ill-formed subsequence
 *                    (the Unicode "best practice"; overlongs, surrogates
 *                    and code points above U+10FFFF are ill-formed)
 *   input longer than the limit -> cut at a character boundary, then "…"
 *
 * Everything else, including { } | < > & and non-ASCII text, passes
 * through unchanged: tracegraph never uses record or HTML labels.
 */
#ifndef TG_ESCAPE_H
#define TG_ESCAPE_H

#include <stddef.h>

#include "tg_buf.h"

/* Hard cap on the input bytes shown for any one string. */
#define TG_ESCAPE_MAX_BYTES 4096

/*
 * Appends the escaped form of s[0..len) to out. At most `limit` input
 * bytes are shown (0 or anything above TG_ESCAPE_MAX_BYTES means
 * TG_ESCAPE_MAX_BYTES); when the input is longer, the shown part is cut
 * at a character boundary so that it plus the 3-byte "…" fits in limit.
 * s may contain NULs; s may be NULL when len is 0.
 */
void tg_escape_dot(tg_buf *out, const char *s, size_t len, size_t limit);

#endif

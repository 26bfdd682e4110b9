/* tg_format.c - see tg_format.h. */
#include "tg_format.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

/* n / d rounded half up, without the overflow of (n + d/2) / d. */
static uint64_t div_round(uint64_t n, uint64_t d)
{
    uint64_t q = n / d, r = n % d;
    return r >= d - r ? q + 1 : q;
}

/* Writes fixed-point value v / 10^decimals, e.g. (410, 2) -> "4.10". */
static int put_fixed(char *dst, size_t size, uint64_t v, int decimals, const char *suffix)
{
    if (decimals == 0) return snprintf(dst, size, "%" PRIu64 "%s", v, suffix);
    uint64_t scale = decimals == 1 ? 10 : 100;
    return snprintf(dst, size, "%" PRIu64 ".%0*" PRIu64 "%s",
                    v / scale, decimals, v % scale, suffix);
}

const char *tg_format_ns(char *dst, size_t size, uint64_t ns)
{
    static const struct { uint64_t ns; const char *suffix; } units[] = {
        { 1000u, " \xC2\xB5s" }, { 1000000u, " ms" }, { 1000000000u, " s" },
    };
    if (ns < 1000) {
        snprintf(dst, size, "%" PRIu64 " ns", ns);
        return dst;
    }
    /*
     * Try the candidate precisions from finest to coarsest and take the
     * first whose rounded value still has 3 digits; rounding first and
     * choosing after keeps 9995 ns from printing as "10.00 µs".
     */
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        for (int decimals = 2; decimals >= 0; decimals--) {
            uint64_t step = units[u].ns / (decimals == 2 ? 100 : decimals == 1 ? 10 : 1);
            uint64_t v = div_round(ns, step);
            bool last = u + 1 == sizeof units / sizeof units[0] && decimals == 0;
            if (v < 1000 || last) {
                put_fixed(dst, size, v, decimals, units[u].suffix);
                return dst;
            }
        }
    }
    return dst; /* not reached */
}

const char *tg_format_signed_ns(char *dst, size_t size, int64_t ns)
{
    if (ns >= 0) return tg_format_ns(dst, size, (uint64_t)ns);
    if (size < 2) return tg_format_ns(dst, size, 0);
    dst[0] = '-';
    /* -(ns + 1) + 1: INT64_MIN has no positive int64 twin. */
    tg_format_ns(dst + 1, size - 1, (uint64_t)(-(ns + 1)) + 1);
    return dst;
}

const char *tg_format_percent(char *dst, size_t size, uint64_t part, uint64_t whole)
{
    /* Hundredths of a percent; a double is exact enough for 4 digits. */
    double hundredths = whole ? floor((double)part / (double)whole * 10000.0 + 0.5) : 0.0;
    uint64_t h = hundredths > 1e15 ? (uint64_t)1e15 : (uint64_t)hundredths;
    if (h >= 1000) {
        put_fixed(dst, size, div_round(h, 10), 1, "%");
    } else {
        put_fixed(dst, size, h, 2, "%");
    }
    return dst;
}

const char *tg_format_count(char *dst, size_t size, uint64_t count)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, count);
    size_t o = 0;
    for (int i = 0; i < n && o + 1 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0) {
            dst[o++] = ',';
            if (o + 1 >= size) break;
        }
        dst[o++] = digits[i];
    }
    if (size) dst[o] = '\0';
    return dst;
}

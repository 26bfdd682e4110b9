/*
 * tg_format.h - numbers as people read them in a call graph.
 *
 *   times:   3 significant digits in the largest unit that keeps the
 *            value >= 1: "0 ns", "812 ns", "4.10 µs", "12.3 ms", "1.25 s"
 *            (rounded half up; 999,999 ns is "1.00 ms", not "1000 µs";
 *            seconds never switch unit, so "1234 s"). The table of
 *            cases that the Ruby and JavaScript formats are tested against
 *            too is test/fixtures/durations.txt.
 *   percent: "60.0%" at or above 10%, "4.10%" / "0.04%" below; "0.00%"
 *            when the whole is 0
 *   counts:  thousands separated by commas: "15,000"
 *
 * All three write into a caller's array of at least TG_FORMAT_SIZE bytes
 * and return it, so they chain into printf arguments without allocating.
 * Only integer arithmetic and fixed '.' and ',' are used, so the output
 * never depends on the locale.
 */
#ifndef TG_FORMAT_H
#define TG_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define TG_FORMAT_SIZE 32

const char *tg_format_ns(char *dst, size_t size, uint64_t ns);
/* The same for a duration that may be negative (a change): "-4.11 µs". */
const char *tg_format_signed_ns(char *dst, size_t size, int64_t ns);
const char *tg_format_percent(char *dst, size_t size, uint64_t part, uint64_t whole);
const char *tg_format_count(char *dst, size_t size, uint64_t count);

#endif

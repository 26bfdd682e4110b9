/*
 * test_escape.c - tg_escape_dot() rule by rule, and the tg_buf it
 * writes into. Expectations are exact bytes.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tg_buf.h"
#include "tg_escape.h"

/* Escapes s[0..len) with `limit` and compares with the expected bytes. */
static void check_escape_n(const char *s, size_t len, size_t limit, const char *want)
{
    tg_buf b = TG_BUF_INIT;
    tg_escape_dot(&b, s, len, limit);
    size_t n;
    char *got = tg_buf_take(&b, &n);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, strlen(want));
    ck_assert_str_eq(got, want);
    free(got);
}

static void check_escape(const char *s, const char *want)
{
    check_escape_n(s, strlen(s), 0, want);
}

START_TEST(plain_text_passes_through)
{
    check_escape("Object#work", "Object#work");
    check_escape("", "");
    check_escape_n(NULL, 0, 0, "");
}
END_TEST

START_TEST(dot_specials_are_escaped)
{
    check_escape("a\"b\\c", "a\\\"b\\\\c");
    /* \N, \G, \l would be DOT escapes if the backslash stayed single. */
    check_escape("\\N\\G\\l", "\\\\N\\\\G\\\\l");
    check_escape("end\\", "end\\\\");
}
END_TEST

START_TEST(record_and_html_characters_pass)
{
    check_escape("Hash#[]=", "Hash#[]=");
    check_escape("Comparable#<=>", "Comparable#<=>");
    check_escape("#<Class:0x000055d5>#meth", "#<Class:0x000055d5>#meth");
    check_escape("{ a | b } & <c>", "{ a | b } & <c>");
}
END_TEST

START_TEST(whitespace_controls_become_visible)
{
    check_escape("a\nb", "a\\\\nb");
    check_escape("a\rb", "a\\\\rb");
    check_escape("a\tb", "a\\\\tb");
}
END_TEST

START_TEST(other_controls_become_hex)
{
    check_escape("a\x01" "b", "a\\\\x01b");
    check_escape("\x1b[0m", "\\\\x1B[0m");
    check_escape("del\x7f", "del\\\\x7F");
    /* U+0085 NEXT LINE is valid UTF-8 but still a control. */
    check_escape("a\xC2\x85" "b", "a\\\\u0085b");
    /* U+00A0 is not a control. */
    check_escape("a\xC2\xA0" "b", "a\xC2\xA0" "b");
}
END_TEST

START_TEST(nul_bytes_are_kept_visible)
{
    check_escape_n("a\0b", 3, 0, "a\\\\x00b");
}
END_TEST

START_TEST(valid_utf8_passes)
{
    const char *s = "\xC3\x9Cn\xC3\xAF" "c\xC3\xB8" "d\xC3\xA9#\xE5\x90\x8D\xE5\x89\x8D"; /* Ünïcødé#名前 */
    check_escape(s, s);
    check_escape("\xF0\x9F\x94\xA5", "\xF0\x9F\x94\xA5"); /* 4-byte: U+1F525 */
    check_escape("\xEF\xBF\xBF", "\xEF\xBF\xBF");         /* U+FFFF is well-formed */
}
END_TEST

#define FFFD "\xEF\xBF\xBD"

START_TEST(invalid_utf8_becomes_replacement)
{
    check_escape("a\xFF" "b", "a" FFFD "b");
    check_escape("\x80", FFFD);                       /* stray continuation */
    check_escape("\xC0\xAF", FFFD FFFD);              /* overlong: C0 never starts a sequence */
    check_escape("\xE0\x80\xAF", FFFD FFFD FFFD);     /* overlong 3-byte */
    check_escape("\xED\xA0\x80", FFFD FFFD FFFD);     /* UTF-16 surrogate */
    check_escape("\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD); /* above U+10FFFF */
    /* A truncated sequence is one maximal subpart: one replacement. */
    check_escape("\xE5\x90" "x", FFFD "x");
    check_escape("\xF0\x9F\x94", FFFD);
    check_escape("\xE5\x90", FFFD);
    check_escape("bad\xFF\xFE{x|y}", "bad" FFFD FFFD "{x|y}");
}
END_TEST

START_TEST(long_input_is_truncated_at_character_boundary)
{
    char big[5000];
    memset(big, 'a', sizeof big);
    tg_buf b = TG_BUF_INIT;
    tg_escape_dot(&b, big, sizeof big, 0);
    ck_assert(!b.failed);
    ck_assert_uint_eq(b.len, TG_ESCAPE_MAX_BYTES);   /* 4093 'a' + 3-byte ellipsis */
    ck_assert_mem_eq(b.data + 4093, "\xE2\x80\xA6", 3);
    ck_assert_int_eq(b.data[4092], 'a');
    tg_buf_free(&b);

    /* Exactly at the limit: untouched. */
    tg_escape_dot(&b, big, TG_ESCAPE_MAX_BYTES, 0);
    ck_assert_uint_eq(b.len, TG_ESCAPE_MAX_BYTES);
    ck_assert_int_eq(b.data[TG_ESCAPE_MAX_BYTES - 1], 'a');
    tg_buf_free(&b);

    /* A smaller limit; a 2-byte character straddling the cut is not split. */
    check_escape_n("abcdefgh", 8, 6, "abc\xE2\x80\xA6");
    check_escape_n("ab\xC3\x9C" "defgh", 9, 6, "ab\xE2\x80\xA6");
    check_escape_n("abc\xC3\x9C" "efgh", 9, 6, "abc\xE2\x80\xA6");
    check_escape_n("abcdef", 6, 6, "abcdef");
    /* Limits above the hard cap are clamped to it. */
    tg_escape_dot(&b, big, sizeof big, 100000);
    ck_assert_uint_eq(b.len, TG_ESCAPE_MAX_BYTES);
    tg_buf_free(&b);
}
END_TEST

START_TEST(escapes_do_not_count_against_limit)
{
    /* The limit is on input bytes; escaping may make the output longer. */
    check_escape_n("\"\"\"\"", 4, 4, "\\\"\\\"\\\"\\\"");
}
END_TEST

/* ---- tg_buf ---- */

START_TEST(buf_appends_and_takes)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "ab");
    tg_buf_putc(&b, 'c');
    tg_buf_append(&b, "d\0e", 3);
    tg_buf_printf(&b, "[%d|%s]", 42, "x");
    size_t n;
    char *s = tg_buf_take(&b, &n);
    ck_assert_uint_eq(n, 12);
    ck_assert_mem_eq(s, "abcd\0e[42|x]", 13);   /* includes the trailing NUL */
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.len, 0);
    free(s);
}
END_TEST

START_TEST(buf_grows_for_long_printf)
{
    char big[3000];
    memset(big, 'z', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    tg_buf b = TG_BUF_INIT;
    for (int i = 0; i < 10; i++) tg_buf_printf(&b, "%s%d", big, i);
    ck_assert(!b.failed);
    ck_assert_uint_eq(b.len, 10 * 3000);
    ck_assert_int_eq(b.data[2999], '0');
    ck_assert_int_eq(b.data[b.len - 1], '9');
    ck_assert_int_eq(b.data[b.len], '\0');
    tg_buf_free(&b);
}
END_TEST

START_TEST(buf_take_of_empty_is_empty_string)
{
    tg_buf b = TG_BUF_INIT;
    size_t n = 99;
    char *s = tg_buf_take(&b, &n);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s, "");
    ck_assert_uint_eq(n, 0);
    free(s);
}
END_TEST

START_TEST(buf_failure_is_sticky)
{
    tg_buf b = TG_BUF_INIT;
    tg_buf_puts(&b, "ok");
    ck_assert(!tg_buf_reserve(&b, SIZE_MAX));   /* cannot fit: fails, does not wrap */
    ck_assert(b.failed);
    tg_buf_puts(&b, "more");                    /* ignored */
    tg_buf_printf(&b, "%d", 1);
    ck_assert_uint_eq(b.len, 2);
    size_t n = 99;
    ck_assert_ptr_null(tg_buf_take(&b, &n));
    ck_assert_uint_eq(n, 0);
    ck_assert(!b.failed);                       /* take resets the buffer */
}
END_TEST

static Suite *escape_suite(void)
{
    Suite *s = suite_create("escape");
    TCase *tc = tcase_create("escape");
    tcase_add_test(tc, plain_text_passes_through);
    tcase_add_test(tc, dot_specials_are_escaped);
    tcase_add_test(tc, record_and_html_characters_pass);
    tcase_add_test(tc, whitespace_controls_become_visible);
    tcase_add_test(tc, other_controls_become_hex);
    tcase_add_test(tc, nul_bytes_are_kept_visible);
    tcase_add_test(tc, valid_utf8_passes);
    tcase_add_test(tc, invalid_utf8_becomes_replacement);
    tcase_add_test(tc, long_input_is_truncated_at_character_boundary);
    tcase_add_test(tc, escapes_do_not_count_against_limit);
    suite_add_tcase(s, tc);
    TCase *buf = tcase_create("buf");
    tcase_add_test(buf, buf_appends_and_takes);
    tcase_add_test(buf, buf_grows_for_long_printf);
    tcase_add_test(buf, buf_take_of_empty_is_empty_string);
    tcase_add_test(buf, buf_failure_is_sticky);
    suite_add_tcase(s, buf);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(escape_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

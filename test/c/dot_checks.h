/*
 * dot_checks.h - checks the DOT emitters' tests share: substring counts
 * and asserts, and rendering through the real Graphviz `dot`, which must
 * accept the text with no warning. Header-only: each test file is its own
 * executable.
 */
#ifndef TG_TEST_DOT_CHECKS_H
#define TG_TEST_DOT_CHECKS_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t count_of(const char *s, const char *sub)
{
    size_t n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub)) n++;
    return n;
}

#define ck_assert_has(s, sub) ck_assert_msg(strstr((s), (sub)) != NULL, "missing: %s", (sub))
#define ck_assert_lacks(s, sub) ck_assert_msg(strstr((s), (sub)) == NULL, "unexpected: %s", (sub))

static bool have_dot(void)
{
    return system("command -v dot >/dev/null 2>&1") == 0;
}

/* Runs `dot -Tsvg` on the text; asserts exit 0 and an empty stderr. */
static void assert_dot_accepts(const char *text)
{
    if (!have_dot()) {
        fprintf(stderr, "dot not installed; layout check skipped\n");
        return;
    }
    char in[] = "/tmp/tg_dot_in_XXXXXX", err[] = "/tmp/tg_dot_err_XXXXXX";
    int fd = mkstemp(in), efd = mkstemp(err);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_ge(efd, 0);
    close(efd);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "dot -Tsvg -o /dev/null %s 2>%s", in, err);
    int rc = system(cmd);
    FILE *e = fopen(err, "r");
    char msg[512] = "";
    size_t n = e ? fread(msg, 1, sizeof msg - 1, e) : 0;
    msg[n] = '\0';
    if (e) fclose(e);
    unlink(in);
    unlink(err);
    ck_assert_msg(rc == 0, "dot failed (%d): %s", rc, msg);
    ck_assert_msg(n == 0, "dot warned: %s", msg);
}

#endif

/*
 * test_dot_labels.c - no line of a box or of the legend of the call graph
 * (tg_dot) is over 60 characters: long names, paths and legend lines wrap
 * where a reader expects them to, and the escaping stays right.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dot_checks.h"
#include "tg_dot.h"

#define MS 1000000ull

/* No line of a box or of the legend is over 60 characters: names and
 * paths wrap at about 28 where they may (after "::", "/" or a space, else
 * "#" or ".", else "_"),
 * legend lines at 60 at spaces, going on indented. */
START_TEST(long_names_paths_and_legend_lines_wrap)
{
    static const char *const split = "Split per caller: Thread::Mutex#synchronize (4), Rake::Application#"
                                     "standard_exception_handling (3) and 5 more";
    tg_model_method m[] = {
        { "Gem::Resolver::Molinillo::Delegates::SpecificationProvider#with_no_such_dependency_error_handling",
          "/rg/molinillo/lib/molinillo/delegates/specification_provider.rb", 76, false, 5, 3 * MS, 1 * MS },
        { "RuboCop::Cop::Style::StringLiterals.support_autocorrect?", NULL, 0, false, 1, 2 * MS, 2 * MS },
    };
    tg_model_edge e[] = { { 0, 1, 1, 2 * MS, 2 * MS } };
    tg_model r = { "rake -T", "wall", 3 * MS, m, 2, e, 1, NULL };
    tg_dot_options o;
    tg_dot_options_default(&o);
    o.node_fraction = o.edge_fraction = 0;
    o.max_nodes = 0;
    o.notes = (const char *const *)&split;
    o.note_count = 1;
    char *s = tg_dot_render(&r, &o, NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_has(s, "label=\"Gem::Resolver::Molinillo::\\nDelegates::\\nSpecificationProvider#\\n"
                     "with_no_such_dependency_\\nerror_handling\\n/rg/molinillo/lib/molinillo/\\ndelegates/\\n"
                     "specification_provider.rb:76\\nself ");
    ck_assert_has(s, "label=\"RuboCop::Cop::Style::\\nStringLiterals.\\nsupport_autocorrect?\\nself ");
    ck_assert_has(s, "\\lSplit per caller: Thread::Mutex#synchronize (4), Rake::\\l"
                     "    Application#standard_exception_handling (3) and 5 more\\l");
    ck_assert_uint_eq(count_of(s, "\\l    "), 1);   /* the only legend line over 60 characters */
    assert_dot_accepts(s);
    free(s);
}
END_TEST

static Suite *labels_suite(void)
{
    Suite *s = suite_create("dot_labels");
    TCase *tc = tcase_create("wrap");
    tcase_add_test(tc, long_names_paths_and_legend_lines_wrap);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(labels_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

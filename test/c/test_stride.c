/* tg_stride: the multiply-by-inverse divisibility test agrees with %. */
#include <check.h>
#include <stdlib.h>

#include "tg_stride.h"

START_TEST(test_agrees_with_modulo)
{
    static const uint64_t strides[] = {1, 2, 7, 8, 48, 56, 64, 72, 80, 96, 120, 4096, 0xfffffffbull};
    for (size_t i = 0; i < sizeof strides / sizeof *strides; i++) {
        tg_stride s;
        tg_stride_init(&s, strides[i]);
        for (uint64_t x = 0; x < 20000; x++) ck_assert_int_eq(tg_stride_divides(&s, x), x % strides[i] == 0);
        /* Large offsets and the top of the range. */
        for (uint64_t x = UINT64_MAX - 20000; x != 0; x++) ck_assert_int_eq(tg_stride_divides(&s, x), x % strides[i] == 0);
        for (uint64_t k = 1; k < 1000; k++) {
            uint64_t x = k * strides[i] * 1000003ull;
            ck_assert(tg_stride_divides(&s, x) == (x % strides[i] == 0));
            ck_assert(tg_stride_divides(&s, x + 1) == ((x + 1) % strides[i] == 0));
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stride");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_agrees_with_modulo);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

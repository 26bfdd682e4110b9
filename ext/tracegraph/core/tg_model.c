/* tg_model.c - see tg_model.h. */
#include "tg_model.h"

#include <math.h>

const char *tg_model_method_name(const tg_model_method *m)
{
    return m->name ? m->name : "";
}

uint64_t tg_model_total_calls(const tg_model *r)
{
    uint64_t sum = 0;
    for (size_t m = 0; m < r->method_count; m++) {
        uint64_t c = r->methods[m].calls;
        sum = c > UINT64_MAX - sum ? UINT64_MAX : sum + c;
    }
    return sum;
}

uint64_t tg_model_cut_off(double fraction, uint64_t total)
{
    if (!(fraction > 0)) return 0;      /* also catches NaN */
    double cut = ceil(fraction * (double)total);
    return cut >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)cut;
}

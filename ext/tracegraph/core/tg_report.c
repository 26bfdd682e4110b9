/* tg_report.c - see tg_report.h. */
#include "tg_report.h"

#include <math.h>

const char *tg_report_method_name(const tg_report_method *m)
{
    return m->name ? m->name : "";
}

uint64_t tg_report_total_calls(const tg_report *r)
{
    uint64_t sum = 0;
    for (size_t m = 0; m < r->method_count; m++) {
        uint64_t c = r->methods[m].calls;
        sum = c > UINT64_MAX - sum ? UINT64_MAX : sum + c;
    }
    return sum;
}

uint64_t tg_report_cut_off(double fraction, uint64_t total)
{
    if (!(fraction > 0)) return 0;      /* also catches NaN */
    double cut = ceil(fraction * (double)total);
    return cut >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)cut;
}

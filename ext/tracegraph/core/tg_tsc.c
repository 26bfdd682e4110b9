/* tg_tsc.c - see tg_tsc.h. */
#include "tg_tsc.h"

#include <stdio.h>
#include <string.h>

#include "tg_clock.h"

bool tg_tsc_usable(const char *clocksource_path)
{
#if defined(__x86_64__)
    FILE *f = fopen(clocksource_path, "r");
    if (!f) return false;
    char name[32] = "";
    bool ok = fgets(name, sizeof name, f) != NULL;
    fclose(f);
    return ok && strcmp(name, "tsc\n") == 0;
#else
    (void)clocksource_path;
    return false;
#endif
}

/* One (counter, CLOCK_MONOTONIC) pair taken as close together as we can
 * manage: the counter is read on both sides of the clock, and the tightest
 * of a few tries wins (a preemption in between spoils a try). */
static void read_pair(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best_spread = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t before = tg_tsc_ticks();
        uint64_t mono = tg_clock_read(CLOCK_MONOTONIC);
        uint64_t after = tg_tsc_ticks();
        if (after - before < best_spread) {
            best_spread = after - before;
            *ticks = before + (after - before) / 2;
            *ns = mono;
        }
    }
}

/* Sets the scale from the origin to the pair (ticks, ns), if plausible
 * (100 MHz .. 20 GHz), and makes that pair the base. */
static bool set_scale(tg_tsc *t, uint64_t ticks, uint64_t ns)
{
    if (ticks <= t->origin_ticks || ns <= t->origin_ns) return false;
    uint64_t tick_span = ticks - t->origin_ticks, ns_span = ns - t->origin_ns;
    if (tick_span < ns_span / 10 || tick_span > ns_span * 20) return false;
    t->mult = (uint64_t)(((unsigned __int128)ns_span << 32) / tick_span);
    t->base_ticks = ticks;
    t->base_ns = ns;
    return true;
}

bool tg_tsc_calibrate(tg_tsc *t, uint64_t window_ns)
{
    if (!tg_tsc_usable(TG_TSC_CLOCKSOURCE_PATH)) return false;
    tg_tsc candidate = {0};
    read_pair(&candidate.origin_ticks, &candidate.origin_ns);
    while (tg_clock_read(CLOCK_MONOTONIC) - candidate.origin_ns < window_ns) {
    }
    uint64_t ticks, ns;
    read_pair(&ticks, &ns);
    if (!set_scale(&candidate, ticks, ns)) return false;
    *t = candidate;
    return true;
}

void tg_tsc_refine(tg_tsc *t)
{
    uint64_t ticks, ns;
    read_pair(&ticks, &ns);
    set_scale(t, ticks, ns);   /* an implausible pair keeps the old scale */
}

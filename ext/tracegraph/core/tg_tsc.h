/*
 * tg_tsc.h - the CPU's time-stamp counter as a cheaper CLOCK_MONOTONIC.
 *
 * Reading CLOCK_MONOTONIC through the vDSO costs about 24 ns here; the
 * counter itself (rdtsc) about 10 ns. A tracing profiler reads a clock on
 * every call and return, so that difference is most of what separates it
 * from an empty event hook. Where the kernel keeps its own time with the
 * TSC (clocksource "tsc": it has checked the counter is invariant and in
 * step across CPUs), reading the counter directly gives the same clock for
 * less.
 *
 * Readings are converted to nanoseconds as they are taken, with a scale
 * measured against CLOCK_MONOTONIC (tg_tsc_calibrate, then tg_tsc_refine
 * before each session), so every duration the profiler subtracts and adds
 * is already in nanoseconds and sums stay exact. Within a session the
 * scale is fixed: the kernel's NTP slewing (at most 500 ppm) is not
 * followed until the next refine.
 */
#ifndef TG_TSC_H
#define TG_TSC_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tg_tsc {
    uint64_t origin_ticks, origin_ns;  /* the first (counter, CLOCK_MONOTONIC) pair */
    uint64_t base_ticks, base_ns;      /* the latest pair: readings count from here */
    uint64_t mult;         /* nanoseconds per tick, as a 32.32 fixed-point number */
} tg_tsc;

/* Is the counter a clock we can trust here? True on x86-64 when the
 * kernel's current clocksource (read from `clocksource_path`, normally
 * TG_TSC_CLOCKSOURCE_PATH) is "tsc". */
#define TG_TSC_CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"
bool tg_tsc_usable(const char *clocksource_path);

/* Measures the counter against CLOCK_MONOTONIC for `window_ns` (busy, on
 * the calling thread). False, leaving *t alone, if the counter is not
 * usable or its rate is implausible (below 100 MHz or above 20 GHz). */
bool tg_tsc_calibrate(tg_tsc *t, uint64_t window_ns);

/* Re-measures the scale over everything since calibration (the longer
 * the span, the smaller the error) and moves the base to now. */
void tg_tsc_refine(tg_tsc *t);

static inline uint64_t tg_tsc_ticks(void)
{
#if defined(__x86_64__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}

/* Nanoseconds between two counter readings, on the calibrated scale. */
static inline uint64_t tg_tsc_ticks_to_ns(const tg_tsc *t, uint64_t ticks)
{
    return (uint64_t)(((unsigned __int128)ticks * t->mult) >> 32);
}

/* Now, in nanoseconds on (very nearly) CLOCK_MONOTONIC's time line. */
static inline uint64_t tg_tsc_now(const tg_tsc *t)
{
    return t->base_ns + tg_tsc_ticks_to_ns(t, tg_tsc_ticks() - t->base_ticks);
}

#endif

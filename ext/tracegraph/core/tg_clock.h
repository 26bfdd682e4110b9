/*
 * tg_clock.h - the clocks a profile can be measured with, in nanoseconds.
 *
 * Reading the clock is the only system work done per event, so this is a
 * static inline around clock_gettime: on Linux the monotonic clock is a
 * vDSO read (tens of ns), while the CPU-time clocks may be real syscalls.
 */
#ifndef TG_CLOCK_H
#define TG_CLOCK_H

#include <stdint.h>
#include <time.h>

typedef enum tg_clock_kind {
    TG_CLOCK_WALL,        /* CLOCK_MONOTONIC: elapsed time, sleeps and waits included */
    TG_CLOCK_CPU,         /* CPU time: each thread's on its own clock, so they add up to the process's */
    TG_CLOCK_THREAD_CPU   /* the same, under the name it had when TG_CLOCK_CPU read the process's clock */
} tg_clock_kind;

/* The clock an event reads, on the thread it fires on. Both CPU kinds read
 * that thread's own CPU clock: the process's (CLOCK_PROCESS_CPUTIME_ID)
 * would charge a thread that waits with the CPU other threads use
 * meanwhile, and count each moment once per thread that has a frame open. */
static inline clockid_t tg_clock_id(tg_clock_kind kind)
{
    switch (kind) {
    case TG_CLOCK_CPU:
    case TG_CLOCK_THREAD_CPU: return CLOCK_THREAD_CPUTIME_ID;
    default: return CLOCK_MONOTONIC;
    }
}

static inline uint64_t tg_clock_read(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The name used in reports and options ("wall", "cpu", "thread_cpu"). */
const char *tg_clock_name(tg_clock_kind kind);

#endif

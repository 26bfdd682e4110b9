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
    TG_CLOCK_CPU,         /* CLOCK_PROCESS_CPUTIME_ID: CPU time of the whole process */
    TG_CLOCK_THREAD_CPU   /* CLOCK_THREAD_CPUTIME_ID: CPU time of the calling thread */
} tg_clock_kind;

static inline clockid_t tg_clock_id(tg_clock_kind kind)
{
    switch (kind) {
    case TG_CLOCK_CPU: return CLOCK_PROCESS_CPUTIME_ID;
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

/* What one clock reading costs on this machine: clock_gettime(CLOCK_MONOTONIC)
 * through the vDSO against the time-stamp counter (rdtsc), which is what
 * tracegraph's wall clock reads where the kernel's clocksource is "tsc".
 * Build and run (see bench/HOT_PATH.md):
 *   cc -O2 -o tmp/clock_cost bench/clock_cost.c && tmp/clock_cost */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
    enum { N = 5000000 };
    volatile uint64_t sink = 0;
    static const struct { const char *name; clockid_t id; } clocks[] = {
        {"clock_gettime(CLOCK_MONOTONIC)", CLOCK_MONOTONIC},
        {"clock_gettime(CLOCK_PROCESS_CPUTIME_ID)", CLOCK_PROCESS_CPUTIME_ID},
        {"clock_gettime(CLOCK_THREAD_CPUTIME_ID)", CLOCK_THREAD_CPUTIME_ID},
    };
    for (size_t c = 0; c < sizeof clocks / sizeof *clocks; c++) {
        int n = c == 0 ? N : N / 10;
        uint64_t start = monotonic_ns();
        for (int i = 0; i < n; i++) sink += clock_ns(clocks[c].id);
        printf("%-42s %6.1f ns\n", clocks[c].name, (double)(monotonic_ns() - start) / n);
    }
#if defined(__x86_64__)
    uint64_t start = monotonic_ns();
    for (int i = 0; i < N; i++) sink += __builtin_ia32_rdtsc();
    printf("%-42s %6.1f ns\n", "rdtsc", (double)(monotonic_ns() - start) / N);
#endif
    (void)sink;
    return 0;
}

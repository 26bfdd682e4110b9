/* tg_clock.c - see tg_clock.h. */
#include "tg_clock.h"

const char *tg_clock_name(tg_clock_kind kind)
{
    switch (kind) {
    case TG_CLOCK_CPU: return "cpu";
    case TG_CLOCK_THREAD_CPU: return "thread_cpu";
    default: return "wall";
    }
}

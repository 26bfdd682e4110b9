/*
 * gc_events.h - the binding's garbage-collection hook (gc_events.c).
 *
 * Ruby's internal GC events need a hook of their own: one hook cannot
 * mix internal and normal events, and internal hooks run inside the
 * collector, where nothing may allocate a Ruby object, raise, call Ruby or
 * take a lock. This hook reads the event, asks the session (session.h)
 * for the running context and its clock, and hands both to the Ruby-free
 * core (tg_gc.c). start_stop.c installs and removes it.
 */
#ifndef TG_GC_EVENTS_H
#define TG_GC_EVENTS_H

#include <ruby.h>
#include <ruby/debug.h>

#include "tg_profiler.h"

/* Outside the hook, with the GVL, at start: reads where the collector is
 * and installs the hook. */
void gc_events_start(tg_profiler *p);

/* Pause removes the hook (GC while paused is not counted); resume reads
 * the collector's phase again, which may have moved, and reinstalls it. */
void gc_events_pause(void);
void gc_events_resume(void);

/* Removes the hook. */
void gc_events_stop(void);

/* For the result: [runs, step index, marking index, sweeping index], the
 * indexes as in the result's methods (-1 if never pushed). */
VALUE gc_events_result(void);

#endif

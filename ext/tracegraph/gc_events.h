/*
 * gc_events.h - the binding's garbage-collection hook (gc_events.c).
 *
 * Ruby's internal GC events need a hook of their own: one hook cannot
 * mix internal and normal events, and internal hooks run inside the
 * collector, where nothing may allocate a Ruby object, raise, call Ruby or
 * take a lock. This hook reads the event, asks tracegraph.c for the running
 * context and its clock, and hands both to the Ruby-free core (tg_gc.c).
 */
#ifndef TG_GC_EVENTS_H
#define TG_GC_EVENTS_H

#include <ruby.h>
#include <ruby/debug.h>

#include "tg_profiler.h"

/* From tracegraph.c: the running context of the thread an event fires on,
 * made the core's running context, with that thread's clock in *now; NULL
 * if the thread is not recorded (threads: :current) or out of memory.
 * Allocates no Ruby object: safe inside the collector. */
tg_context *tracegraph_event_context(rb_trace_arg_t *arg, uint64_t *now);

/* Outside the hook, with the GVL, at start: `step`, `marking` and
 * `sweeping` are the reserved pseudo-methods (TG_NONE: record nothing).
 * Reads where the collector is and installs the hook. */
void gc_events_start(tg_profiler *p, uint32_t step, uint32_t marking, uint32_t sweeping);

/* Pause removes the hook (GC while paused is not counted); resume reads
 * the collector's phase again, which may have moved, and reinstalls it. */
void gc_events_pause(void);
void gc_events_resume(void);

/* Removes the hook. */
void gc_events_stop(void);

/* For the result: [runs, step index, marking index, sweeping index], the
 * indexes as in the result's methods (-1 if not reserved). */
VALUE gc_events_result(void);

#endif

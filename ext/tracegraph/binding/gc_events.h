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

/* From tracegraph.c: the index of a garbage-collection pseudo-method
 * (tg_gc_node), created the first time it is about to be pushed, so a
 * profile holds only those that ran. Plain malloc, no Ruby object: safe
 * inside the collector. TG_NONE if out of memory (then not recorded). */
uint32_t tracegraph_gc_method(uint32_t node);

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

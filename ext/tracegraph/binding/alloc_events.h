/*
 * alloc_events.h - the binding's allocation hook (alloc_events.c), for
 * allocations: true.
 *
 * Ruby reports every new object with the internal event
 * RUBY_INTERNAL_EVENT_NEWOBJ, which needs a hook of its own (internal and
 * normal events cannot share one) and runs inside the allocator: nothing
 * there may allocate a Ruby object, raise, call Ruby or take a lock. The
 * hook adds one to the allocation count of the running context of the
 * allocating thread (tg_context.allocations), and to the count of the new
 * object's type for the method on top of that context's stack
 * (tg_profiler_allocation); the core's frames turn the counts into self
 * and total allocations (tg_profiler.h).
 *
 * It is installed only while recording and not paused, after the main
 * hook and removed before it, so what tracegraph itself allocates at
 * start, stop, pause and resume is never counted: start_stop.c installs
 * and removes it.
 */
#ifndef TG_ALLOC_EVENTS_H
#define TG_ALLOC_EVENTS_H

#include <ruby.h>
#include <ruby/debug.h>

#include "tg_profiler.h"

/* Outside any hook, with the GVL: install and remove the hook, which
 * counts into p. */
void alloc_events_start(tg_profiler *p);
void alloc_events_stop(void);

/* After stop: a method's allocations by type, {"String" => 1000, ...}
 * with the types it allocated none of left out. */
VALUE alloc_events_by_type(const tg_allocation_types *types);

/* For tests: whether the hook is installed now. */
bool alloc_events_installed(void);

#endif

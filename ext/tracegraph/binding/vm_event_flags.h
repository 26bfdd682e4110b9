/*
 * vm_event_flags.h - Ruby's two records of which events hooks want, found
 * in its memory, so that C methods can be traced without Ruby rewriting
 * its inlined operators into calls (see vm_event_flags.c).
 */
#ifndef TRACEGRAPH_VM_EVENT_FLAGS_H
#define TRACEGRAPH_VM_EVENT_FLAGS_H

#include <ruby.h>
#include <stdbool.h>

#define VM_EVENT_FLAGS_C (RUBY_EVENT_C_CALL | RUBY_EVENT_C_RETURN)

/* The events that instructions carry, for which Ruby rewrites them into
 * their trace_ forms (iseq.h, ISEQ_TRACE_EVENTS). */
#define VM_EVENT_FLAGS_COVERAGE (0x010000 | 0x020000) /* RUBY_EVENT_COVERAGE_LINE, _BRANCH */
#define VM_EVENT_FLAGS_ISEQ                                                                                 \
    (RUBY_EVENT_LINE | RUBY_EVENT_CLASS | RUBY_EVENT_END | RUBY_EVENT_CALL | RUBY_EVENT_RETURN |          \
     RUBY_EVENT_C_CALL | RUBY_EVENT_C_RETURN | RUBY_EVENT_B_CALL | RUBY_EVENT_B_RETURN | VM_EVENT_RESCUE | \
     VM_EVENT_FLAGS_COVERAGE)
#ifdef RUBY_EVENT_RESCUE
#define VM_EVENT_RESCUE RUBY_EVENT_RESCUE
#else
#define VM_EVENT_RESCUE 0 /* Ruby 3.1 has no rescue event */
#endif

/* Finds the records, once per process (a probe with two throwaway hooks
 * of events no instruction carries); false if they could not be found
 * beyond doubt, and then nothing here writes. Call it with no hook of
 * ours installed, outside any hook. */
bool vm_event_flags_found(void);

/* The C-event bits of the "ever enabled" record now. */
rb_event_flag_t vm_event_flags_c_ever(void);

/* Both records now (false if they were not found). */
bool vm_event_flags_now(rb_event_flag_t *ever_now, rb_event_flag_t *live_now);

/* Clears every instruction event (VM_EVENT_FLAGS_ISEQ) from the "ever
 * enabled" record: for when no instruction is traced any more
 * (iseq_untrace.h), so that code compiled later is not traced either. */
void vm_event_flags_clear_traced(void);

/* Sets the C-event bits of the "ever enabled" record to `bits` (and
 * leaves the others): with them set, adding a C-event hook does not
 * rewrite the instructions; with them clear, instructions compiled later
 * are not rewritten for them. */
void vm_event_flags_set_c_ever(rb_event_flag_t bits);

/* Defines Tracegraph._event_flags_probe (for tests). */
void vm_event_flags_init(VALUE mTracegraph);

#endif

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

/* Finds the records, once per process (a probe with two throwaway hooks
 * of events no instruction carries); false if they could not be found
 * beyond doubt, and then nothing here writes. Call it with no hook of
 * ours installed, outside any hook. */
bool vm_event_flags_found(void);

/* The C-event bits of the "ever enabled" record now. */
rb_event_flag_t vm_event_flags_c_ever(void);

/* Whether a hook (ours or anyone's) wants C events now. */
bool vm_event_flags_c_live(void);

/* Sets the C-event bits of the "ever enabled" record to `bits` (and
 * leaves the others): with them set, adding a C-event hook does not
 * rewrite the instructions; with them clear, instructions compiled later
 * are not rewritten for them. */
void vm_event_flags_set_c_ever(rb_event_flag_t bits);

/* Defines Tracegraph._event_flags_probe (for tests). */
void vm_event_flags_init(VALUE mTracegraph);

#endif

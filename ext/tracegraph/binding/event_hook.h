/*
 * event_hook.h - the event hook (event_hook.c): calls, returns, blocks,
 * fiber switches and thread ends into the session's shadow stacks.
 * start_stop.c installs and removes it.
 */
#ifndef TRACEGRAPH_EVENT_HOOK_H
#define TRACEGRAPH_EVENT_HOOK_H

#include <ruby.h>
#include <ruby/debug.h>

/* The hook to install while recording: the build that reads the VM
 * internals if the probe trusted them (session_vm), else the one that
 * uses Ruby's public API only. Install it with RUBY_EVENT_HOOK_FLAG_RAW_ARG. */
rb_event_hook_func_t event_hook_recording(void);

/* The hook to install while paused: it does not see calls (they are not
 * recorded, and cost the program nothing); it sees returns, fiber
 * switches and thread ends, so the stacks open at the pause stay true. */
rb_event_hook_func_t event_hook_paused(void);

/* Notes which methods are tracegraph's own (never profiled) and defines
 * Tracegraph._hide_methods_of. */
void event_hook_init(VALUE mTracegraph);

#endif

/*
 * start_stop.h - starting, pausing, resuming and stopping a recording
 * (start_stop.c), which installs and removes every hook.
 */
#ifndef TRACEGRAPH_START_STOP_H
#define TRACEGRAPH_START_STOP_H

#include <ruby.h>

/* Defines Tracegraph._start, _stop, _pause, _resume, running?, paused?
 * and the test helpers _frame_size, _vm_reads? and _allocation_hook?;
 * `error` is Tracegraph::Error. */
void start_stop_init(VALUE mTracegraph, VALUE error);

#endif

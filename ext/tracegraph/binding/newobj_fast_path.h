/*
 * newobj_fast_path.h - keeps Ruby 3.1's allocation fast path while the
 * collector's event hooks are on (see newobj_fast_path.c).
 */
#ifndef TRACEGRAPH_NEWOBJ_FAST_PATH_H
#define TRACEGRAPH_NEWOBJ_FAST_PATH_H

#include <ruby.h>
#include <stdbool.h>

/* Finds the heap's flags once per process (a probe with one throwaway
 * hook of a collector event); false if they could not be found beyond
 * doubt, or if this Ruby has no need (3.3 and later check for an
 * allocation hook only). Call it with no hook of ours installed. */
bool newobj_fast_path_found(void);

/* After our hooks changed: if the collector's hooks want no allocation
 * event, clears the flag that sends every allocation down the slow path.
 * Ruby sets it again at the next change of anyone's hooks. */
void newobj_fast_path_keep(void);

/* Defines Tracegraph._newobj_fast_path (for tests). */
void newobj_fast_path_init(VALUE mTracegraph);

#endif

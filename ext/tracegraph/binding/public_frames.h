/*
 * public_frames.h - where a frame sits on the VM stack, through Ruby's
 * public API only (the hook's path when the VM reads are not trusted).
 *
 * rb_profile_frames walks the running fiber's frames from the top. How
 * many it reports is the depth of the top frame, and a frame keeps its
 * depth for as long as it lives: the frames below it cannot change. So a
 * depth is a frame position as the VM reads give one (a frame's address):
 * it says which shadow frame a return closes, which frames a call proves
 * gone (Ruby skips their returns while a SystemStackError unwinds), and
 * it orders them the same way, as
 * PUBLIC_FRAMES_BASE - depth (smaller as the stack deepens, never 0).
 *
 * The walk costs a few nanoseconds per frame on every event: this path
 * is exact, not cheap (docs/rubies.md has the measurement).
 *
 * Uses: nothing but Ruby's public API. No allocation, no raise: usable in
 * the hook (which holds the GVL, so one buffer serves every thread).
 */
#ifndef TRACEGRAPH_PUBLIC_FRAMES_H
#define TRACEGRAPH_PUBLIC_FRAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <ruby.h>

#define PUBLIC_FRAMES_BASE ((uint64_t)1 << 32)

/* The deepest stack walked. A walk costs its depth at every event, so a
 * recursion 100,000 deep would cost 10^10 frame reads; past this depth
 * positions are unknown (0) and returns match by method, as the core
 * does without positions. 16,384 frames is more than a thread's default
 * 1 MiB VM stack holds, so a SystemStackError there is still exact. */
#define PUBLIC_FRAMES_MAX_DEPTH (1 << 14)

/* Walks the running fiber's frames. Returns the position of the top
 * frame, or 0 if the stack is deeper than the buffer (then positions are
 * unknown, and returns match by method as before). */
uint64_t public_frames_walk(void);

/* The frame object (a method entry or an iseq, as rb_profile_frames
 * answers) at `position` in the last walk, or Qundef if there is none. */
VALUE public_frames_at(uint64_t position);

/* Is the frame object `frame` one of method `mid` (its original name)?
 * Compares the names Ruby keeps: no allocation. */
bool public_frames_is_method(VALUE frame, ID mid);

#endif

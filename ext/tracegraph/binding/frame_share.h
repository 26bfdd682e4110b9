/*
 * frame_share.h - Tracegraph._frame_share (frame_share.c): how much of an
 * unprofiled loop's time its callee's frame is on top of Ruby's stack,
 * as a sampling profiler sees it. The calibration takes that, the
 * callee's own time, out of what it counts as tracing's cost inside a
 * frame.
 */
#ifndef TRACEGRAPH_FRAME_SHARE_H
#define TRACEGRAPH_FRAME_SHARE_H

#include <ruby.h>

void frame_share_init(VALUE mTracegraph);

#endif

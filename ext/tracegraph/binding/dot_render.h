/*
 * dot_render.h - Tracegraph._render_dot and _render_diff_dot
 * (dot_render.c): Ruby profile data into the core's DOT writers.
 */
#ifndef TRACEGRAPH_DOT_RENDER_H
#define TRACEGRAPH_DOT_RENDER_H

#include <ruby.h>

void dot_render_init(VALUE mTracegraph);

#endif

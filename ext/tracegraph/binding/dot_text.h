/*
 * dot_text.h - Tracegraph._render_dot and _render_diff_dot
 * (dot_text.c): Ruby profile data into the core's DOT writers.
 */
#ifndef TRACEGRAPH_DOT_TEXT_H
#define TRACEGRAPH_DOT_TEXT_H

#include <ruby.h>

void dot_text_init(VALUE mTracegraph);

#endif

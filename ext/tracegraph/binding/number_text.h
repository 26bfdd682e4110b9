/*
 * number_text.h - Tracegraph._human_time (number_text.c): the core's
 * duration format (tg_format.h) for the Ruby library, so that a time reads
 * the same in a graph, a table and a log line.
 */
#ifndef TRACEGRAPH_NUMBER_TEXT_H
#define TRACEGRAPH_NUMBER_TEXT_H

#include <ruby.h>

void number_text_init(VALUE mTracegraph);

#endif

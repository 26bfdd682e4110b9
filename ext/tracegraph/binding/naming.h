/*
 * naming.h - a method's or block's name and source location, made at
 * stop from its key (naming.c), never in a hook.
 */
#ifndef TRACEGRAPH_NAMING_H
#define TRACEGRAPH_NAMING_H

#include <ruby.h>

#include "session.h"

/* "Class#meth", "Class.meth", "block in Foo#bar", or a GC pseudo-method's
 * name; a UTF-8-labelled String. May call Ruby (Tracegraph::Naming). */
VALUE naming_name(const method_key *k);

/* [file, line] of a Ruby method or block, or [nil, nil] for C methods,
 * GC pseudo-methods and methods that no longer exist. */
VALUE naming_location(const method_key *k);

/* Bracket the naming of one profile's methods: Tracegraph::Naming then
 * reads the working directory once and shortens each file once, not once
 * per method (10,000 anonymous classes asked the kernel 10,000 times). */
void naming_begin_pass(void);
void naming_end_pass(void);

void naming_init(VALUE mTracegraph);

#endif

/*
 * naming.h - a method's or block's name and source location, made at
 * stop from its key (naming.c), never in a hook.
 */
#ifndef TRACEGRAPH_NAMING_H
#define TRACEGRAPH_NAMING_H

#include <ruby.h>

#include "session.h"

/* A naming pass: the memo of one profile's naming, so that the working
 * directory is read once and each owner named and each file shortened
 * once, not once per method (10,000 anonymous classes asked the kernel
 * 10,000 times). Hold it in a local variable while naming: it is no
 * global, so two threads stopping at once each have their own. */
VALUE naming_pass_new(void);

/* "Class#meth", "Class.meth", "block in Foo#bar", or a GC pseudo-method's
 * name; a UTF-8-labelled String. May call Ruby (Tracegraph::Naming). */
VALUE naming_name(const method_key *k, VALUE pass);

/* [file, line] of a Ruby method or block, or [nil, nil] for C methods,
 * GC pseudo-methods and methods that no longer exist. */
VALUE naming_location(const method_key *k);

/* Tells apart blocks that the rule above names alike: two blocks of one
 * method that start on one line ("[1].each { a }; 2.times { b }") get the
 * same name, file and line, and pprof would add them up. In rows (the
 * stop's [name, file, line, ...] per method, keys alike), each of them
 * gets its column, 1-based: "block in Foo#bar (column 17)"; where Ruby
 * does not say, its order on the line: "(2nd on line 7)". */
void naming_tell_blocks_apart(VALUE rows, const method_key *keys, uint32_t count);

/* Also defines Tracegraph._module_name and ._object_name, which
 * Tracegraph::Naming.module_name and .object_name call. */
void naming_init(VALUE mTracegraph);

#endif

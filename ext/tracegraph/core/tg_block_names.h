/*
 * tg_block_names.h - what a block's name says of where it is, as Ruby's
 * backtraces name blocks and tracegraph's naming.c completes them: "block
 * in Foo#bar", "block (2 levels) in Foo#bar", and for a block that shares
 * its line with another of its level, its column or order, "block in
 * Foo#bar (column 17)", "block in Foo#bar (2nd on line 7)". The graph pass
 * (tg_graph.c) reads it to split a hub per caller and to walk a focus; the
 * Ruby and JavaScript copies of the rule are model/hub_split.rb's
 * BLOCK_NAME and html/focus_graph.js's blockOwner.
 */
#ifndef TG_BLOCK_NAMES_H
#define TG_BLOCK_NAMES_H

#include <stdbool.h>

/* Writes into `out` (room for strlen(name) + 1) the name of what the block
 * named `name` belongs to: "Foo#bar" for "block in Foo#bar", "block in
 * Foo#bar" for "block (2 levels) in Foo#bar", and so on up; a column or
 * order is the block's own and is left out. False for a name that is not a
 * block's. */
bool tg_block_owner(const char *name, char *out);

#endif

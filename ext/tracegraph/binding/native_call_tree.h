/*
 * native_call_tree.h - Tracegraph::NativeCallTree (native_call_tree.c):
 * a recorded call tree kept as the core's nodes, with its views and the
 * stack outputs.
 */
#ifndef TRACEGRAPH_NATIVE_CALL_TREE_H
#define TRACEGRAPH_NATIVE_CALL_TREE_H

#include <stdbool.h>
#include <ruby.h>

#include "tg_calltree.h"

/* Wraps malloc'd nodes and, if `counted`, their malloc'd allocation
 * counts (either NULL when count is 0) in a new NativeCallTree, which
 * then owns them, even if wrapping raises. Counted, the tree's
 * allocations are never NULL: "counted" needs no flag of its own. */
VALUE native_call_tree_wrap(tg_calltree_node *nodes, tg_calltree_allocations *allocations, bool counted,
                            uint32_t count);

/* Defines Tracegraph::NativeCallTree; `error` is Tracegraph::Error. */
void native_call_tree_init(VALUE mTracegraph, VALUE error);

#endif

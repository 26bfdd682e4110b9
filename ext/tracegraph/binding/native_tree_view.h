/*
 * native_tree_view.h - the binding's views of a recorded call tree
 * (native_tree_view.c): Tracegraph::NativeCallTree#_view and #_stats,
 * which Profile#view (lib/tracegraph/profile_view.rb) uses to show some
 * threads, or the profile without its waiting time.
 */
#ifndef TG_NATIVE_TREE_VIEW_H
#define TG_NATIVE_TREE_VIEW_H

#include <ruby.h>

#include "tg_calltree.h"

/* From tracegraph.c: a NativeCallTree's nodes (parents before children),
 * and their allocation counts if it has them. */
typedef struct native_tree {
    tg_calltree_node *nodes;
    tg_calltree_allocations *allocations;   /* parallel to nodes, never NULL if counted; NULL if not */
    uint32_t count;
} native_tree;

/* From tracegraph.c: wraps malloc'd nodes and, if `counted`, their
 * malloc'd allocation counts (either NULL when count is 0), which the new
 * NativeCallTree then owns, even if wrapping raises; the NativeCallTree
 * of a VALUE. */
VALUE native_tree_wrap(tg_calltree_node *nodes, tg_calltree_allocations *allocations, bool counted, uint32_t count);
native_tree *native_tree_of(VALUE self);

/* Defines _view and _stats on NativeCallTree. */
void native_tree_view_init(VALUE cNativeCallTree);

#endif

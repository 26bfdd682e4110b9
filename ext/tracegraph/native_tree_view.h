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

/* From tracegraph.c: a NativeCallTree's nodes (parents before children). */
typedef struct native_tree {
    tg_calltree_node *nodes;
    uint32_t count;
} native_tree;

/* From tracegraph.c: wraps malloc'd nodes (NULL when count is 0), which
 * the new NativeCallTree then owns; the NativeCallTree of a VALUE. */
VALUE native_tree_wrap(tg_calltree_node *nodes, uint32_t count);
native_tree *native_tree_of(VALUE self);

/* Defines _view and _stats on NativeCallTree. */
void native_tree_view_init(VALUE cNativeCallTree);

#endif

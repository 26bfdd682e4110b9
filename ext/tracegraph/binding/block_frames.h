/*
 * block_frames.h - blocks as frames: how a block is keyed, found and named.
 *
 * With blocks on, the hook also listens to b_call and b_return, and each
 * block gets a node of its own, charged with its own work, below
 * whatever runs it (a C iterator such as Array#each, or a method that
 * yields):
 *
 *   Foo#bar -> Array#each -> block in Foo#bar -> ...
 *
 * Keys. A block is its instruction sequence: one per block in the source,
 * the same object at every call. With the VM reads trusted (ruby_vm.h)
 * the hook reads it from the block frame (cfp->iseq); through the public
 * API it asks rb_profile_frames(0, 1), which answers the block's iseq for
 * blocks outside methods (and in define_method bodies), and the enclosing
 * method's entry for blocks inside a method: those are told apart by the
 * block's first line (rb_tracearg_lineno at b_call). Either way the
 * method key is (that object, BLOCK_FRAMES_KEY_TAG | line), which no method's
 * (class, method id) can equal. So through the public API the blocks of
 * one method that start on one line share a key, and are one node, named
 * at stop after the outermost of them (docs/rubies.md): nothing public
 * tells them apart in the hook. One case is known: Tracegraph.profile's
 * own block, never recorded, is noted by the hook (its frame object and
 * line), and a block on its line is named as the outermost one nested in
 * a block there (method_key.in_line_block).
 *
 * define_method methods run in a block frame flagged BMETHOD; Ruby fires
 * their call, then b_call, then b_return, then return. The method is
 * counted once, as the method: its b_call and b_return are skipped (with
 * VM reads by the frame's flag; publicly, a b_call right after the call
 * of the same method, whose frame object is a block's iseq (a method's
 * own blocks answer the method's entry), is that method's body,
 * remembered in its key so its b_return is skipped too).
 *
 * Names are made at stop, never in the hook: see naming.c.
 *
 * Uses: nothing but Ruby's public API.
 */
#ifndef TRACEGRAPH_BLOCK_FRAMES_H
#define TRACEGRAPH_BLOCK_FRAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <ruby.h>
#include <ruby/debug.h>

/* Set in a block's method key_b (and never in an ID). */
#define BLOCK_FRAMES_KEY_TAG ((uint64_t)1 << 63)

/* Public API only: the running block's frame object (its iseq, or the
 * enclosing method's entry) and, at a b_call, its first line. False if
 * Ruby reports no Ruby frame. No allocation: usable in the hook. */
bool block_frames_public_frame(rb_trace_arg_t *arg, VALUE *frame, int *line);

/* Is a frame object of block_frames_public_frame a block's own iseq (Ruby
 * labels it "block ...")? It is not when it is the entry of the ordinary
 * method the block is in. Reads the label Ruby keeps: no allocation. */
bool block_frames_public_is_block(VALUE frame);

#endif

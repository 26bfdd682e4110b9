/*
 * tracegraph.c - the Ruby binding's entry point: Init_tracegraph calls
 * one init per file. The binding (this folder) is the only C that
 * includes ruby.h; it translates Ruby's events into the plain-C core
 * (../core, tg_*) and the core's numbers back into Ruby objects.
 *
 * One job per file:
 *   session.c           the recording session's state, shadow stacks per
 *                       thread and fiber, method keys, clocks (session.h
 *                       is what every event source shares)
 *   event_hook.c        the event hook: calls, returns, blocks (the hot path)
 *   gc_events.c         garbage collection's own hook
 *   alloc_events.c      allocations' own hook
 *   block_frames.c      blocks as frames: keys through the public API
 *   start_stop.c        start, pause, resume, stop: the one file that knows
 *                       every hook, and the result it builds
 *   naming.c            method and block names and locations, at stop
 *   native_call_tree.c  Tracegraph::NativeCallTree and the stack outputs
 *   dot_text.c          Ruby profile data -> tg_model -> the DOT writers
 *   number_text.c       the core's duration format, for Ruby's text
 *   ruby_vm.h           the VM-internal reads (inline), checked by
 *   ruby_vm_probe.c     the probe, once
 *   frame_share.c       a sampler's view of an unprofiled loop's frames,
 *                       for the calibration
 *   vm_event_flags.c    Ruby's records of the events hooks want, found by a
 *                       probe: C calls traced without rewriting operators
 *   iseq_untrace.c      Ruby's traced instructions made plain again after
 *                       a profile (for YJIT), checked by a probe first
 *   libruby_memory.h    libruby's writable memory, where both probes look
 *   newobj_fast_path.c  Ruby 3.1's allocation fast path kept while the
 *                       collector's events are hooked, found by a probe
 *
 * Names. A function or variable that one binding file shares with others
 * is named after the file that defines it: session_event_time is in
 * session.h/session.c, gc_events_start in gc_events.c, ruby_vm_frame_iseq
 * in ruby_vm.h; the session's state itself is `session`. Each file's
 * init is <file>_init. The core's names start with tg_.
 *
 * Dependencies run one way: no two files call each other. Each file's
 * header comment lists what it uses; test_binding_layout.rb checks the
 * #include lines for cycles. The order, from the bottom:
 *   ruby_vm.h, block_frames, public_frames, native_call_tree, dot_text, number_text
 *   ruby_vm_probe, frame_share <- ruby_vm.h
 *   vm_event_flags <- libruby_memory.h
 *   newobj_fast_path
 *   iseq_untrace <- ruby_vm.h, libruby_memory.h
 *   session <- ruby_vm.h, block_frames
 *   naming <- session.h (the method_key type)
 *   event_hook, gc_events, alloc_events <- session (+ block_frames, public_frames)
 *   start_stop <- everything above that records
 *   tracegraph.c <- every init
 */
#include <ruby.h>

#include "dot_text.h"
#include "event_hook.h"
#include "frame_share.h"
#include "iseq_untrace.h"
#include "naming.h"
#include "native_call_tree.h"
#include "newobj_fast_path.h"
#include "number_text.h"
#include "ruby_vm_probe.h"
#include "session.h"
#include "start_stop.h"
#include "vm_event_flags.h"

RUBY_FUNC_EXPORTED void Init_tracegraph(void)
{
    VALUE mTracegraph = rb_define_module("Tracegraph");
    VALUE eError = rb_define_class_under(mTracegraph, "Error", rb_eStandardError);

    session_init(mTracegraph);
    naming_init(mTracegraph);
    event_hook_init(mTracegraph);
    start_stop_init(mTracegraph, eError);
    dot_text_init(mTracegraph);
    native_call_tree_init(mTracegraph, eError);
    vm_event_flags_init(mTracegraph);
    iseq_untrace_init(mTracegraph);
    newobj_fast_path_init(mTracegraph);
    number_text_init(mTracegraph);
    ruby_vm_probe_init(mTracegraph);
    frame_share_init(mTracegraph);
}

/*
 * ruby_vm_probe.c - the probe that checks every VM read in ruby_vm.h
 * before the hook trusts it, and the probe's own state.
 *
 * Tracegraph::FrameProbe (lib/tracegraph/frame_probe.rb) makes calls of
 * known shapes; the probe hook records each Ruby call event and checks
 * the reads it can check on the spot. It listens to Ruby calls only: a
 * C-call hook, even a brief one, leaves Ruby's instruction sequences
 * instrumented for C calls (and slower) for good.
 *
 * Uses: ruby_vm_probe.h, ruby_vm.h (inline readers), core tg_stride.h.
 */
#include "ruby_vm_probe.h"

#include <stdlib.h>
#include <string.h>

#define VM_PROBE_EVENTS 10
static struct probe_state {
    int count;
    bool ok;
    uint64_t cfp[VM_PROBE_EVENTS];
    const void *ec[VM_PROBE_EVENTS];
    ID mid[VM_PROBE_EVENTS];
    VALUE block_iseq;      /* the iseq in instance_exec's block frame */
    VALUE matched_me;      /* matched's method entry, at its call */
} probe_state;

/* What the last probe found, for Tracegraph._vm_probe_verdict. */
static enum { NOT_PROBED, CHECKED, TURNED_OFF, NOT_RECOGNISED } verdict = NOT_PROBED;

/* The frame size, from outer's and inner's frames (events 1 and 2); 0
 * before they were seen or if they are not in order. */
static uint64_t probe_frame_size(const struct probe_state *st)
{
    return st->count > 2 && st->cfp[1] > st->cfp[2] ? st->cfp[1] - st->cfp[2] : 0;
}

/* The frame kinds that calls of known shapes leave live below the event
 * (see ruby_vm_probe_layout for the calls); checked while those frames exist. */
static bool probe_shapes_ok(int i, struct probe_state *st)
{
    uint64_t size = probe_frame_size(st);
    uint64_t cfp = st->cfp[i];
    switch (i) {
    case 0: case 1: case 2: case 3: case 6:   /* plain method frames */
        return ruby_vm_frame_kind_at(cfp) == VM_FRAME_RUBY_METHOD;
    case 4:   /* inner, below instance_exec's block and instance_exec */
        if (size && ruby_vm_frame_kind_at(cfp + size) == VM_FRAME_BLOCK)
            st->block_iseq = ruby_vm_frame_iseq(cfp + size);
        return size && ruby_vm_frame_kind_at(cfp) == VM_FRAME_RUBY_METHOD && ruby_vm_is_iseq(st->block_iseq) &&
               ruby_vm_frame_kind_at(cfp + size) == VM_FRAME_BLOCK &&
               ruby_vm_frame_kind_at(cfp + 2 * size) == VM_FRAME_C_METHOD &&
               ruby_vm_frame_kind_at(cfp + 3 * size) == VM_FRAME_RUBY_METHOD;
    case 5:   /* a define_method method */
        return ruby_vm_frame_kind_at(cfp) == VM_FRAME_RUBY_METHOD && ruby_vm_frame_is_bmethod(cfp);
    case 7:   /* matched, before it sets $~ */
        st->matched_me = ruby_vm_frame_method_entry((const void *)(uintptr_t)cfp);
        return ruby_vm_frame_kind_at(cfp) == VM_FRAME_RUBY_METHOD;
    case 8:   /* inner, called by matched after it set $~: its entry is found through the svar */
        return size && ruby_vm_frame_kind_at(cfp) == VM_FRAME_RUBY_METHOD && st->matched_me &&
               ruby_vm_frame_method_entry((const void *)(uintptr_t)(cfp + size)) == st->matched_me;
    default:
        return false;
    }
}

static void probe_hook(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    struct probe_state *st = &probe_state;
    const struct ruby_vm_trace_arg *head = ruby_vm_trace_arg(arg);
    if (st->count >= VM_PROBE_EVENTS) {
        st->ok = false;
        return;
    }
    int i = st->count++;
    st->cfp[i] = (uint64_t)(uintptr_t)head->cfp;
    st->ec[i] = head->ec;
    /* The trace arg's fields, against Ruby's own accessors (which fill in
     * id and klass for Ruby methods, at the offsets we read). */
    VALUE klass = rb_tracearg_defined_class(arg);
    st->mid[i] = ruby_vm_symbol_id(rb_tracearg_method_id(arg));
    if (head->event != rb_tracearg_event_flag(arg) || head->self != rb_tracearg_self(arg) || head->klass != klass ||
        head->id != st->mid[i] || !head->cfp || !head->ec)
        st->ok = false;
    /* The execution context: its cfp is this frame, inside its stack. */
    const struct ruby_vm_execution_context *ec = head->ec;
    if (st->ok && (ec->cfp != head->cfp || (uint64_t)(uintptr_t)ec->vm_stack > st->cfp[i] ||
                   st->cfp[i] >= ruby_vm_stack_end(ec)))
        st->ok = false;
    /* A Ruby method's frame holds its method entry, owned by its class
     * (a define_method's block frame holds it too), and frames are of
     * the kinds the calls' shapes say. */
    if (st->ok) {
        VALUE me = ruby_vm_frame_method_entry(head->cfp);
        if (!me || ruby_vm_method_entry_owner(me) != klass || !probe_shapes_ok(i, st)) st->ok = false;
    }
}

static VALUE run_frame_probe(VALUE probe)
{
    return rb_funcall(probe, rb_intern("run"), 0);
}

/* FrameProbe.run calls, in order:
 *   outer -> inner                      (method frames, one slot apart)
 *   through_c -> instance_exec { inner } (method, C method, block, method;
 *                                        the block frame holds its iseq)
 *   bmethod -> inner                    (a define_method method)
 *   matched -> inner                    (matched set $~ first: its entry
 *                                        now sits in an svar) */
ruby_vm_layout ruby_vm_probe_layout(VALUE probe)
{
    ruby_vm_layout layout = {0};
    const char *off = getenv("TRACEGRAPH_NO_VM_READS");
    verdict = TURNED_OFF;
    if (off && *off && strcmp(off, "0") != 0) return layout;
    verdict = NOT_RECOGNISED;   /* until every check below has passed */

    struct probe_state *st = &probe_state;
    memset(st, 0, sizeof *st);
    st->ok = true;
    rb_add_event_hook2((rb_event_hook_func_t)(void (*)(void))probe_hook, RUBY_EVENT_CALL, Qnil,
                       RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
    int state = 0;
    rb_protect(run_frame_probe, probe, &state);
    rb_remove_event_hook((rb_event_hook_func_t)(void (*)(void))probe_hook);
    if (state) rb_jump_tag(state);

    /* Events: run, outer, inner, through_c, inner, bmethod, inner, matched, inner. */
    static const char *const expected[] = {"run", "outer", "inner", "through_c", "inner", "bmethod", "inner", "matched", "inner"};
    const int n = (int)(sizeof expected / sizeof *expected);
    if (!st->ok || st->count != n) return layout;
    for (int i = 0; i < n; i++)
        if (st->mid[i] != rb_intern(expected[i]) || st->ec[i] != st->ec[0]) return layout;

    const uint64_t *cfp = st->cfp;
    uint64_t size = probe_frame_size(st);
    if (size < 4 * sizeof(void *) || size > 32 * sizeof(void *) || size % sizeof(void *)) return layout;
    uint64_t end = ruby_vm_stack_end(st->ec[0]);
    /* Frames are whole slots from the stack's end, and each call is one
     * slot below its caller (three below, through instance_exec's C frame
     * and block frame). */
    bool shapes = (end - cfp[0]) % size == 0 && cfp[0] - cfp[1] == size && cfp[0] - cfp[3] == size &&
                  cfp[0] - cfp[5] == size && cfp[3] - cfp[4] == 3 * size && cfp[5] - cfp[6] == size &&
                  cfp[0] - cfp[7] == size && cfp[7] - cfp[8] == size;
    if (!shapes) return layout;
    /* The block frame's iseq is the block's: Ruby names it so, from the
     * probe's file (read here, outside the hook). */
    VALUE label = rb_profile_frame_label(st->block_iseq), path = rb_profile_frame_path(st->block_iseq);
    if (!RB_TYPE_P(label, T_STRING) || strncmp(RSTRING_PTR(label), "block in ", 9) != 0 ||
        !RB_TYPE_P(path, T_STRING) || RSTRING_LEN(path) < 14 ||
        memcmp(RSTRING_PTR(path) + RSTRING_LEN(path) - 14, "frame_probe.rb", 14) != 0)
        return layout;
    layout.trusted = true;
    verdict = CHECKED;
    layout.frame_size = size;
    tg_stride_init(&layout.frames, size);
    return layout;
}

/* Tracegraph._vm_probe_verdict: :checked (the hook reads the VM),
 * :turned_off (TRACEGRAPH_NO_VM_READS) or :not_recognised (this Ruby's
 * layout failed a check), the last two meaning the public API only; nil
 * before the first start has probed. */
static VALUE vm_probe_verdict_method(VALUE mod)
{
    (void)mod;
    switch (verdict) {
    case CHECKED: return ID2SYM(rb_intern("checked"));
    case TURNED_OFF: return ID2SYM(rb_intern("turned_off"));
    case NOT_RECOGNISED: return ID2SYM(rb_intern("not_recognised"));
    default: return Qnil;
    }
}

void ruby_vm_probe_init(VALUE mTracegraph)
{
    rb_define_singleton_method(mTracegraph, "_vm_probe_verdict", vm_probe_verdict_method, 0);
}

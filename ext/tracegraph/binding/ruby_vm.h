/*
 * ruby_vm.h - every read tracegraph makes of Ruby's VM internals, and the
 * probe that checks them before they are trusted.
 *
 * Included by tracegraph.c only (after ruby.h). The hook reads a few
 * private structures because the public API costs far more per event, or
 * cannot answer at all (where a frame sits on the VM stack). Each read is
 * listed here with what it mirrors; docs/internals/vm-internals.md has
 * the table per Ruby version, and what 4.0 and master change.
 *
 * Nothing here is used until vm_probe() has run at the first start and
 * found every layout as described. If anything differs, or if the user
 * set TRACEGRAPH_NO_VM_READS, the hook uses only Ruby's public API
 * (rb_tracearg_*): counts stay exact, but frame positions are off, so
 * stacks are kept by matching method names (see tg_profiler.h).
 */
#ifndef TRACEGRAPH_RUBY_VM_H
#define TRACEGRAPH_RUBY_VM_H

#include <stdlib.h>
#include <ruby.h>
#include <ruby/debug.h>

#include "tg_stride.h"

/* 1. rb_trace_arg_t (vm_core.h, struct rb_trace_arg_struct): opaque, but
 * it begins with these fields. For C calls and returns Ruby fills in id
 * and klass before the hook runs; for Ruby methods they stay 0 until
 * rb_tracearg_defined_class looks at the frame. */
struct vm_trace_arg {
    rb_event_flag_t event;
    const void *ec;        /* rb_execution_context_t *: one per fiber */
    const void *cfp;       /* rb_control_frame_t *: where the event happens */
    VALUE self;
    ID id;
    ID called_id;
    VALUE klass;
};

static inline const struct vm_trace_arg *vm_trace_arg(rb_trace_arg_t *arg)
{
    return (const struct vm_trace_arg *)arg;
}

/* 2. rb_execution_context_t (vm_core.h): its first three fields. Control
 * frames are pushed downwards from the end of the VM stack, so the live
 * frames of the running fiber are [cfp, vm_stack + vm_stack_size). */
struct vm_execution_context {
    VALUE *vm_stack;
    size_t vm_stack_size;  /* in VALUEs */
    const void *cfp;
};

static inline uint64_t vm_stack_end(const void *ec)
{
    const struct vm_execution_context *e = ec;
    return (uint64_t)(uintptr_t)(e->vm_stack + e->vm_stack_size);
}

/* 3. rb_control_frame_t (vm_core.h): pc, sp, iseq, self, ep, ... Its
 * size is measured by the probe (two nested calls), not assumed. ep is
 * the fifth word; the environment it points at holds the frame's flags
 * at ep[0] (VM_ENV_DATA_INDEX_FLAGS) and its method entry or cref at
 * ep[-2] (VM_ENV_DATA_INDEX_ME_CREF). */
#define VM_CFP_EP_WORD 4
#define VM_EP_FLAGS 0
#define VM_EP_ME_CREF (-2)

static inline const VALUE *vm_frame_ep(uint64_t cfp)
{
    return ((const VALUE *const *)(uintptr_t)cfp)[VM_CFP_EP_WORD];
}

/* 4. Frame types (vm_core.h, enum VM_FRAME_MAGIC_*), in ep[0]. A method
 * made by define_method runs in a block frame flagged BMETHOD. */
#define VM_FRAME_MAGIC_MASK 0x7fff0001
#define VM_FRAME_MAGIC_METHOD 0x11110001
#define VM_FRAME_MAGIC_BLOCK 0x22220001
#define VM_FRAME_MAGIC_CFUNC 0x55550001
#define VM_FRAME_FLAG_BMETHOD 0x0040

/* The imemo type (internal/imemo.h) sits in the 4 bits above the flags
 * Ruby reserves (FL_USHIFT). */
#define VM_IMEMO_TYPE_MASK ((VALUE)0x0f << RUBY_FL_USHIFT)

/* VM_FRAME_BLOCK: a block's own frame (not a define_method method's). */
typedef enum vm_frame_kind { VM_FRAME_OTHER, VM_FRAME_RUBY_METHOD, VM_FRAME_C_METHOD, VM_FRAME_BLOCK } vm_frame_kind;

static inline vm_frame_kind vm_frame_kind_at(uint64_t cfp)
{
    VALUE flags = vm_frame_ep(cfp)[VM_EP_FLAGS];
    switch (flags & VM_FRAME_MAGIC_MASK) {
    case VM_FRAME_MAGIC_METHOD: return VM_FRAME_RUBY_METHOD;
    case VM_FRAME_MAGIC_CFUNC: return VM_FRAME_C_METHOD;
    case VM_FRAME_MAGIC_BLOCK: return (flags & VM_FRAME_FLAG_BMETHOD) ? VM_FRAME_RUBY_METHOD : VM_FRAME_BLOCK;
    default: return VM_FRAME_OTHER;
    }
}

/* Is the frame at cfp a define_method method's body (a block frame
 * flagged BMETHOD)? Its b_call and b_return are the method's own call and
 * return again: tracegraph counts the method, not a block. */
static inline bool vm_frame_is_bmethod(uint64_t cfp)
{
    return (vm_frame_ep(cfp)[VM_EP_FLAGS] & VM_FRAME_FLAG_BMETHOD) != 0;
}

/* 3b. The frame's instruction sequence, rb_control_frame_t.iseq: the
 * third word (after pc and sp) on every version; master renames it
 * _iseq. For a block frame it is the block's own iseq (an imemo_iseq,
 * internal/imemo.h type 7), the same object at every call of that block:
 * tracegraph keys blocks by it. */
#define VM_CFP_ISEQ_WORD 2
#define VM_IMEMO_ISEQ ((VALUE)7 << RUBY_FL_USHIFT)

static inline VALUE vm_frame_iseq(uint64_t cfp)
{
    return ((const VALUE *)(uintptr_t)cfp)[VM_CFP_ISEQ_WORD];
}

static inline bool vm_is_iseq(VALUE v)
{
    return v && !RB_SPECIAL_CONST_P(v) &&
           (RBASIC(v)->flags & (RUBY_T_MASK | VM_IMEMO_TYPE_MASK)) == (RUBY_T_IMEMO | VM_IMEMO_ISEQ);
}

/* 5. The method entry in a Ruby method's frame: ep[-2] is an imemo_ment
 * (internal/imemo.h: the imemo type sits in the 4 bits above the flags
 * Ruby reserves, FL_USHIFT), unless the method used $~ (an svar) or the
 * slot holds a cref. rb_method_entry_t (method.h) is flags,
 * defined_class, def, called_id, owner. */
#define VM_IMEMO_MENT ((VALUE)6 << RUBY_FL_USHIFT)
#define VM_ME_OWNER_WORD 4

/* The method entry of the Ruby method whose frame is at cfp, or 0 (then
 * the caller asks Ruby the slow way). */
static inline VALUE vm_frame_method_entry(const void *cfp)
{
    VALUE v = vm_frame_ep((uint64_t)(uintptr_t)cfp)[VM_EP_ME_CREF];
    if (RB_SPECIAL_CONST_P(v)) return 0;
    return (RBASIC(v)->flags & (RUBY_T_MASK | VM_IMEMO_TYPE_MASK)) == (RUBY_T_IMEMO | VM_IMEMO_MENT) ? v : 0;
}

static inline VALUE vm_method_entry_owner(VALUE me)
{
    return ((const VALUE *)me)[VM_ME_OWNER_WORD];
}

/* rb_tracearg_method_id answers a Symbol, or nil. */
static inline ID vm_symbol_id(VALUE sym)
{
    return SYMBOL_P(sym) ? SYM2ID(sym) : 0;
}

/* What the probe found; all zero (public API only) until it has run. */
typedef struct vm_layout {
    bool trusted;          /* every read above checked out */
    uint64_t frame_size;   /* bytes per control frame; 0 when not trusted */
    tg_stride frames;      /* divisibility by frame_size */
} vm_layout;

/* ---- the probe --------------------------------------------------------- */

/* Tracegraph::FrameProbe (lib/tracegraph/frame_probe.rb) makes calls of
 * known shapes; the probe hook records each Ruby call event and checks
 * the reads it can check on the spot. It listens to Ruby calls only: a
 * C-call hook, even a brief one, leaves Ruby's instruction sequences
 * instrumented for C calls (and slower) for good. */
#define VM_PROBE_EVENTS 8
static struct vm_probe_state {
    int count;
    bool ok;
    uint64_t cfp[VM_PROBE_EVENTS];
    const void *ec[VM_PROBE_EVENTS];
    ID mid[VM_PROBE_EVENTS];
    VALUE block_iseq;      /* the iseq in instance_exec's block frame */
} vm_probe_state;

/* The frame size, from outer's and inner's frames (events 1 and 2); 0
 * before they were seen or if they are not in order. */
static uint64_t vm_probe_frame_size(const struct vm_probe_state *st)
{
    return st->count > 2 && st->cfp[1] > st->cfp[2] ? st->cfp[1] - st->cfp[2] : 0;
}

/* The frame kinds that calls of known shapes leave live below the event
 * (see vm_probe for the calls); checked while those frames exist. */
static bool vm_probe_shapes_ok(int i, struct vm_probe_state *st)
{
    uint64_t size = vm_probe_frame_size(st);
    uint64_t cfp = st->cfp[i];
    switch (i) {
    case 0: case 1: case 2: case 3: case 6:   /* plain method frames */
        return vm_frame_kind_at(cfp) == VM_FRAME_RUBY_METHOD;
    case 4:   /* inner, below instance_exec's block and instance_exec */
        if (size && vm_frame_kind_at(cfp + size) == VM_FRAME_BLOCK) st->block_iseq = vm_frame_iseq(cfp + size);
        return size && vm_frame_kind_at(cfp) == VM_FRAME_RUBY_METHOD && vm_is_iseq(st->block_iseq) &&
               vm_frame_kind_at(cfp + size) == VM_FRAME_BLOCK &&
               vm_frame_kind_at(cfp + 2 * size) == VM_FRAME_C_METHOD &&
               vm_frame_kind_at(cfp + 3 * size) == VM_FRAME_RUBY_METHOD;
    case 5:   /* a define_method method */
        return vm_frame_kind_at(cfp) == VM_FRAME_RUBY_METHOD && vm_frame_is_bmethod(cfp);
    default:
        return false;
    }
}

static void vm_probe_hook(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    struct vm_probe_state *st = &vm_probe_state;
    const struct vm_trace_arg *head = vm_trace_arg(arg);
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
    st->mid[i] = vm_symbol_id(rb_tracearg_method_id(arg));
    if (head->event != rb_tracearg_event_flag(arg) || head->self != rb_tracearg_self(arg) || head->klass != klass ||
        head->id != st->mid[i] || !head->cfp || !head->ec)
        st->ok = false;
    /* The execution context: its cfp is this frame, inside its stack. */
    const struct vm_execution_context *ec = head->ec;
    if (st->ok && (ec->cfp != head->cfp || (uint64_t)(uintptr_t)ec->vm_stack > st->cfp[i] ||
                   st->cfp[i] >= vm_stack_end(ec)))
        st->ok = false;
    /* A Ruby method's frame holds its method entry, owned by its class
     * (a define_method's block frame holds it too), and frames are of
     * the kinds the calls' shapes say. */
    if (st->ok) {
        VALUE me = vm_frame_method_entry(head->cfp);
        if (!me || vm_method_entry_owner(me) != klass || !vm_probe_shapes_ok(i, st)) st->ok = false;
    }
}

static VALUE vm_probe_run(VALUE probe)
{
    return rb_funcall(probe, rb_intern("run"), 0);
}

/* Checks every read against calls of known shapes and returns what can be
 * trusted. FrameProbe.run calls, in order:
 *   outer -> inner                      (method frames, one slot apart)
 *   through_c -> instance_exec { inner } (method, C method, block, method;
 *                                        the block frame holds its iseq)
 *   bmethod -> inner                    (a define_method method) */
static vm_layout vm_probe(VALUE probe)
{
    vm_layout layout = {0};
    const char *off = getenv("TRACEGRAPH_NO_VM_READS");
    if (off && *off && strcmp(off, "0") != 0) return layout;

    struct vm_probe_state *st = &vm_probe_state;
    memset(st, 0, sizeof *st);
    st->ok = true;
    rb_add_event_hook2((rb_event_hook_func_t)(void (*)(void))vm_probe_hook, RUBY_EVENT_CALL, Qnil,
                       RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
    int state = 0;
    rb_protect(vm_probe_run, probe, &state);
    rb_remove_event_hook((rb_event_hook_func_t)(void (*)(void))vm_probe_hook);
    if (state) rb_jump_tag(state);

    /* Events: run, outer, inner, through_c, inner, bmethod, inner. */
    static const char *const expected[] = {"run", "outer", "inner", "through_c", "inner", "bmethod", "inner"};
    const int n = (int)(sizeof expected / sizeof *expected);
    if (!st->ok || st->count != n) return layout;
    for (int i = 0; i < n; i++)
        if (st->mid[i] != rb_intern(expected[i]) || st->ec[i] != st->ec[0]) return layout;

    const uint64_t *cfp = st->cfp;
    uint64_t size = vm_probe_frame_size(st);
    if (size < 4 * sizeof(void *) || size > 32 * sizeof(void *) || size % sizeof(void *)) return layout;
    uint64_t end = vm_stack_end(st->ec[0]);
    /* Frames are whole slots from the stack's end, and each call is one
     * slot below its caller (three below, through instance_exec's C frame
     * and block frame). */
    bool shapes = (end - cfp[0]) % size == 0 && cfp[0] - cfp[1] == size && cfp[0] - cfp[3] == size &&
                  cfp[0] - cfp[5] == size && cfp[3] - cfp[4] == 3 * size && cfp[5] - cfp[6] == size;
    if (!shapes) return layout;
    /* The block frame's iseq is the block's: Ruby names it so, from the
     * probe's file (read here, outside the hook). */
    VALUE label = rb_profile_frame_label(st->block_iseq), path = rb_profile_frame_path(st->block_iseq);
    if (!RB_TYPE_P(label, T_STRING) || strncmp(RSTRING_PTR(label), "block in ", 9) != 0 ||
        !RB_TYPE_P(path, T_STRING) || RSTRING_LEN(path) < 14 ||
        memcmp(RSTRING_PTR(path) + RSTRING_LEN(path) - 14, "frame_probe.rb", 14) != 0)
        return layout;
    layout.trusted = true;
    layout.frame_size = size;
    tg_stride_init(&layout.frames, size);
    return layout;
}

#endif

/*
 * ruby_vm.h - every read tracegraph makes of Ruby's VM internals, as
 * inline readers (no state here); ruby_vm_probe.c checks them before they
 * are trusted.
 *
 * Included after ruby.h. The hook reads a few private structures because
 * the public API costs far more per event, or cannot answer at all (where
 * a frame sits on the VM stack). Each read is listed here with what it
 * mirrors; docs/internals/vm-internals.md has the table per Ruby version,
 * and what 4.0 and master change.
 *
 * Nothing here is used until ruby_vm_probe_layout() has run at the first
 * start and found every layout as described. If anything differs, or if
 * the user set TRACEGRAPH_NO_VM_READS, the hook uses only Ruby's public
 * API (rb_tracearg_*): counts stay exact, but frame positions are off, so
 * stacks are kept by matching method names (see tg_profiler.h).
 *
 * Uses: core tg_stride.h.
 */
#ifndef TRACEGRAPH_RUBY_VM_H
#define TRACEGRAPH_RUBY_VM_H

#include <ruby.h>
#include <ruby/debug.h>

#include "tg_stride.h"

/* 1. rb_trace_arg_t (vm_core.h, struct rb_trace_arg_struct): opaque, but
 * it begins with these fields. For C calls and returns Ruby fills in id
 * and klass before the hook runs; for Ruby methods they stay 0 until
 * rb_tracearg_defined_class looks at the frame. */
struct ruby_vm_trace_arg {
    rb_event_flag_t event;
    const void *ec;        /* rb_execution_context_t *: one per fiber */
    const void *cfp;       /* rb_control_frame_t *: where the event happens */
    VALUE self;
    ID id;
    ID called_id;
    VALUE klass;
};

static inline const struct ruby_vm_trace_arg *ruby_vm_trace_arg(rb_trace_arg_t *arg)
{
    return (const struct ruby_vm_trace_arg *)arg;
}

/* The execution context: one per fiber, so a cheap key for "same thread
 * and fiber as the last event". */
static inline const void *ruby_vm_trace_ec(rb_trace_arg_t *arg)
{
    return ruby_vm_trace_arg(arg)->ec;
}

/* The control frame where the event happens, as an address. */
static inline uint64_t ruby_vm_trace_cfp(rb_trace_arg_t *arg)
{
    return (uint64_t)(uintptr_t)ruby_vm_trace_arg(arg)->cfp;
}

/* 2. rb_execution_context_t (vm_core.h): its first three fields. Control
 * frames are pushed downwards from the end of the VM stack, so the live
 * frames of the running fiber are [cfp, vm_stack + vm_stack_size). */
struct ruby_vm_execution_context {
    VALUE *vm_stack;
    size_t vm_stack_size;  /* in VALUEs */
    const void *cfp;
};

static inline uint64_t ruby_vm_stack_end(const void *ec)
{
    const struct ruby_vm_execution_context *e = ec;
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

static inline const VALUE *ruby_vm_frame_ep(uint64_t cfp)
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

/* A heap object's type and imemo type, to compare with RUBY_T_IMEMO |
 * VM_IMEMO_<type>; any other object's type compares unequal. */
static inline VALUE ruby_vm_imemo_type(VALUE v)
{
    return RBASIC(v)->flags & (RUBY_T_MASK | VM_IMEMO_TYPE_MASK);
}

/* VM_FRAME_BLOCK: a block's own frame (not a define_method method's). */
typedef enum ruby_vm_frame_kind {
    VM_FRAME_OTHER, VM_FRAME_RUBY_METHOD, VM_FRAME_C_METHOD, VM_FRAME_BLOCK
} ruby_vm_frame_kind;

static inline ruby_vm_frame_kind ruby_vm_frame_kind_at(uint64_t cfp)
{
    VALUE flags = ruby_vm_frame_ep(cfp)[VM_EP_FLAGS];
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
static inline bool ruby_vm_frame_is_bmethod(uint64_t cfp)
{
    return (ruby_vm_frame_ep(cfp)[VM_EP_FLAGS] & VM_FRAME_FLAG_BMETHOD) != 0;
}

/* 3b. The frame's instruction sequence, rb_control_frame_t.iseq: the
 * third word (after pc and sp) on every version; master renames it
 * _iseq. For a block frame it is the block's own iseq (an imemo_iseq,
 * internal/imemo.h type 7), the same object at every call of that block:
 * tracegraph keys blocks by it. */
#define VM_CFP_ISEQ_WORD 2
#define VM_IMEMO_ISEQ ((VALUE)7 << RUBY_FL_USHIFT)

static inline VALUE ruby_vm_frame_iseq(uint64_t cfp)
{
    return ((const VALUE *)(uintptr_t)cfp)[VM_CFP_ISEQ_WORD];
}

static inline bool ruby_vm_is_iseq(VALUE v)
{
    return v && !RB_SPECIAL_CONST_P(v) &&
           ruby_vm_imemo_type(v) == (RUBY_T_IMEMO | VM_IMEMO_ISEQ);
}

/* 5. The method entry in a Ruby method's frame: ep[-2] is an imemo_ment
 * (internal/imemo.h: the imemo type sits in the 4 bits above the flags
 * Ruby reserves, FL_USHIFT), unless the slot holds a cref, or the method
 * has set $~ or $_: then ep[-2] is an imemo_svar (struct vm_svar in
 * vm_core.h: flags, cref_or_me, lastline, backref, others), which keeps
 * the entry that was there in its second word. rb_method_entry_t
 * (method.h) is flags, defined_class, def, called_id, owner. */
#define VM_IMEMO_MENT ((VALUE)6 << RUBY_FL_USHIFT)
#define VM_IMEMO_SVAR ((VALUE)2 << RUBY_FL_USHIFT)
#define VM_SVAR_CREF_OR_ME_WORD 1
#define VM_ME_OWNER_WORD 4

/* The method entry of the Ruby method whose frame is at cfp, or 0 (then
 * the caller asks Ruby the slow way). Through an svar too: every return
 * of a method that matched a regexp ($~) would otherwise take the slow
 * way, several hundred ns (coderay's scanner: one event in 32). */
static inline VALUE ruby_vm_frame_method_entry(const void *cfp)
{
    VALUE v = ruby_vm_frame_ep((uint64_t)(uintptr_t)cfp)[VM_EP_ME_CREF];
    if (RB_SPECIAL_CONST_P(v)) return 0;
    VALUE type = ruby_vm_imemo_type(v);
    if (type == (RUBY_T_IMEMO | VM_IMEMO_SVAR)) {
        v = ((const VALUE *)v)[VM_SVAR_CREF_OR_ME_WORD];
        if (RB_SPECIAL_CONST_P(v)) return 0;
        type = ruby_vm_imemo_type(v);
    }
    return type == (RUBY_T_IMEMO | VM_IMEMO_MENT) ? v : 0;
}

static inline VALUE ruby_vm_method_entry_owner(VALUE me)
{
    return ((const VALUE *)me)[VM_ME_OWNER_WORD];
}

/* rb_tracearg_method_id answers a Symbol, or nil. */
static inline ID ruby_vm_symbol_id(VALUE sym)
{
    return SYMBOL_P(sym) ? SYM2ID(sym) : 0;
}

/* 6. rb_iseq_t (vm_core.h, struct rb_iseq_struct): flags, wrapper, body,
 * then the union aux, which for a sequence that can run is aux.exec:
 * local_hooks (a targeted TracePoint's hooks, or NULL) and
 * global_trace_events (the events its instructions were last traced
 * for). The body (struct rb_iseq_constant_body) begins with type,
 * iseq_size and iseq_encoded (instruction addresses and operands). The
 * same on 3.1 to 4.0; iseq_untrace.c checks them on a throwaway sequence
 * before it writes. ISEQ_NOT_LOADED_YET and ISEQ_USE_COMPILE_DATA (iseq.h:
 * IMEMO_FL_USER1 and 2, which are FL_USER5 and 6) mark a sequence that
 * cannot run yet. */
#define VM_ISEQ_BODY_WORD 2
#define VM_ISEQ_LOCAL_HOOKS_WORD 3
#define VM_ISEQ_GLOBAL_EVENTS_WORD 4
#define VM_ISEQ_NOT_EXECUTABLE ((VALUE)(RUBY_FL_USER5 | RUBY_FL_USER6))

struct ruby_vm_iseq_body_head {
    int type;
    unsigned int iseq_size;
    VALUE *iseq_encoded;
};

static inline struct ruby_vm_iseq_body_head *ruby_vm_iseq_body(const void *iseq)
{
    return ((struct ruby_vm_iseq_body_head *const *)iseq)[VM_ISEQ_BODY_WORD];
}

static inline bool ruby_vm_iseq_executable(const void *iseq)
{
    return !(((const VALUE *)iseq)[0] & VM_ISEQ_NOT_EXECUTABLE);
}

static inline const void *ruby_vm_iseq_local_hooks(const void *iseq)
{
    return ((const void *const *)iseq)[VM_ISEQ_LOCAL_HOOKS_WORD];
}

static inline rb_event_flag_t ruby_vm_iseq_global_events(const void *iseq)
{
    return *(const rb_event_flag_t *)((const VALUE *)iseq + VM_ISEQ_GLOBAL_EVENTS_WORD);
}

/* What rb_iseq_trace_set(iseq, 0) leaves of a sequence without local
 * hooks, but the walk over its instructions (which keeps traced ones
 * traced): a record that it is traced for no event. */
static inline void ruby_vm_iseq_clear_global_events(void *iseq)
{
    *(rb_event_flag_t *)((VALUE *)iseq + VM_ISEQ_GLOBAL_EVENTS_WORD) = 0;
}

/* What the probe found (ruby_vm_probe.h); all zero (public API only)
 * until it has run. */
typedef struct ruby_vm_layout {
    bool trusted;          /* every read above checked out */
    uint64_t frame_size;   /* bytes per control frame; 0 when not trusted */
    tg_stride frames;      /* divisibility by frame_size */
} ruby_vm_layout;

#endif

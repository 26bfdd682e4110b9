/*
 * vm_event_flags.c - Ruby's records of which events hooks want, found in
 * its memory, so that C methods can be traced without Ruby rewriting its
 * inlined operators into calls.
 *
 * Why. Ruby runs `i + 1`, `a[i]`, `x == y` and the other basic operators
 * as single instructions (opt_plus, opt_aref, ...), without a call. Every
 * such instruction carries the c_call and c_return events, and the first
 * time any hook asks for those events Ruby rewrites every instruction
 * sequence in the process (vm_trace.c, update_global_event_hook ->
 * rb_iseq_trace_set_all): each operator becomes trace_opt_*, which Ruby
 * then always runs as a full method call (the trace instruction template
 * dispatches to opt_send_without_block). That makes an arithmetic loop
 * 12-30 times slower while it is profiled, and the rewrite is never
 * undone (encoded_iseq_trace_instrument keeps a traced instruction
 * traced), so the loop stays 2.4-4 times slower for the rest of the
 * process. Code compiled later is rewritten too, because Ruby remembers
 * in ruby_vm_event_enabled_global_flags that the events were ever on.
 *
 * The rewrite happens only when a hook's events are new to that "ever
 * enabled" record. So start_stop.c sets its C bits before adding the
 * C-event hook (nothing is rewritten), and clears them again right after
 * (instructions compiled while profiling, or after, are not rewritten).
 * Real calls of C methods still fire their events: Ruby checks its live
 * record, ruby_vm_event_flags, on every C call (vm_call_cfunc_with_frame).
 * Operators that Ruby runs inline stay inline and fire nothing, as they
 * cost nothing as calls in the unprofiled program.
 *
 * Finding the records. Ruby 3.1 exports ruby_vm_event_enabled_global_flags;
 * 3.3 and 3.4 keep both records private. The probe (once per process)
 * snapshots libruby's writable memory, adds and removes two throwaway
 * hooks of events that no instruction carries (thread_begin and
 * script_compiled, so nothing is rewritten), and keeps the one 32-bit word
 * that gains each bit as its hook is added and keeps it after removal
 * (the "ever" record), and the one that gains and loses them (the live
 * record). Anything but exactly one of each: not found, and the default
 * falls back to Ruby methods only (start_stop.c). The probe restores the
 * two bits it set in the "ever" record.
 *
 * Putting back. Once every hook of ours is gone and
 * iseq_untrace.c has turned every instruction back into its plain form,
 * vm_event_flags_clear_traced() clears the instruction events from the
 * "ever" record, so that code compiled later is plain too, and the next
 * hook's events are new to Ruby again (it rewrites the instructions for
 * them as the first time).
 *
 * Uses: vm_event_flags.h, libruby_memory.h. Nothing calls back.
 */
/* ruby/config.h defines _GNU_SOURCE (for dl_iterate_phdr and
 * RTLD_DEFAULT) before the system headers below. */
#include "vm_event_flags.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libruby_memory.h"

static bool probed;
static uint32_t *ever;   /* ruby_vm_event_enabled_global_flags; NULL: not found */
static uint32_t *live;   /* ruby_vm_event_flags */

#define PROBE_A RUBY_EVENT_THREAD_BEGIN
#define PROBE_B RUBY_EVENT_SCRIPT_COMPILED

static void probe_hook_a(rb_event_flag_t e, VALUE d, VALUE s, ID m, VALUE k)
{
    (void)e, (void)d, (void)s, (void)m, (void)k;
}

static void probe_hook_b(rb_event_flag_t e, VALUE d, VALUE s, ID m, VALUE k)
{
    (void)e, (void)d, (void)s, (void)m, (void)k;
}

static void snapshot(const libruby_memory_regions *f, uint32_t *into)
{
    for (int i = 0; i < f->count; i++) {
        memcpy(into, f->regions[i].start, f->regions[i].words * 4);
        into += f->regions[i].words;
    }
}

static uint32_t *word_at(const libruby_memory_regions *f, size_t index)
{
    for (int i = 0; i < f->count; i++) {
        if (index < f->regions[i].words) return f->regions[i].start + index;
        index -= f->regions[i].words;
    }
    return NULL;
}

/* ---- the probe ----------------------------------------------------------- */

static void probe(void)
{
    const rb_event_flag_t both = PROBE_A | PROBE_B;
    libruby_memory_regions f = libruby_memory_writable_regions();
    size_t n = libruby_memory_total_words(&f);
    if (n == 0 || n > (64u << 20) / 4) return;
    uint32_t *s = malloc(5 * n * sizeof *s);
    if (!s) return;
    /* No Ruby code runs between the snapshots: we hold the GVL and add
     * hooks only. */
    snapshot(&f, s);
    rb_add_event_hook(probe_hook_a, PROBE_A, Qnil);
    snapshot(&f, s + n);
    rb_add_event_hook(probe_hook_b, PROBE_B, Qnil);
    snapshot(&f, s + 2 * n);
    rb_remove_event_hook(probe_hook_a);
    snapshot(&f, s + 3 * n);
    rb_remove_event_hook(probe_hook_b);
    snapshot(&f, s + 4 * n);

    size_t ever_at = SIZE_MAX, live_at = SIZE_MAX;
    int ever_found = 0, live_found = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t w0 = s[i], w1 = s[n + i], w2 = s[2 * n + i], w3 = s[3 * n + i], w4 = s[4 * n + i];
        if ((w0 & both) || w1 != (w0 | PROBE_A) || w2 != (w1 | PROBE_B)) continue;
        if (w3 == w2 && w4 == w2) ever_at = i, ever_found++;
        else if (w3 == (w2 & ~(uint32_t)PROBE_A) && w4 == w0) live_at = i, live_found++;
    }
    free(s);
    if (ever_found != 1 || live_found != 1) return;
    uint32_t *e = word_at(&f, ever_at);
    *e &= ~(uint32_t)both;   /* as it was: the probe's bits were never set */
    ever = e;
    live = word_at(&f, live_at);
}

bool vm_event_flags_found(void)
{
    if (!probed) {
        probed = true;
        if (!getenv("TRACEGRAPH_NO_EVENT_FLAGS")) probe();
    }
    return ever != NULL;
}

rb_event_flag_t vm_event_flags_c_ever(void)
{
    return ever ? (*ever & VM_EVENT_FLAGS_C) : VM_EVENT_FLAGS_C;
}

bool vm_event_flags_now(rb_event_flag_t *ever_now, rb_event_flag_t *live_now)
{
    if (!ever) return false;
    *ever_now = *ever;
    *live_now = *live;
    return true;
}

void vm_event_flags_clear_traced(void)
{
    if (ever) *ever &= ~(uint32_t)VM_EVENT_FLAGS_ISEQ;
}

void vm_event_flags_set_c_ever(rb_event_flag_t bits)
{
    if (ever) *ever = (*ever & ~(uint32_t)VM_EVENT_FLAGS_C) | (uint32_t)(bits & VM_EVENT_FLAGS_C);
}

/* Tracegraph._event_flags_probe, for tests: nil if the records were not
 * found; else whether the "ever" record is at the address of the symbol
 * Ruby 3.1 exports (true or false), or :unexported on Rubies without it. */
static VALUE event_flags_probe(VALUE mod)
{
    (void)mod;
    if (!vm_event_flags_found()) return Qnil;
    void *exported = dlsym(RTLD_DEFAULT, "ruby_vm_event_enabled_global_flags");
    if (!exported) return ID2SYM(rb_intern("unexported"));
    return exported == (void *)ever ? Qtrue : Qfalse;
}

void vm_event_flags_init(VALUE mTracegraph)
{
    rb_define_singleton_method(mTracegraph, "_event_flags_probe", event_flags_probe, 0);
}

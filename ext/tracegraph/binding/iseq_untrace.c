/*
 * iseq_untrace.c - puts Ruby's instructions back the way they were before
 * a profile, once no hook wants their events.
 *
 * Why. The first time a hook asks for call and return events, Ruby
 * rewrites every loaded instruction sequence, turning each instruction
 * that carries one of the hook's events into its trace_ form (vm_trace.c,
 * update_global_event_hook -> rb_iseq_trace_set_all), and compiles later
 * code traced too. It never rewrites them back: rb_iseq_trace_set keeps a
 * traced instruction traced (encoded_iseq_trace_instrument with
 * remain_current_trace). A trace_ instruction costs the interpreter
 * little, but YJIT has no code for it, so every method it compiles exits
 * to the interpreter at its entry and return: after one profile, a YJIT
 * process ran 1.4 to 14 times slower for the rest of its life (issue 43).
 *
 * How. Ruby's table of instruction addresses (vm_exec.c,
 * insns_address_table: each instruction's address in RubyVM's order,
 * the trace_ forms included) is private, but it is found by what it
 * holds: the probe compiles a throwaway sequence, reads its instructions'
 * numbers with rb_iseq_original_iseq and their addresses in
 * iseq_encoded, traces it with rb_iseq_trace_set, and looks in libruby's
 * memory for the one array whose entries are those addresses at those
 * numbers. The names Ruby exports for debuggers (rb_vm_insn_name_base)
 * pair each trace_X with X, and rb_vm_insn_len_info gives each
 * instruction's length. The probe then untraces the throwaway sequence
 * and checks that every instruction is plain and every operand as it
 * was. Anything unexpected, and nothing is written, ever.
 *
 * Untracing is then what Ruby itself does when a targeted TracePoint goes
 * (iseq.c, iseq_remove_local_tracepoint): write each instruction's plain
 * address over its trace_ one, in place, operands untouched. For each
 * sequence it first clears Ruby's record of what the sequence is traced
 * for (aux.exec.global_trace_events), as rb_iseq_trace_set(iseq, 0) does,
 * so that the next hook's rb_iseq_trace_set_all traces it again. Sequences a targeted
 * TracePoint watches (aux.exec.local_hooks) are left as they are.
 * Operand-free, a trace_ form and its plain form have the same length,
 * so the sequence is valid at every step; we hold the GVL, and frames
 * running in a sequence go on at their pc, as after Ruby's own rewrite.
 *
 * The fused opt_invokebuiltin_delegate_leave (a builtin method's body
 * and its return) is traced as trace_opt_invokebuiltin_delegate followed
 * by trace_leave (iseq.c, rb_vm_encoded_insn_data_table_init), so its
 * plain form is fused again where a leave follows, as compile.c fuses it.
 *
 * Uses: iseq_untrace.h, ruby_vm.h (the sequence's layout),
 * libruby_memory.h. Nothing calls back.
 */
#include "iseq_untrace.h"

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libruby_memory.h"
#include "ruby_vm.h"

typedef VALUE *original_iseq_fn(const void *iseq);
typedef void trace_set_fn(const void *iseq, rb_event_flag_t events);
typedef const void *iseqw_to_iseq_fn(VALUE iseqw);
typedef void each_objects_fn(int (*callback)(void *, void *, size_t, void *), void *data);
typedef void invalidate_fn(void);

#define NONE UINT32_MAX

/* What the probe found; written once. */
static struct {
    bool probed;
    const char *unsure;             /* NULL: trusted */
    const VALUE *addresses;         /* insns_address_table: count entries */
    uint32_t count;                 /* VM_INSTRUCTION_SIZE */
    const uint8_t *lengths;         /* rb_vm_insn_len_info */
    uint32_t *plain;                /* plain[k]: k's untraced form (k if it is not a trace_ form) */
    uint32_t *traced;               /* traced[k]: k's trace_ form (NONE for a trace_ form) */
    bool *shared;                   /* shared[k]: k is a trace_ form whose address another one has too */
    VALUE *keys;                    /* address -> instruction, open addressing */
    uint32_t *values;
    size_t mask;
    uint32_t delegate, delegate_leave, leave;
    trace_set_fn *trace_set;
    each_objects_fn *each_objects;
    invalidate_fn *yjit_invalidate; /* NULL on a Ruby without YJIT */
} vm;

/* ---- the instruction tables --------------------------------------------- */

/* The size of the exported object `name`, from the dynamic symbol table. */
static size_t symbol_size(const void *addr)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym) return 0;
    return sym->st_size;
}

static const char *insn_name(const char *base, const unsigned short *offsets, uint32_t k)
{
    return base + offsets[k];
}

static uint32_t insn_by_name(const char *base, const unsigned short *offsets, const char *name)
{
    for (uint32_t k = 0; k < vm.count; k++)
        if (strcmp(insn_name(base, offsets, k), name) == 0) return k;
    return NONE;
}

/* Reads the exported tables: how many instructions, their lengths, and
 * which is whose trace_ form. NULL, or why not. */
static const char *read_insn_tables(void)
{
    const uint8_t *lengths = dlsym(RTLD_DEFAULT, "rb_vm_insn_len_info");
    const char *base = dlsym(RTLD_DEFAULT, "rb_vm_insn_name_base");
    const unsigned short *offsets = dlsym(RTLD_DEFAULT, "rb_vm_insn_name_offset");
    if (!lengths || !base || !offsets) return "this Ruby does not export its instruction tables";
    size_t count = symbol_size(lengths), names = symbol_size(base);
    if (count < 2 || count > 4096 || symbol_size(offsets) != count * sizeof *offsets || names == 0)
        return "this Ruby's instruction tables are not the expected size";
    vm.count = (uint32_t)count;
    vm.lengths = lengths;
    for (uint32_t k = 0; k < vm.count; k++)
        if (offsets[k] >= names || !memchr(base + offsets[k], 0, names - offsets[k]) || lengths[k] == 0)
            return "this Ruby's instruction names are not as expected";
    vm.plain = malloc(vm.count * sizeof *vm.plain);
    vm.traced = malloc(vm.count * sizeof *vm.traced);
    vm.shared = calloc(vm.count, sizeof *vm.shared);
    if (!vm.plain || !vm.traced || !vm.shared) return "out of memory";
    for (uint32_t k = 0; k < vm.count; k++) vm.plain[k] = k, vm.traced[k] = NONE;
    uint32_t pairs = 0;
    for (uint32_t k = 0; k < vm.count; k++) {
        const char *name = insn_name(base, offsets, k);
        if (strncmp(name, "trace_", 6) != 0) continue;
        uint32_t p = insn_by_name(base, offsets, name + 6);
        if (p == NONE || p == k || lengths[p] != lengths[k] || vm.traced[p] != NONE)
            return "this Ruby's trace_ instructions do not pair with plain ones";
        vm.plain[k] = p;
        vm.traced[p] = k;
        pairs++;
    }
    if (pairs == 0) return "this Ruby has no trace_ instructions";
    vm.delegate = insn_by_name(base, offsets, "opt_invokebuiltin_delegate");
    vm.delegate_leave = insn_by_name(base, offsets, "opt_invokebuiltin_delegate_leave");
    vm.leave = insn_by_name(base, offsets, "leave");
    return NULL;
}

static size_t hash_slot(VALUE address)
{
    return (size_t)((address >> 3) * 0x9E3779B97F4A7C15ull >> 20) & vm.mask;
}

/* The instruction at `address`, or NONE. */
static uint32_t insn_at(VALUE address)
{
    for (size_t i = hash_slot(address);; i = (i + 1) & vm.mask) {
        if (vm.keys[i] == address) return vm.values[i];
        if (vm.keys[i] == 0) return NONE;
    }
}

static const char *index_addresses(void)
{
    size_t capacity = 16;
    while (capacity < 4 * (size_t)vm.count) capacity *= 2;
    vm.keys = calloc(capacity, sizeof *vm.keys);
    vm.values = calloc(capacity, sizeof *vm.values);
    if (!vm.keys || !vm.values) return "out of memory";
    vm.mask = capacity - 1;
    for (uint32_t k = 0; k < vm.count; k++) {
        VALUE a = vm.addresses[k];
        if (a == 0) return "the instruction table has a null entry";
        uint32_t first = insn_at(a);
        if (first != NONE) {
            /* The compiler may merge trace_ forms whose code is the same:
             * the operators', which all go on to opt_send_without_block
             * (tool/ruby_vm/views/_trace_instruction.erb). Their plain
             * form cannot be told from the address: they stay traced. */
            if (vm.plain[k] == k || vm.plain[first] == first || vm.lengths[k] != vm.lengths[first])
                return "the instruction table has a repeated entry";
            vm.shared[k] = vm.shared[first] = true;
            continue;
        }
        size_t i = hash_slot(a);
        while (vm.keys[i]) i = (i + 1) & vm.mask;
        vm.keys[i] = a;
        vm.values[i] = k;
    }
    return NULL;
}

/* ---- finding insns_address_table ---------------------------------------- */

/* One instruction seen in the probe's sequence: its plain number (from
 * rb_iseq_original_iseq) and its address then. */
typedef struct seen_insn {
    uint32_t insn;
    VALUE address;
} seen_insn;

static bool table_fits(const VALUE *table, const seen_insn *seen, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t k = seen[i].insn, t = vm.traced[k];
        if (table[k] != seen[i].address && (t == NONE || table[t] != seen[i].address)) return false;
    }
    return true;
}

/* The one array in libruby's writable memory that holds every address
 * seen at its instruction's number (or its trace_ form's), or NULL. */
static const VALUE *find_address_table(const seen_insn *seen, size_t n)
{
    libruby_memory_regions f = libruby_memory_writable_regions();
    const VALUE *found = NULL;
    int matches = 0;
    for (int r = 0; r < f.count; r++) {
        uintptr_t lo = ((uintptr_t)f.regions[r].start + 7) & ~(uintptr_t)7;
        uintptr_t hi = ((uintptr_t)(f.regions[r].start + f.regions[r].words)) & ~(uintptr_t)7;
        for (const VALUE *w = (const VALUE *)lo; (uintptr_t)(w + 1) <= hi; w++) {
            if (*w != seen[0].address) continue;
            uint32_t at[2] = {seen[0].insn, vm.traced[seen[0].insn]};
            for (int c = 0; c < 2; c++) {
                if (at[c] == NONE || (uintptr_t)w < lo + at[c] * sizeof(VALUE)) continue;
                const VALUE *table = w - at[c];
                if ((uintptr_t)(table + vm.count) > hi) continue;
                if (table_fits(table, seen, n) && table != found) found = table, matches++;
            }
        }
    }
    return matches == 1 ? found : NULL;
}

/* ---- untracing one sequence --------------------------------------------- */

/* Makes every instruction of `iseq` plain, but those whose trace_ form
 * is shared (left traced, counted in *kept); how many were traced, or -1
 * if an address is not an instruction's (the sequence is left as it is
 * from there on). */
static long untrace_one(const void *iseq, size_t *kept)
{
    struct ruby_vm_iseq_body_head *body = ruby_vm_iseq_body(iseq);
    VALUE *code = body->iseq_encoded;
    unsigned int size = body->iseq_size;
    long changed = 0;
    for (unsigned int pc = 0; pc < size;) {
        uint32_t k = insn_at(code[pc]);
        if (k == NONE) return -1;
        uint32_t p = vm.plain[k];
        unsigned int len = vm.lengths[p];
        if (vm.shared[k]) {
            (*kept)++;
        }
        else if (p != k) {
            VALUE plain = vm.addresses[p];
            if (p == vm.delegate && vm.delegate_leave != NONE && pc + len < size) {
                uint32_t next = insn_at(code[pc + len]);
                if (next != NONE && vm.plain[next] == vm.leave) plain = vm.addresses[vm.delegate_leave];
            }
            code[pc] = plain;
            changed++;
        }
        pc += len;
    }
    return changed;
}

/* How many instructions of `iseq` are traced (shared trace_ forms too);
 * -1 if one is unknown. */
static long traced_in(const void *iseq)
{
    struct ruby_vm_iseq_body_head *body = ruby_vm_iseq_body(iseq);
    long traced = 0;
    for (unsigned int pc = 0; pc < body->iseq_size;) {
        uint32_t k = insn_at(body->iseq_encoded[pc]);
        if (k == NONE) return -1;
        if (vm.plain[k] != k) traced++;
        pc += vm.lengths[k];
    }
    return traced;
}

/* ---- the probe ----------------------------------------------------------- */

/* Lines, a method call, an operator and a block: instructions with events
 * (traced) and without (never traced). */
static const char PROBE_SOURCE[] = "x = 1\ny = [x, x + 2]\ny.each { |z| z }\ny.size\n";
/* Not the C events: they trace the operators, whose trace_ forms may be
 * shared (index_addresses). */
#define PROBE_EVENTS (RUBY_EVENT_LINE | RUBY_EVENT_CALL | RUBY_EVENT_RETURN | RUBY_EVENT_B_CALL | RUBY_EVENT_B_RETURN)

static VALUE compile_probe(VALUE source)
{
    VALUE cISeq = rb_path2class("RubyVM::InstructionSequence");
    return rb_funcall(cISeq, rb_intern("compile"), 1, source);
}

/* Walks the probe's sequence as rb_iseq_original_iseq numbers it, checking
 * the operands are the same words; the instructions seen, appended. */
static const char *read_probe(const void *iseq, const VALUE *original, seen_insn *seen, size_t *n)
{
    struct ruby_vm_iseq_body_head *body = ruby_vm_iseq_body(iseq);
    unsigned int pc = 0;
    while (pc < body->iseq_size) {
        VALUE k = original[pc];
        if (k >= vm.count || vm.plain[k] != k) return "the probe's instruction numbers are not plain instructions";
        unsigned int len = vm.lengths[k];
        if (pc + len > body->iseq_size) return "the probe's instructions overrun its sequence";
        for (unsigned int i = 1; i < len; i++)
            if (body->iseq_encoded[pc + i] != original[pc + i]) return "the probe's operands are not where expected";
        seen[(*n)++] = (seen_insn){(uint32_t)k, body->iseq_encoded[pc]};
        pc += len;
    }
    return pc == body->iseq_size ? NULL : "the probe's sequence does not end on an instruction";
}

static const char *probe(void)
{
    if (getenv("TRACEGRAPH_NO_UNTRACE")) return "TRACEGRAPH_NO_UNTRACE is set";
    if (sizeof(VALUE) != 8) return "not a 64-bit Ruby";
    original_iseq_fn *original_iseq = (original_iseq_fn *)dlsym(RTLD_DEFAULT, "rb_iseq_original_iseq");
    iseqw_to_iseq_fn *iseqw_to_iseq = (iseqw_to_iseq_fn *)dlsym(RTLD_DEFAULT, "rb_iseqw_to_iseq");
    vm.trace_set = (trace_set_fn *)dlsym(RTLD_DEFAULT, "rb_iseq_trace_set");
    vm.each_objects = (each_objects_fn *)dlsym(RTLD_DEFAULT, "rb_objspace_each_objects");
    vm.yjit_invalidate = (invalidate_fn *)dlsym(RTLD_DEFAULT, "rb_yjit_tracing_invalidate_all");
    if (!original_iseq || !iseqw_to_iseq || !vm.trace_set || !vm.each_objects)
        return "this Ruby does not export the functions that trace instruction sequences";
    const char *why = read_insn_tables();
    if (why) return why;

    int state = 0;
    VALUE wrapper = rb_protect(compile_probe, rb_str_new_cstr(PROBE_SOURCE), &state);
    if (state) {
        rb_set_errinfo(Qnil);
        return "the probe's code did not compile";
    }
    const void *iseq = iseqw_to_iseq(wrapper);
    if (!ruby_vm_is_iseq((VALUE)iseq) || !ruby_vm_iseq_executable(iseq) || ruby_vm_iseq_local_hooks(iseq))
        return "the probe's instruction sequence is not as expected";
    struct ruby_vm_iseq_body_head *body = ruby_vm_iseq_body(iseq);
    unsigned int size = body->iseq_size;
    if (size == 0 || size > 4096) return "the probe's instruction sequence has an unexpected size";
    const VALUE *original = original_iseq(iseq);
    seen_insn *seen = malloc(2 * size * sizeof *seen);
    VALUE *before = malloc(size * sizeof *before);
    if (!original || !seen || !before) {
        free(seen), free(before);
        return "out of memory";
    }
    memcpy(before, body->iseq_encoded, size * sizeof *before);
    size_t n = 0;
    why = read_probe(iseq, original, seen, &n);
    if (!why) {
        vm.trace_set(iseq, PROBE_EVENTS);
        if (ruby_vm_iseq_global_events(iseq) != PROBE_EVENTS) why = "the probe's traced events are not where expected";
    }
    if (!why) why = read_probe(iseq, original, seen, &n);
    if (!why && !(vm.addresses = find_address_table(seen, n))) why = "the instruction table was not found beyond doubt";
    if (!why) why = index_addresses();
    if (!why) {
        /* Both forms must have been seen, and untracing must give back
         * every plain instruction and every operand. */
        long traced = traced_in(iseq);
        if (traced <= 0) why = "tracing the probe changed none of its instructions";
    }
    if (!why) {
        ruby_vm_iseq_clear_global_events((void *)iseq);
        vm.trace_set(iseq, PROBE_EVENTS);   /* not the same events now: Ruby sets them again */
        if (ruby_vm_iseq_global_events(iseq) != PROBE_EVENTS) why = "the probe's traced events are not where expected";
    }
    if (!why) {
        vm.trace_set(iseq, 0);
        size_t kept = 0;
        if (ruby_vm_iseq_global_events(iseq) != 0 || untrace_one(iseq, &kept) <= 0 || kept || traced_in(iseq) != 0)
            why = "untracing the probe did not make it plain";
    }
    for (unsigned int pc = 0; !why && pc < size;) {
        uint32_t k = (uint32_t)original[pc];
        if (body->iseq_encoded[pc] != vm.addresses[k] && !(k == vm.delegate && body->iseq_encoded[pc] == vm.addresses[vm.delegate_leave]))
            why = "an untraced instruction of the probe is not its plain form";
        for (unsigned int i = 1; !why && i < vm.lengths[k]; i++)
            if (body->iseq_encoded[pc + i] != before[pc + i]) why = "untracing the probe changed an operand";
        pc += vm.lengths[k];
    }
    free(seen);
    free(before);
    RB_GC_GUARD(wrapper);
    return why;
}

const char *iseq_untrace_unsure(void)
{
    if (!vm.probed) {
        vm.probed = true;
        vm.unsure = probe();
    }
    return vm.unsure;
}

/* ---- every sequence in the heap ------------------------------------------ */

typedef struct untrace_walk {
    iseq_untrace_counts *counts;
    const char *failed;
} untrace_walk;

static int untrace_each(void *start, void *end, size_t stride, void *data)
{
    untrace_walk *w = data;
    for (VALUE v = (VALUE)start; v != (VALUE)end; v += stride) {
        if (!ruby_vm_is_iseq(v) || !ruby_vm_iseq_executable((const void *)v)) continue;
        w->counts->iseqs++;
        if (ruby_vm_iseq_local_hooks((const void *)v)) {
            w->counts->kept++;
            continue;
        }
        /* As rb_iseq_trace_set(iseq, 0), without its walk over the
         * instructions, which costs a hash lookup each (the probe checked
         * that both write the same word). */
        ruby_vm_iseq_clear_global_events((void *)v);
        long n = untrace_one((const void *)v, &w->counts->kept_instructions);
        if (n < 0) {
            w->failed = "an instruction sequence holds an address that is no instruction's";
            return 1;   /* stops the walk */
        }
        w->counts->instructions += (size_t)n;
    }
    return 0;
}

const char *iseq_untrace_all(iseq_untrace_counts *counts)
{
    memset(counts, 0, sizeof *counts);
    const char *why = iseq_untrace_unsure();
    if (why) return why;
    untrace_walk w = {counts, NULL};
    vm.each_objects(untrace_each, &w);
    /* Even after a failure: what was untraced must be compiled again. */
    if (vm.yjit_invalidate) {
        vm.yjit_invalidate();
        counts->yjit_invalidated = true;
    }
    return w.failed;
}

long iseq_untrace_traced_in(VALUE iseqw)
{
    if (iseq_untrace_unsure()) return -1;
    iseqw_to_iseq_fn *iseqw_to_iseq = (iseqw_to_iseq_fn *)dlsym(RTLD_DEFAULT, "rb_iseqw_to_iseq");
    const void *iseq = iseqw_to_iseq(iseqw);
    if (!ruby_vm_is_iseq((VALUE)iseq) || !ruby_vm_iseq_executable(iseq)) return -1;
    return traced_in(iseq);
}

/* Tracegraph._traced_instructions(iseq), for tests: how many of the
 * sequence's instructions are in their trace_ form now; nil if unsure. */
static VALUE traced_instructions(VALUE mod, VALUE iseqw)
{
    (void)mod;
    long n = iseq_untrace_traced_in(iseqw);
    return n < 0 ? Qnil : LONG2NUM(n);
}

/* Tracegraph._untrace_unsure, for tests: nil where untracing is trusted,
 * else why not. */
static VALUE untrace_unsure(VALUE mod)
{
    (void)mod;
    const char *why = iseq_untrace_unsure();
    return why ? rb_str_new_cstr(why) : Qnil;
}

void iseq_untrace_init(VALUE mTracegraph)
{
    rb_define_singleton_method(mTracegraph, "_traced_instructions", traced_instructions, 1);
    rb_define_singleton_method(mTracegraph, "_untrace_unsure", untrace_unsure, 0);
}

/*
 * alloc_events.c - objects allocated, counted on the running stack (see
 * alloc_events.h for the rules of this hook).
 *
 * NEWOBJ fires once per object Ruby allocates (newobj_init on 3.1, 3.3
 * and 3.4; T_IMEMO objects of the VM's own caches included), which is
 * also where GC.stat(:total_allocated_objects) counts, so the two agree.
 * It never fires inside the collector: a collection the allocation
 * triggers runs before the event, and its frames (tg_gc.h) are closed by
 * then, so they own no allocations. Ruby 3.1, 3.3 and 3.4 all send every
 * allocation down the allocator's slow path while a NEWOBJ hook is
 * installed, which is most of what allocations: true costs.
 *
 * Uses: alloc_events.h, session.h (the allocating context, inline), core
 * tg_profiler.h. Calls no file that calls it.
 */
#include "alloc_events.h"

#include "session.h"

/* The type buckets (tg_allocation_types), and the names users read them
 * by. An object's builtin type is a flag read: RB_BUILTIN_TYPE of the
 * new object, whose flags and class newobj_init has set before the event
 * on 3.1, 3.3 and 3.4 (its other fields may still be zero). A Proc is a
 * T_DATA, told apart by its class, rb_cProc (a subclass of Proc counts as
 * C data); Ruby's Data classes (3.2+) are T_STRUCT. T_IMEMO objects are
 * the VM's own: inline caches, environments captured by blocks, method
 * entries, parse and compile scratch. */
enum {
    TYPE_OTHER, TYPE_STRING, TYPE_ARRAY, TYPE_HASH, TYPE_OBJECT, TYPE_PROC, TYPE_STRUCT, TYPE_NUMERIC,
    TYPE_REGEXP, TYPE_CLASS, TYPE_DATA, TYPE_IMEMO
};
_Static_assert(TYPE_IMEMO + 1 == TG_ALLOCATION_TYPES, "one bucket per tg_allocation_types count");

static const char *const type_names[TG_ALLOCATION_TYPES] = {
    [TYPE_OTHER] = "Other",             /* IO (T_FILE), dynamic Symbols, anything else */
    [TYPE_STRING] = "String",
    [TYPE_ARRAY] = "Array",
    [TYPE_HASH] = "Hash",
    [TYPE_OBJECT] = "Object",           /* T_OBJECT: instances of Ruby classes, exceptions */
    [TYPE_PROC] = "Proc",               /* procs and lambdas, blocks made objects */
    [TYPE_STRUCT] = "Struct",           /* Struct and Data instances */
    [TYPE_NUMERIC] = "Numeric",         /* heap Floats, Bignums, Rationals, Complexes */
    [TYPE_REGEXP] = "Regexp/MatchData", /* regexps and their matches */
    [TYPE_CLASS] = "Class/Module",      /* classes, modules, singleton classes, included modules */
    [TYPE_DATA] = "C data",             /* other T_DATA: Time, Enumerator, Method, Thread, extensions' */
    [TYPE_IMEMO] = "VM internal",       /* T_IMEMO */
};

/* By builtin type (RB_BUILTIN_TYPE is at most RUBY_T_MASK); a table
 * rather than a switch, so the hook has a load where a switch has an
 * indirect jump. The types not listed are TYPE_OTHER (0). */
static const uint8_t bucket_of_type[RUBY_T_MASK + 1] = {
    [RUBY_T_STRING] = TYPE_STRING,   [RUBY_T_ARRAY] = TYPE_ARRAY,       [RUBY_T_HASH] = TYPE_HASH,
    [RUBY_T_OBJECT] = TYPE_OBJECT,   [RUBY_T_DATA] = TYPE_DATA,         [RUBY_T_STRUCT] = TYPE_STRUCT,
    [RUBY_T_FLOAT] = TYPE_NUMERIC,   [RUBY_T_BIGNUM] = TYPE_NUMERIC,    [RUBY_T_RATIONAL] = TYPE_NUMERIC,
    [RUBY_T_COMPLEX] = TYPE_NUMERIC, [RUBY_T_REGEXP] = TYPE_REGEXP,     [RUBY_T_MATCH] = TYPE_REGEXP,
    [RUBY_T_CLASS] = TYPE_CLASS,     [RUBY_T_MODULE] = TYPE_CLASS,      [RUBY_T_ICLASS] = TYPE_CLASS,
    [RUBY_T_IMEMO] = TYPE_IMEMO,
};

static inline unsigned type_bucket(VALUE obj)
{
    unsigned bucket = bucket_of_type[RB_BUILTIN_TYPE(obj)];
    return bucket == TYPE_DATA && RBASIC_CLASS(obj) == rb_cProc ? TYPE_PROC : bucket;
}

static bool installed;
static tg_profiler *prof;

static void on_newobj(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    tg_context *c = session_allocating_context(arg);
    if (c) tg_profiler_allocation(prof, c, type_bucket(rb_tracearg_object(arg)));
}

VALUE alloc_events_by_type(const tg_allocation_types *types)
{
    VALUE hash = rb_hash_new();
    for (unsigned i = 0; i < TG_ALLOCATION_TYPES; i++)
        if (types->count[i]) rb_hash_aset(hash, rb_interned_str_cstr(type_names[i]), ULL2NUM(types->count[i]));
    return hash;
}

void alloc_events_start(tg_profiler *p)
{
    if (installed) return;
    prof = p;
    rb_add_event_hook2((rb_event_hook_func_t)(void (*)(void))on_newobj, RUBY_INTERNAL_EVENT_NEWOBJ, Qnil,
                       RUBY_EVENT_HOOK_FLAG_SAFE | RUBY_EVENT_HOOK_FLAG_RAW_ARG);
    installed = true;
}

void alloc_events_stop(void)
{
    if (!installed) return;
    rb_remove_event_hook((rb_event_hook_func_t)(void (*)(void))on_newobj);
    installed = false;
}

bool alloc_events_installed(void)
{
    return installed;
}

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
 */
#include "alloc_events.h"

/* The type buckets (tg_allocation_types), and the names users read them
 * by. An object's builtin type is a flag read: RB_BUILTIN_TYPE of the
 * new object, whose flags and class newobj_init has set before the event
 * on 3.1, 3.3 and 3.4 (its other fields may still be zero). A Proc is a
 * T_DATA, told apart by its class, rb_cProc (a subclass of Proc counts as
 * C data); Ruby's Data classes (3.2+) are T_STRUCT. T_IMEMO objects are
 * the VM's own: inline caches, environments captured by blocks, method
 * entries, parse and compile scratch. */
enum {
    TYPE_STRING, TYPE_ARRAY, TYPE_HASH, TYPE_OBJECT, TYPE_PROC, TYPE_STRUCT, TYPE_NUMERIC, TYPE_REGEXP,
    TYPE_CLASS, TYPE_DATA, TYPE_IMEMO, TYPE_OTHER
};
_Static_assert(TYPE_OTHER + 1 == TG_ALLOCATION_TYPES, "one name per bucket");

static const char *const type_names[TG_ALLOCATION_TYPES] = {
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
    [TYPE_OTHER] = "Other",             /* IO (T_FILE), dynamic Symbols, anything else */
};

static unsigned type_bucket(VALUE obj)
{
    switch (RB_BUILTIN_TYPE(obj)) {
    case RUBY_T_STRING: return TYPE_STRING;
    case RUBY_T_ARRAY: return TYPE_ARRAY;
    case RUBY_T_HASH: return TYPE_HASH;
    case RUBY_T_OBJECT: return TYPE_OBJECT;
    case RUBY_T_DATA: return RBASIC_CLASS(obj) == rb_cProc ? TYPE_PROC : TYPE_DATA;
    case RUBY_T_STRUCT: return TYPE_STRUCT;
    case RUBY_T_FLOAT:
    case RUBY_T_BIGNUM:
    case RUBY_T_RATIONAL:
    case RUBY_T_COMPLEX: return TYPE_NUMERIC;
    case RUBY_T_REGEXP:
    case RUBY_T_MATCH: return TYPE_REGEXP;
    case RUBY_T_CLASS:
    case RUBY_T_MODULE:
    case RUBY_T_ICLASS: return TYPE_CLASS;
    case RUBY_T_IMEMO: return TYPE_IMEMO;
    default: return TYPE_OTHER;
    }
}

static bool installed;
static tg_profiler *prof;

static void on_newobj(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    tg_context *c = tracegraph_allocating_context(arg);
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

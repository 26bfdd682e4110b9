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

static bool installed;

static void on_newobj(VALUE data, rb_trace_arg_t *arg)
{
    (void)data;
    tg_context *c = tracegraph_allocating_context(arg);
    if (c) c->allocations++;
}

void alloc_events_start(void)
{
    if (installed) return;
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

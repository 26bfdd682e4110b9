/*
 * newobj_fast_path.c - keeps Ruby 3.1's allocation fast path while the
 * collector's event hooks are on.
 *
 * Why. With gc: true (the default) a profile hooks the collector's events
 * (gc_events.c). Ruby 3.1 then sends every allocation down its slow path:
 * gc.c's newobj_of0 takes the fast one only if the heap's flag has_hook is
 * clear, and rb_objspace_set_event_hook sets that flag whenever any
 * collector event is hooked, though the slow path differs only in firing
 * the allocation event (RUBY_INTERNAL_EVENT_NEWOBJ). An empty Array then
 * took 51 ns instead of 35, inside whichever method allocated it, and
 * nothing took it out: the calibration allocates nothing. Ruby 3.3 and
 * later check for an allocation hook only, and need nothing here.
 *
 * What. After our hooks change (start_stop.c), newobj_fast_path_keep()
 * clears has_hook when no hook (ours or anyone's) wants the allocation
 * event. The collector's other events still fire: gc.c checks them in
 * hook_events, not in has_hook, which only newobj_of0 reads. Any later
 * change of anyone's hooks sets the flag again as Ruby computes it: a
 * TracePoint enabled while we record costs the rest of that recording
 * the slow path again, and stopping leaves Ruby's own value.
 *
 * Finding the flag. Ruby 3.1 keeps it in its private heap record
 * (rb_objspace, gc.c), which ruby_current_vm_ptr (exported) points to
 * from a field we do not know the offset of. The probe (once per process)
 * reads the VM record's words, and for each that could be a pointer reads
 * what it points to (process_vm_readv: a bad address is an error, not a
 * crash), and keeps the one whose head is the heap record's as gc.c lays
 * it out: malloc_increase_bytes_limit and total_allocated_objects equal
 * GC.stat's now. Then, beyond doubt: 16 allocations add exactly 16;
 * adding a throwaway hook of a collector event sets exactly bit 8 of the
 * flags word (has_hook's place in the bit field) and puts the event in
 * hook_events; removing it clears both. Anything else: not found, and
 * nothing here writes.
 *
 * Uses: newobj_fast_path.h. Nothing calls back.
 */
#include "newobj_fast_path.h"

#include <dlfcn.h>
#include <ruby/version.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

#if RUBY_API_VERSION_MAJOR == 3 && RUBY_API_VERSION_MINOR == 1
#define NEWOBJ_FAST_PATH_NEEDED 1
#else
#define NEWOBJ_FAST_PATH_NEEDED 0
#endif

/* The head of Ruby 3.1's rb_objspace (gc.c, MALLOC_ALLOCATED_SIZE off):
 * malloc_params, the flags bit field (one unsigned int), hook_events and
 * total_allocated_objects. */
typedef struct heap_head {
    size_t malloc_limit, malloc_increase;
    uint32_t flags;
    uint32_t hook_events;
    size_t total_allocated_objects;
} heap_head;

#define HAS_HOOK_BIT (1u << 8) /* after mode:2 and six 1-bit flags */
#define VM_SCAN_BYTES 16384
#define PAGE_BYTES 4096

static bool probed;
static heap_head *head; /* NULL: not found, or not needed */

/* Copies `len` bytes at `at` into `into`; false where any is unmapped. */
static bool read_memory(const void *at, void *into, size_t len)
{
    struct iovec local = {into, len}, remote = {(void *)at, len};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len;
}

static void probe_hook(rb_event_flag_t e, VALUE d, VALUE s, ID m, VALUE k)
{
    (void)e, (void)d, (void)s, (void)m, (void)k;
}

/* The one pointer in the VM record's first VM_SCAN_BYTES to a heap
 * record whose counters are GC.stat's now; NULL unless exactly one. */
static heap_head *find_head(void)
{
    void **vm_ptr = dlsym(RTLD_DEFAULT, "ruby_current_vm_ptr");
    if (!vm_ptr || !*vm_ptr) return NULL;
    VALUE limit_key = ID2SYM(rb_intern("malloc_increase_bytes_limit"));
    VALUE total_key = ID2SYM(rb_intern("total_allocated_objects"));
    rb_gc_stat(total_key); /* its first call makes its table of names */
    uintptr_t *words = malloc(VM_SCAN_BYTES);
    if (!words) return NULL;
    /* Nothing allocates a Ruby object from here to the scan's end. */
    size_t limit = rb_gc_stat(limit_key), total = rb_gc_stat(total_key);
    size_t read = 0;
    while (read < VM_SCAN_BYTES && read_memory((char *)*vm_ptr + read, (char *)words + read, PAGE_BYTES))
        read += PAGE_BYTES;
    heap_head *found = NULL;
    int matches = 0;
    for (size_t i = 0; i < read / sizeof *words; i++) {
        heap_head h;
        if (!words[i] || words[i] % sizeof(void *) || !read_memory((void *)words[i], &h, sizeof h)) continue;
        if (h.malloc_limit == limit && h.total_allocated_objects == total) found = (heap_head *)words[i], matches++;
    }
    free(words);
    return matches == 1 ? found : NULL;
}

/* The checks beyond doubt (the header comment) on the record found. */
static bool head_behaves(heap_head *h)
{
    heap_head before, with, after;
    if (!read_memory(h, &before, sizeof before) || before.hook_events) return false;
    for (int i = 0; i < 16; i++) rb_obj_alloc(rb_cObject);
    if (!read_memory(h, &with, sizeof with) || with.total_allocated_objects != before.total_allocated_objects + 16)
        return false;
    before = with;
    rb_add_event_hook(probe_hook, RUBY_INTERNAL_EVENT_GC_EXIT, Qnil);
    bool read_with = read_memory(h, &with, sizeof with);
    rb_remove_event_hook(probe_hook);
    if (!read_with || !read_memory(h, &after, sizeof after)) return false;
    return (before.flags & HAS_HOOK_BIT) == 0 && (with.flags ^ before.flags) == HAS_HOOK_BIT &&
           with.hook_events == RUBY_INTERNAL_EVENT_GC_EXIT && after.flags == before.flags && after.hook_events == 0;
}

bool newobj_fast_path_found(void)
{
    if (!probed) {
        probed = true;
        if (NEWOBJ_FAST_PATH_NEEDED && !getenv("TRACEGRAPH_NO_NEWOBJ_FAST_PATH")) {
            heap_head *h = find_head();
            if (h && head_behaves(h)) head = h;
        }
    }
    return head != NULL;
}

void newobj_fast_path_keep(void)
{
    if (head && !(head->hook_events & RUBY_INTERNAL_EVENT_NEWOBJ)) head->flags &= ~HAS_HOOK_BIT;
}

/* Tracegraph._newobj_fast_path, for tests: nil where not found, not
 * needed, or not probed yet (the first start probes: not here, where our
 * hooks may be on); else whether allocations take the fast path now. */
static VALUE newobj_fast_path_now(VALUE mod)
{
    (void)mod;
    if (!head) return Qnil;
    return (head->flags & HAS_HOOK_BIT) ? Qfalse : Qtrue;
}

void newobj_fast_path_init(VALUE mTracegraph)
{
    rb_define_singleton_method(mTracegraph, "_newobj_fast_path", newobj_fast_path_now, 0);
}

/*
 * libruby_memory.h - the writable segments of libruby as loaded, for the
 * two probes that find Ruby's private data by what it holds
 * (vm_event_flags.c: the event records; iseq_untrace.c: the table of
 * instruction addresses). Inline, no state.
 *
 * The writable PT_LOAD segment also holds .data.rel.ro: tables of
 * pointers that the dynamic linker fills in and then makes read-only
 * (RELRO). Reading them is fine; only vm_event_flags.c writes, and only
 * to the word its probe found in .data or .bss.
 *
 * Uses: nothing of ours.
 */
#ifndef TRACEGRAPH_LIBRUBY_MEMORY_H
#define TRACEGRAPH_LIBRUBY_MEMORY_H

#include <ruby.h>

#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define LIBRUBY_MEMORY_MAX_REGIONS 8

typedef struct libruby_memory_region {
    uint32_t *start;   /* 4-aligned */
    size_t words;      /* 32-bit words */
} libruby_memory_region;

typedef struct libruby_memory_regions {
    uintptr_t inside;   /* an address in libruby's code */
    libruby_memory_region regions[LIBRUBY_MEMORY_MAX_REGIONS];
    int count;
} libruby_memory_regions;

/* dl_iterate_phdr callback: the writable segments of the object whose
 * loaded segments contain `inside` (libruby, or ruby itself if static). */
static inline int libruby_memory_collect_writable(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    libruby_memory_regions *f = data;
    bool ours = false;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == PT_LOAD && f->inside >= lo && f->inside < lo + p->p_memsz) ours = true;
    }
    if (!ours) return 0;
    for (int i = 0; i < info->dlpi_phnum && f->count < LIBRUBY_MEMORY_MAX_REGIONS; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || !(p->p_flags & PF_W)) continue;
        uintptr_t lo = (info->dlpi_addr + p->p_vaddr + 3) & ~(uintptr_t)3;
        uintptr_t hi = (info->dlpi_addr + p->p_vaddr + p->p_memsz) & ~(uintptr_t)3;
        if (hi > lo) f->regions[f->count++] = (libruby_memory_region){(uint32_t *)lo, (hi - lo) / 4};
    }
    return 1;
}

/* libruby's writable segments: none found if count is 0. */
static inline libruby_memory_regions libruby_memory_writable_regions(void)
{
    libruby_memory_regions f = {.inside = (uintptr_t)(void *)rb_add_event_hook, .count = 0};
    dl_iterate_phdr(libruby_memory_collect_writable, &f);
    return f;
}

static inline size_t libruby_memory_total_words(const libruby_memory_regions *f)
{
    size_t n = 0;
    for (int i = 0; i < f->count; i++) n += f->regions[i].words;
    return n;
}

#endif

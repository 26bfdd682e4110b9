/* tg_pairmap.c - see tg_pairmap.h. */
#include "tg_pairmap.h"

#include <stdlib.h>

static tg_pairmap_slot *alloc_slots(size_t capacity)
{
    tg_pairmap_slot *slots = malloc(capacity * sizeof *slots);
    if (!slots) return NULL;
    for (size_t i = 0; i < capacity; i++) slots[i].index = TG_PAIRMAP_NONE;
    return slots;
}

bool tg_pairmap_init(tg_pairmap *m, size_t initial_capacity)
{
    size_t capacity = 16;
    while (capacity < initial_capacity) capacity *= 2;
    m->slots = alloc_slots(capacity);
    m->capacity = m->slots ? capacity : 0;
    m->count = 0;
    return m->slots != NULL;
}

void tg_pairmap_free(tg_pairmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->capacity = m->count = 0;
}

static void place(tg_pairmap_slot *slots, size_t capacity, tg_pairmap_slot entry)
{
    size_t mask = capacity - 1;
    size_t i = tg_pairmap_hash(entry.a, entry.b) & mask;
    while (slots[i].index != TG_PAIRMAP_NONE) i = (i + 1) & mask;
    slots[i] = entry;
}

static bool rehash_into(tg_pairmap *m, size_t capacity)
{
    tg_pairmap_slot *slots = alloc_slots(capacity);
    if (!slots) return false;
    for (size_t i = 0; i < m->capacity; i++)
        if (m->slots[i].index != TG_PAIRMAP_NONE) place(slots, capacity, m->slots[i]);
    free(m->slots);
    m->slots = slots;
    m->capacity = capacity;
    return true;
}

bool tg_pairmap_insert(tg_pairmap *m, uint64_t a, uint64_t b, uint32_t index)
{
    if ((m->count + 1) * 2 > m->capacity && !rehash_into(m, m->capacity * 2)) return false;
    place(m->slots, m->capacity, (tg_pairmap_slot){a, b, index});
    m->count++;
    return true;
}

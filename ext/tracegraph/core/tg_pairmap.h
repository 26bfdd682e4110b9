/*
 * tg_pairmap.h - a hash map from a pair of 64-bit keys to a dense index.
 *
 * The profiler turns (class, method id) into a method index and
 * (caller index, callee index) into an edge index with it. Indexes are
 * handed out 0, 1, 2, ... in insertion order, so callers keep their
 * statistics in plain arrays and the map only answers "which slot".
 *
 * Open addressing with linear probing; the table doubles when it is 1/2
 * full, so lookups stay O(1) and memory grows only with distinct keys.
 * It never shrinks: entries live as long as the profile.
 */
#ifndef TG_PAIRMAP_H
#define TG_PAIRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TG_PAIRMAP_NONE UINT32_MAX

typedef struct tg_pairmap_slot {
    uint64_t a, b;
    uint32_t index;        /* TG_PAIRMAP_NONE marks an empty slot */
} tg_pairmap_slot;

typedef struct tg_pairmap {
    tg_pairmap_slot *slots;
    size_t capacity;       /* always a power of two */
    size_t count;
} tg_pairmap;

bool tg_pairmap_init(tg_pairmap *m, size_t initial_capacity);
void tg_pairmap_free(tg_pairmap *m);

static inline uint64_t tg_pairmap_hash(uint64_t a, uint64_t b)
{
    /* Mix both keys; VALUEs and small indexes have weak low bits. */
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h;
}

/* Returns the index stored for (a, b), or TG_PAIRMAP_NONE. */
static inline uint32_t tg_pairmap_find(const tg_pairmap *m, uint64_t a, uint64_t b)
{
    size_t mask = m->capacity - 1;
    for (size_t i = tg_pairmap_hash(a, b) & mask;; i = (i + 1) & mask) {
        const tg_pairmap_slot *s = &m->slots[i];
        if (s->index == TG_PAIRMAP_NONE) return TG_PAIRMAP_NONE;
        if (s->a == a && s->b == b) return s->index;
    }
}

/* Stores (a, b) -> index; the pair must not be present yet.
 * Returns false when memory runs out (the map is left unchanged). */
bool tg_pairmap_insert(tg_pairmap *m, uint64_t a, uint64_t b, uint32_t index);

#endif

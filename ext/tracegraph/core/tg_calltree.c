/* tg_calltree.c - see tg_calltree.h. */
#include "tg_calltree.h"

#include <stdlib.h>

bool tg_calltree_init(tg_calltree *t, uint32_t max_nodes)
{
    *t = (tg_calltree){.max_nodes = max_nodes < TG_CALLTREE_MAX_NODES ? max_nodes : TG_CALLTREE_MAX_NODES};
    return tg_pairmap_init(&t->index, 1024);
}

void tg_calltree_free(tg_calltree *t)
{
    free(t->nodes);
    free(t->allocations);
    tg_pairmap_free(&t->index);
    *t = (tg_calltree){0};
}

void tg_calltree_count_allocations(tg_calltree *t)
{
    t->count_allocations = true;
}

/* Both arrays grow together; capacity changes only once both have. */
static bool grow(tg_calltree *t)
{
    uint32_t cap = t->capacity ? t->capacity * 2 : 1024;
    tg_calltree_node *bigger = realloc(t->nodes, (size_t)cap * sizeof *bigger);
    if (!bigger) return false;
    t->nodes = bigger;
    if (t->count_allocations) {
        tg_calltree_allocations *counts = realloc(t->allocations, (size_t)cap * sizeof *counts);
        if (!counts) return false;
        t->allocations = counts;
    }
    t->capacity = cap;
    return true;
}

uint32_t tg_calltree_child(tg_calltree *t, uint32_t parent, uint32_t method)
{
    uint32_t node = tg_pairmap_find(&t->index, parent, method);
    if (node != TG_PAIRMAP_NONE) return node;
    /* Bottom frames are always kept (at most one per method and thread),
     * so every folded call has an ancestor to fold into. */
    bool full = t->count >= (tg_calltree_is_root(parent) ? TG_CALLTREE_MAX_NODES : t->max_nodes);
    if (full || (t->count == t->capacity && !grow(t)) ||
        !tg_pairmap_insert(&t->index, parent, method, t->count)) {
        t->folded_calls++;
        return TG_CALLTREE_ROOT;
    }
    t->nodes[t->count] = (tg_calltree_node){.parent = parent, .method = method};
    if (t->count_allocations) t->allocations[t->count] = (tg_calltree_allocations){0};
    return t->count++;
}

bool tg_calltree_valid(const tg_calltree_node *nodes, uint32_t count, uint32_t method_count, uint32_t thread_count)
{
    if (count > TG_CALLTREE_MAX_NODES) return false;   /* indexes would read as roots */
    for (uint32_t i = 0; i < count; i++) {
        const tg_calltree_node *n = &nodes[i];
        if (n->method >= method_count) return false;
        if (tg_calltree_is_root(n->parent) ? tg_calltree_root_thread(n->parent) >= thread_count : n->parent >= i)
            return false;
    }
    return true;
}

/* Node fates in tg_calltree_filter. */
enum { DROPPED, KEPT, HIDDEN_TOP };

uint32_t tg_calltree_filter(const tg_calltree_node *nodes, const tg_calltree_allocations *allocations, uint32_t count,
                            const bool *threads, uint32_t thread_count, const bool *hidden, uint32_t method_count,
                            tg_calltree_node *out, tg_calltree_allocations *out_allocations, uint64_t *hidden_time)
{
    if (!tg_calltree_valid(nodes, count, method_count, thread_count)) return UINT32_MAX;
    uint32_t *renumbered = malloc(((size_t)count + 1) * sizeof *renumbered);
    uint64_t *cut = calloc((size_t)count + 1, sizeof *cut);   /* time left out beneath each node */
    /* objects left out beneath each node, if counted */
    uint64_t *cut_allocations = allocations ? calloc((size_t)count + 1, sizeof *cut_allocations) : NULL;
    uint8_t *fate = malloc((size_t)count + 1);
    if (!renumbered || !cut || !fate || (allocations && !cut_allocations)) {
        free(renumbered);
        free(cut);
        free(cut_allocations);
        free(fate);
        return UINT32_MAX;
    }
    /* Forward: a node lives if its parent does (or its thread is chosen). */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < count; i++) {
        const tg_calltree_node *n = &nodes[i];
        bool root = tg_calltree_is_root(n->parent);
        bool alive = root ? !threads || threads[tg_calltree_root_thread(n->parent)] : fate[n->parent] == KEPT;
        fate[i] = !alive ? DROPPED : hidden && hidden[n->method] ? HIDDEN_TOP : KEPT;
        renumbered[i] = fate[i] == KEPT ? kept++ : UINT32_MAX;
    }
    /* Backward (children after parents): each left-out subtree's time
     * (and objects) climbs to every kept ancestor. */
    for (uint32_t i = count; i-- > 0;) {
        const tg_calltree_node *n = &nodes[i];
        if (fate[i] == DROPPED) continue;
        bool top = fate[i] == HIDDEN_TOP;
        if (top) *hidden_time += n->total_time;
        if (tg_calltree_is_root(n->parent)) continue;
        cut[n->parent] += top ? n->total_time : cut[i];
        if (allocations) cut_allocations[n->parent] += top ? allocations[i].total : cut_allocations[i];
    }
    for (uint32_t i = 0; i < count; i++) {
        if (fate[i] != KEPT) continue;
        tg_calltree_node n = nodes[i];
        if (!tg_calltree_is_root(n.parent)) n.parent = renumbered[n.parent];
        n.total_time = cut[i] < n.total_time ? n.total_time - cut[i] : 0;
        out[renumbered[i]] = n;
        if (allocations) {
            tg_calltree_allocations a = allocations[i];
            a.total = cut_allocations[i] < a.total ? a.total - cut_allocations[i] : 0;
            out_allocations[renumbered[i]] = a;
        }
    }
    free(renumbered);
    free(cut);
    free(cut_allocations);
    free(fate);
    return kept;
}

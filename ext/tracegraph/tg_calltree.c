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
    tg_pairmap_free(&t->index);
    *t = (tg_calltree){0};
}

static bool grow(tg_calltree *t)
{
    uint32_t cap = t->capacity ? t->capacity * 2 : 1024;
    tg_calltree_node *bigger = realloc(t->nodes, (size_t)cap * sizeof *bigger);
    if (!bigger) return false;
    t->nodes = bigger;
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
    return t->count++;
}

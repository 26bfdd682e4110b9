/*
 * tg_graph.c - builds the graph the DOT writers draw (see tg_graph.h).
 *
 * Reads top-down in the order the work happens:
 *   1. adjacency  - caller/callee lists over the links that are calls
 *   2. selection  - which nodes are kept (ignore, focus, node cut, cap)
 *   3. edges      - kept links, then dotted edges for paths through
 *                   hidden nodes, minus the redundant ones, in order
 *
 * Only numbers here; the writers turn them into text.
 */
#include "tg_graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tg_block_names.h"
#include "tg_model.h"

/* ------------------------------------------------------------------ */
/* 1. adjacency                                                       */

/* Compressed adjacency lists holding link indexes, both directions. */
typedef struct adjacency {
    size_t *out_start, *out;   /* out[out_start[m] .. out_start[m+1]): links with caller m */
    size_t *in_start, *in;     /* the same by callee */
} adjacency;

static bool link_valid(const tg_graph_input *in, const tg_graph_link *l)
{
    return l->from < in->node_count && l->to < in->node_count;   /* a broken input must not crash us */
}

/* The links hidden paths and coverage follow: valid calls, not ghosts. A
 * focus follows ghosts too (with_ghosts): a method only the diff's base
 * called is related to its callers there. */
static bool link_is_followed(const tg_graph_input *in, const tg_graph_link *l, bool with_ghosts)
{
    return link_valid(in, l) && (with_ghosts || !l->ghost);
}

static void adjacency_free(adjacency *a)
{
    free(a->out_start);
    free(a->out);
    free(a->in_start);
    free(a->in);
}

static bool adjacency_build(adjacency *a, const tg_graph_input *in, bool with_ghosts)
{
    size_t n = in->node_count;
    a->out_start = calloc(n + 1, sizeof *a->out_start);
    a->in_start = calloc(n + 1, sizeof *a->in_start);
    a->out = malloc((in->link_count + 1) * sizeof *a->out);
    a->in = malloc((in->link_count + 1) * sizeof *a->in);
    if (!a->out_start || !a->in_start || !a->out || !a->in) return false;
    /* Counting sort by endpoint keeps each list in input order. */
    for (size_t i = 0; i < in->link_count; i++) {
        const tg_graph_link *l = &in->links[i];
        if (!link_is_followed(in, l, with_ghosts)) continue;
        a->out_start[l->from + 1]++;
        a->in_start[l->to + 1]++;
    }
    for (size_t m = 0; m < n; m++) {
        a->out_start[m + 1] += a->out_start[m];
        a->in_start[m + 1] += a->in_start[m];
    }
    size_t *out_fill = malloc((n + 1) * sizeof *out_fill);
    size_t *in_fill = malloc((n + 1) * sizeof *in_fill);
    if (!out_fill || !in_fill) {
        free(out_fill);
        free(in_fill);
        return false;
    }
    memcpy(out_fill, a->out_start, (n + 1) * sizeof *out_fill);
    memcpy(in_fill, a->in_start, (n + 1) * sizeof *in_fill);
    for (size_t i = 0; i < in->link_count; i++) {
        const tg_graph_link *l = &in->links[i];
        if (!link_is_followed(in, l, with_ghosts)) continue;
        a->out[out_fill[l->from]++] = i;
        a->in[in_fill[l->to]++] = i;
    }
    free(out_fill);
    free(in_fill);
    return true;
}

/* ------------------------------------------------------------------ */
/* 2. selection                                                       */

/* Sort key for nodes: total desc, self desc, tie desc, name, index. */
typedef struct node_key {
    uint64_t total, self, tie;
    const char *name;
    uint32_t index;
} node_key;

static int compare_nodes(const void *pa, const void *pb)
{
    const node_key *a = pa, *b = pb;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    if (a->self != b->self) return a->self > b->self ? -1 : 1;
    if (a->tie != b->tie) return a->tie > b->tie ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Self desc, then the total order: the hot spots first. */
static int compare_by_self(const void *pa, const void *pb)
{
    const node_key *a = pa, *b = pb;
    if (a->self != b->self) return a->self > b->self ? -1 : 1;
    return compare_nodes(pa, pb);
}

/* The caller of `hub` named `owner`, or UINT32_MAX. */
static uint32_t caller_named(const tg_graph_input *in, const adjacency *a, uint32_t hub, const char *owner)
{
    for (size_t k = a->in_start[hub]; k < a->in_start[hub + 1]; k++) {
        uint32_t from = in->links[a->in[k]].from;
        if (strcmp(in->names[from], owner) == 0) return from;
    }
    return UINT32_MAX;
}

/*
 * Marks the matches' ancestors: the methods a match is reached from, up
 * its callers' chains. A block's caller is often a hub that runs many
 * methods' blocks (Array#each); when the method the block belongs to
 * calls that hub itself, the chain goes on to it alone: the hub's other
 * callers called it with other blocks, and are not on the way to the
 * match. Otherwise (no such call: the hub is reached through something
 * else), every caller is. `expanded` is scratch (n bytes, zeroed).
 */
static bool mark_ancestors(const tg_graph_input *in, const adjacency *a, uint8_t *up, uint8_t *expanded,
                           uint32_t *queue)
{
    size_t n = in->node_count, head = 0, tail = 0, longest = 0;
    for (size_t m = 0; m < n; m++) {
        size_t len = strlen(in->names[m]);
        if (len > longest) longest = len;
    }
    char *owner = malloc(longest + 1);
    if (!owner) return false;
    for (size_t m = 0; m < n; m++) {
        if (in->focus[m]) {
            up[m] = expanded[m] = 1;
            queue[tail++] = (uint32_t)m;
        }
    }
    while (head < tail) {
        uint32_t m = queue[head++];
        bool block = tg_block_owner(in->names[m], owner);
        for (size_t k = a->in_start[m]; k < a->in_start[m + 1]; k++) {
            uint32_t hub = in->links[a->in[k]].from, next = hub;
            uint32_t by_owner = block && hub != m ? caller_named(in, a, hub, owner) : UINT32_MAX;
            if (by_owner != UINT32_MAX && by_owner != hub) {
                up[hub] = 1;   /* on the chain, but only the block's owner is above it */
                next = by_owner;
            }
            if (!expanded[next]) {
                up[next] = expanded[next] = 1;
                queue[tail++] = next;
            }
        }
    }
    free(owner);
    return true;
}

/* A node by its name, to look methods up by name. */
typedef struct named {
    const char *name;
    uint32_t node;
} named;

static int compare_named(const void *pa, const void *pb)
{
    const named *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->node > b->node) - (a->node < b->node);
}

/* The state of the walk down (mark_descendants). */
typedef struct descent {
    const tg_graph_input *in;
    const adjacency *a;
    const uint8_t *up;           /* the matches' ancestors */
    uint8_t *down;               /* reached going down */
    uint32_t *queue;
    size_t tail;
    uint32_t *stopped;           /* ancestors reached going down, not walked through */
    size_t stopped_count;
    named *by_name;              /* the nodes by name, sorted once needed; NULL before */
    char *owner;                 /* scratch for tg_block_owner, as long as the longest name */
} descent;

static void reach_down(descent *d, uint32_t m)
{
    if (d->down[m]) return;
    d->down[m] = 1;
    d->queue[d->tail++] = m;
}

/* Is `m` a block of a method (or block) reached going down? */
static bool owner_reached(descent *d, uint32_t m)
{
    if (!tg_block_owner(d->in->names[m], d->owner)) return false;
    size_t lo = 0, hi = d->in->node_count;
    while (lo < hi) {   /* the first node whose name is not below the owner's */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(d->by_name[mid].name, d->owner) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < d->in->node_count && strcmp(d->by_name[i].name, d->owner) == 0; i++)
        if (d->down[d->by_name[i].node]) return true;
    return false;
}

/* Sorts the nodes by name for owner_reached, and makes room for its owners' names. */
static bool sort_by_name(descent *d)
{
    size_t n = d->in->node_count, longest = 0;
    d->by_name = malloc((n + 1) * sizeof *d->by_name);
    if (!d->by_name) return false;
    for (size_t m = 0; m < n; m++) {
        d->by_name[m] = (named){ d->in->names[m], (uint32_t)m };
        size_t len = strlen(d->in->names[m]);
        if (len > longest) longest = len;
    }
    qsort(d->by_name, n, sizeof *d->by_name, compare_named);
    d->owner = malloc(longest + 1);
    return d->owner != NULL;
}

/*
 * The descendants of the matches, without the descendants of their
 * ancestors. In a method graph a hub can be both: Array#each called by a
 * match's iterator and by the match's callers, with everyone's blocks.
 * Going down, such a node (an ancestor that is not a match) is reached
 * but not walked through: from it the walk goes on only to other
 * ancestors (which are drawn anyway) and, once nothing else is reached,
 * to the blocks of methods reached going down ("block in Foo#bar" is
 * Foo#bar's, as hub_split.rb reads it), until nothing more is reached.
 * Returns false on out-of-memory.
 */
static bool mark_descendants(const tg_graph_input *in, const adjacency *a, const uint8_t *up, uint8_t *down,
                             uint32_t *queue)
{
    size_t n = in->node_count;
    descent d = { .in = in, .a = a, .up = up, .down = down, .queue = queue,
                  .stopped = malloc((n + 1) * sizeof *d.stopped) };
    bool ok = d.stopped != NULL;
    for (size_t m = 0; ok && m < n; m++)
        if (in->focus[m]) reach_down(&d, (uint32_t)m);
    size_t head = 0;
    for (bool grew = ok; grew;) {
        while (head < d.tail) {
            uint32_t m = queue[head++];
            bool through = !up[m] || in->focus[m];
            if (!through) d.stopped[d.stopped_count++] = m;   /* each node is queued once */
            for (size_t k = a->out_start[m]; k < a->out_start[m + 1]; k++) {
                uint32_t next = in->links[a->out[k]].to;
                if (through || up[next]) reach_down(&d, next);
            }
        }
        grew = false;
        if (d.stopped_count && !d.by_name && !sort_by_name(&d)) {
            ok = false;
            break;
        }
        size_t before = d.tail;
        for (size_t i = 0; i < d.stopped_count; i++) {
            uint32_t h = d.stopped[i];
            for (size_t k = a->out_start[h]; k < a->out_start[h + 1]; k++) {
                uint32_t c = in->links[a->out[k]].to;
                if (!down[c] && owner_reached(&d, c)) reach_down(&d, c);
            }
        }
        grew = d.tail > before;
    }
    free(d.stopped);
    free(d.by_name);
    free(d.owner);
    return ok;
}

/* Hides nodes unrelated to the focus: neither ancestors of a match (the
 * methods it is reached from) nor its descendants (mark_descendants). */
static bool apply_focus(tg_graph *g, const tg_graph_input *in, const adjacency *a)
{
    size_t n = in->node_count;
    uint8_t *down = calloc(n + 1, 1), *up = calloc(n + 1, 1);
    uint32_t *queue = malloc((n + 1) * sizeof *queue);
    bool ok = down && up && queue;
    if (ok && in->focus_paths) {   /* only paths through a match: every node is on one */
        memset(down, 1, n);
    } else if (ok) {
        /* `down` is the walk up's scratch, then cleared for the walk down. */
        ok = mark_ancestors(in, a, up, down, queue);
        if (ok) memset(down, 0, n);
        ok = ok && mark_descendants(in, a, up, down, queue);
    }
    for (size_t m = 0; ok && m < n; m++) {
        if (in->focus[m]) g->focus_matches++;
        if (g->state[m] == TG_GRAPH_KEPT && !down[m] && !up[m]) {
            g->state[m] = TG_GRAPH_UNRELATED;
            g->unrelated++;
        }
    }
    free(down);
    free(up);
    free(queue);
    return ok;
}

/* x's caller by the heaviest call among the candidates, other than x itself; UINT32_MAX for none. */
static uint32_t heaviest_caller(const tg_graph *g, const tg_graph_input *in, const adjacency *a, uint32_t x)
{
    uint32_t caller = UINT32_MAX;
    uint64_t heaviest = 0;
    for (size_t k = a->in_start[x]; k < a->in_start[x + 1]; k++) {
        const tg_graph_link *l = &in->links[a->in[k]];
        if (g->state[l->from] != TG_GRAPH_KEPT || l->from == x) continue;
        if (caller == UINT32_MAX || l->amount > heaviest) {
            caller = l->from;
            heaviest = l->amount;
        }
    }
    return caller;
}

/* Does node m, on a path to the roots, only pass calls on: negligible self,
 * not a focus match, and not the path's end (`end`)? Then it costs no box. */
static bool passes_through(const tg_graph_input *in, uint32_t m, bool end)
{
    if (end || (in->focus && in->focus[m])) return false;
    return in->self[m] <= in->whole / TG_GRAPH_NEGLIGIBLE_SELF;
}

/* Scratch for choosing paths: the path being walked, and a stamp per node against cycles. */
typedef struct walk {
    uint32_t *path;
    uint32_t *stamp;
    uint32_t mark;
    uint8_t *passed;   /* per node: left out of a chosen path as only passing calls on */
} walk;

/*
 * Walks from x up its heaviest callers until a chosen node or a root, into
 * w->path, and chooses the whole path if it fits the budget (taking it
 * from *budget); else nothing. x may be UINT32_MAX: nothing to walk.
 */
static void choose_path(const tg_graph *g, const tg_graph_input *in, const adjacency *a, uint32_t x, walk *w,
                        uint8_t *chosen, size_t *budget)
{
    size_t len = 0, boxes = 0;
    uint32_t top = UINT32_MAX;   /* a root the path ends at: drawn, so the path has a start */
    w->mark++;
    while (x != UINT32_MAX && !chosen[x] && w->stamp[x] != w->mark) {
        w->stamp[x] = w->mark;
        w->path[len++] = x;
        uint32_t caller = heaviest_caller(g, in, a, x);
        if (caller == UINT32_MAX) top = x;
        x = caller;
    }
    for (size_t k = 0; k < len; k++) boxes += !passes_through(in, w->path[k], k == 0 || w->path[k] == top);
    if (boxes > *budget) return;
    for (size_t k = 0; k < len; k++) {
        if (passes_through(in, w->path[k], k == 0 || w->path[k] == top))
            w->passed[w->path[k]] = 1;
        else
            chosen[w->path[k]] = 1;
    }
    *budget -= boxes;
}

/*
 * Which `budget` of the candidates (keys, in total order) to keep, into
 * chosen[] (which may hold some already). Choosing the biggest totals
 * shows the spine every call passes through, frames of ~0% self time,
 * and leaves out where the time is: on rubocop, 80 boxes held a third of
 * the self time. So the hot spots come first: by self, each with the
 * path that connects it to a node already chosen or to a root (its
 * heaviest caller, and that caller's, ...), if the whole path fits the
 * budget. What budget is left goes by total, as before. A box with no
 * self time that calls nothing counts its total as its own: a
 * pseudo-method whose time its callers hold already (an SQL query, see
 * sql_queries.rb) is a hot spot by what it took.
 */
static bool choose_by_coverage(const tg_graph *g, const tg_graph_input *in, const adjacency *a,
                               const node_key *keys, size_t count, size_t budget, uint8_t *chosen, walk *w)
{
    node_key *by_self = malloc((count + 1) * sizeof *by_self);
    if (!by_self) return false;
    memcpy(by_self, keys, count * sizeof *keys);
    for (size_t i = 0; i < count; i++) {
        uint32_t m = by_self[i].index;
        if (by_self[i].self == 0 && a->out_start[m] == a->out_start[m + 1]) by_self[i].self = by_self[i].total;
    }
    qsort(by_self, count, sizeof *by_self, compare_by_self);
    for (size_t i = 0; i < count && budget > 0 && by_self[i].self > 0; i++)
        choose_path(g, in, a, by_self[i].index, w, chosen, &budget);
    for (size_t i = 0; i < count && budget > 0; i++) {
        if (chosen[keys[i].index]) continue;
        chosen[keys[i].index] = 1;
        budget--;
    }
    free(by_self);
    return true;
}

/* A neighbour of a focus match, by the heaviest call that joins them. */
typedef struct neighbour {
    uint64_t amount;
    uint32_t node;
} neighbour;

static int compare_neighbours(const void *pa, const void *pb)
{
    const neighbour *a = pa, *b = pb;
    if (a->amount != b->amount) return a->amount > b->amount ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

/*
 * With a focus, the budget goes first to the matches (heaviest totals
 * first), then to their callers and callees (by the heaviest call that
 * joins them to a chosen match), then to the paths from the matches up
 * to the roots, and only then as without a focus. near[m] is 1 for a
 * match, 2 for a caller or callee of one.
 */
static bool choose_by_focus(const tg_graph *g, const tg_graph_input *in, const adjacency *a, const node_key *keys,
                            size_t count, size_t budget, uint8_t *chosen, const uint8_t *near, walk *w)
{
    for (size_t i = 0; i < count && budget > 0; i++) {
        if (near[keys[i].index] != 1) continue;
        chosen[keys[i].index] = 1;
        budget--;
    }
    size_t n = in->node_count, found = 0;
    neighbour *next = malloc((n + 1) * sizeof *next);
    uint64_t *best = calloc(n + 1, sizeof *best);
    uint8_t *seen = calloc(n + 1, 1);
    bool ok = next && best && seen;
    for (size_t i = 0; ok && i < count; i++) {
        uint32_t m = keys[i].index;
        if (near[m] != 1 || !chosen[m]) continue;
        for (int dir = 0; dir < 2; dir++) {
            const size_t *start = dir ? a->out_start : a->in_start, *list = dir ? a->out : a->in;
            for (size_t k = start[m]; k < start[m + 1]; k++) {
                const tg_graph_link *l = &in->links[list[k]];
                uint32_t other = dir ? l->to : l->from;
                if (chosen[other] || g->state[other] != TG_GRAPH_KEPT) continue;
                if (!seen[other]) {
                    seen[other] = 1;
                    next[found++].node = other;
                }
                if (l->amount > best[other]) best[other] = l->amount;
            }
        }
    }
    if (ok) {
        for (size_t i = 0; i < found; i++) next[i].amount = best[next[i].node];
        if (found > 1) qsort(next, found, sizeof *next, compare_neighbours);
        for (size_t i = 0; i < found && budget > 0; i++) {
            chosen[next[i].node] = 1;
            budget--;
        }
        for (size_t i = 0; i < count && budget > 0; i++) {
            uint32_t x = keys[i].index;
            if (near[x] != 1 || !chosen[x]) continue;
            /* Up past what is chosen already (its caller, chosen as a neighbour), then on to a root. */
            for (size_t up = 0; x != UINT32_MAX && chosen[x] && up < n; up++) x = heaviest_caller(g, in, a, x);
            choose_path(g, in, a, x, w, chosen, &budget);
        }
        ok = choose_by_coverage(g, in, a, keys, count, budget, chosen, w);
    }
    free(next);
    free(best);
    free(seen);
    return ok;
}

/* near[m]: 1 for a focus match still a candidate, 2 for its callers and callees. */
static void mark_near_focus(const tg_graph *g, const tg_graph_input *in, const adjacency *a, uint8_t *near)
{
    for (size_t m = 0; m < in->node_count; m++) {
        if (!in->focus[m] || g->state[m] != TG_GRAPH_KEPT) continue;
        near[m] = 1;
        for (size_t k = a->out_start[m]; k < a->out_start[m + 1]; k++) {
            uint32_t to = in->links[a->out[k]].to;
            if (!near[to]) near[to] = 2;
        }
        for (size_t k = a->in_start[m]; k < a->in_start[m + 1]; k++) {
            uint32_t from = in->links[a->in[k]].from;
            if (!near[from]) near[from] = 2;
        }
    }
    for (size_t m = 0; m < in->node_count; m++) {
        if (near[m] == 2 && in->focus[m]) near[m] = 1;   /* (a match found as a neighbour first) */
    }
}

/* The matches the cap left out, heaviest first (keys is in total order). */
static bool note_unshown_matches(tg_graph *g, const tg_graph_input *in, const node_key *keys, size_t count)
{
    for (size_t m = 0; m < in->node_count; m++) g->focus_shown += in->focus[m] && g->state[m] == TG_GRAPH_KEPT;
    g->focus_unshown = malloc((count + 1) * sizeof *g->focus_unshown);
    if (!g->focus_unshown) return false;
    for (size_t i = 0; i < count; i++) {
        uint32_t m = keys[i].index;
        if (in->focus[m] && g->state[m] == TG_GRAPH_CAPPED) g->focus_unshown[g->focus_unshown_count++] = m;
    }
    return true;
}

/* With a focus, `fa` is the adjacency the focus follows (ghosts too), else `a`. */
static bool select_nodes(tg_graph *g, const tg_graph_input *in, const adjacency *a, const adjacency *fa)
{
    size_t n = in->node_count;
    for (size_t m = 0; m < n; m++) {
        g->state[m] = TG_GRAPH_KEPT;
        if (in->ignore && in->ignore[m]) {
            g->state[m] = TG_GRAPH_IGNORED;
            g->ignored++;
        }
    }
    g->focus = in->focus != NULL;
    g->focus_paths = g->focus && in->focus_paths;
    if (g->focus) g->unrelated = in->focus_left_out;
    if (in->focus && !apply_focus(g, in, fa)) return false;
    g->node_cut = tg_model_cut_off(in->node_fraction, in->whole);
    g->edge_cut = tg_model_cut_off(in->edge_fraction, in->whole);

    node_key *keys = malloc((n + 1) * sizeof *keys);
    uint8_t *near = in->focus ? calloc(n + 1, 1) : NULL;
    uint8_t *chosen = calloc(n + 1, 1);
    walk w = { malloc((n + 1) * sizeof *w.path), calloc(n + 1, sizeof *w.stamp), 0, calloc(n + 1, 1) };
    bool ok = keys && chosen && w.path && w.stamp && w.passed && (!in->focus || near);
    size_t count = 0;
    if (ok && near) mark_near_focus(g, in, fa, near);
    for (size_t m = 0; ok && m < n; m++) {
        if (g->state[m] != TG_GRAPH_KEPT) continue;
        /* The focus's matches and their callers and callees are never cut for their size. */
        if (in->total[m] < g->node_cut && !(near && near[m])) {
            g->state[m] = TG_GRAPH_CUT;
            g->cut++;
            continue;
        }
        keys[count++] = (node_key){ in->total[m], in->self[m], in->self_tie ? in->self_tie[m] : 0, in->names[m],
                                    (uint32_t)m };
    }
    if (ok && count > 1) qsort(keys, count, sizeof *keys, compare_nodes);
    bool capping = ok && in->max_nodes && count > in->max_nodes;
    if (capping) {
        if (near) {
            ok = choose_by_focus(g, in, fa, keys, count, in->max_nodes, chosen, near, &w);
        } else if (in->cap == TG_GRAPH_CAP_COVERAGE) {
            ok = choose_by_coverage(g, in, a, keys, count, in->max_nodes, chosen, &w);
        } else {
            for (size_t i = 0; i < in->max_nodes; i++) chosen[keys[i].index] = 1;
        }
    }
    for (size_t i = 0; ok && i < count; i++) {
        uint32_t m = keys[i].index;
        if (capping && !chosen[m]) {
            if (g->capped++ == 0 || keys[i].total > g->cap_cut) g->cap_cut = keys[i].total;
            g->state[m] = TG_GRAPH_CAPPED;
            g->passed += w.passed[m];
            continue;
        }
        g->rank[m] = (uint32_t)g->kept;
        g->order[g->kept++] = m;
    }
    if (ok && in->focus) ok = note_unshown_matches(g, in, keys, count);
    free(near);
    free(chosen);
    free(w.path);
    free(w.stamp);
    free(w.passed);
    free(keys);
    return ok;
}

/* ------------------------------------------------------------------ */
/* 3. edges                                                           */

static bool edge_push(tg_graph *g, uint32_t from, uint32_t to, uint64_t amount, size_t link, bool ghost)
{
    if (g->edge_count == g->edge_cap) {
        size_t cap = g->edge_cap ? g->edge_cap * 2 : 64;
        tg_graph_edge *items = realloc(g->edges, cap * sizeof *items);
        if (!items) return false;
        g->edges = items;
        g->edge_cap = cap;
    }
    g->edges[g->edge_count++] = (tg_graph_edge){ from, to, g->rank[from], g->rank[to], amount, link,
                                                 link == SIZE_MAX, ghost, true, 0, 0, 1 };
    return true;
}

/* A call to or from a focus match is drawn however small. */
static bool touches_focus(const tg_graph_input *in, uint32_t from, uint32_t to)
{
    return in->focus && (in->focus[from] || in->focus[to]);
}

static bool collect_links(tg_graph *g, const tg_graph_input *in)
{
    for (size_t i = 0; i < in->link_count; i++) {
        const tg_graph_link *l = &in->links[i];
        if (!link_valid(in, l) || g->state[l->from] != TG_GRAPH_KEPT || g->state[l->to] != TG_GRAPH_KEPT) continue;
        if (l->amount < g->edge_cut && !touches_focus(in, l->from, l->to)) {
            g->dropped_edges++;
            continue;
        }
        if (!edge_push(g, l->from, l->to, l->amount, i, l->ghost)) return false;
    }
    return true;
}

/* A max-heap of (bottleneck, node) for the widest-path search. */
typedef struct heap_item {
    uint64_t width;
    uint32_t node;
} heap_item;

typedef struct heap {
    heap_item *items;
    size_t count, cap;
} heap;

static bool heap_push(heap *h, heap_item it)
{
    if (h->count == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        heap_item *items = realloc(h->items, cap * sizeof *items);
        if (!items) return false;
        h->items = items;
        h->cap = cap;
    }
    size_t i = h->count++;
    while (i > 0 && h->items[(i - 1) / 2].width < it.width) {
        h->items[i] = h->items[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->items[i] = it;
    return true;
}

static heap_item heap_pop(heap *h)
{
    heap_item top = h->items[0], last = h->items[--h->count];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->count) break;
        if (c + 1 < h->count && h->items[c + 1].width > h->items[c].width) c++;
        if (h->items[c].width <= last.width) break;
        h->items[i] = h->items[c];
        i = c;
    }
    if (h->count) h->items[i] = last;
    return top;
}

/* Scratch arrays for the per-source search, reset through `touched`. */
typedef struct search {
    uint64_t *width;           /* best bottleneck found to each node */
    uint8_t *seen;             /* 1 = width is set; 2 = finished (hidden nodes only) */
    uint8_t *direct;           /* kept callee already joined by a call */
    uint32_t *pred;            /* the node the best bottleneck to each node came from */
    uint32_t *touched;
    size_t touched_count;
    heap heap;
} search;

static void touch(search *s, uint32_t m)
{
    if (!s->seen[m] && !s->direct[m]) s->touched[s->touched_count++] = m;
}

static bool traversable(const tg_graph *g, uint32_t m)
{
    uint8_t st = g->state[m];
    return st == TG_GRAPH_IGNORED || st == TG_GRAPH_CUT || st == TG_GRAPH_CAPPED;
}

/* Records that node `to` is reachable from the search's source with bottleneck w, through `from`. */
static void reach(search *s, uint32_t to, uint64_t w, uint32_t from)
{
    touch(s, to);
    if (!s->seen[to] || w > s->width[to]) {
        s->width[to] = w;
        s->seen[to] = 1;
        s->pred[to] = from;
    }
}

/* The hidden nodes on the widest path from `from` to `to`, caller side
 * first, appended to g->via; sets the edge's via_start and via_len. */
static bool note_via(tg_graph *g, const search *s, size_t n, uint32_t from, uint32_t to, tg_graph_edge *e)
{
    size_t start = g->via_count;
    for (uint32_t x = s->pred[to]; x != from && g->via_count - start < n; x = s->pred[x]) {
        if (g->via_count == g->via_cap) {
            size_t cap = g->via_cap ? g->via_cap * 2 : 64;
            uint32_t *items = realloc(g->via, cap * sizeof *items);
            if (!items) return false;
            g->via = items;
            g->via_cap = cap;
        }
        g->via[g->via_count++] = x;
    }
    for (size_t i = start, j = g->via_count; i + 1 < j; i++, j--) {   /* caller side first */
        uint32_t t = g->via[i];
        g->via[i] = g->via[j - 1];
        g->via[j - 1] = t;
    }
    e->via_start = start;
    e->via_len = (uint32_t)(g->via_count - start);
    return true;
}

/*
 * Dotted edges from kept node `from` to every kept node it reaches
 * through hidden ones only. With TG_GRAPH_HIDDEN_WIDEST the amount is the
 * bottleneck of the widest such path: max over paths of the min link
 * amount along it. It is an estimate - a profile has no per-path data -
 * but it never exceeds the amount of any one call on that path, and
 * picks the path that carried the most. Returns to `from` itself
 * (recursion through hidden nodes) are not drawn, nor are pairs already
 * joined by a call.
 */
static bool find_hidden_paths_from(tg_graph *g, const tg_graph_input *in, const adjacency *a, uint32_t from,
                                   search *s)
{
    bool ok = true, widest = in->hidden == TG_GRAPH_HIDDEN_WIDEST;
    s->touched_count = 0;
    s->heap.count = 0;
    for (size_t k = a->out_start[from]; k < a->out_start[from + 1]; k++) {
        const tg_graph_link *l = &in->links[a->out[k]];
        if (g->state[l->to] == TG_GRAPH_KEPT) {
            touch(s, l->to);
            s->direct[l->to] = 1;
        }
    }
    for (size_t k = a->out_start[from]; k < a->out_start[from + 1] && ok; k++) {
        const tg_graph_link *l = &in->links[a->out[k]];
        if (!traversable(g, l->to)) continue;
        reach(s, l->to, l->amount, from);
        ok = heap_push(&s->heap, (heap_item){ l->amount, l->to });
    }
    while (ok && s->heap.count) {
        heap_item it = heap_pop(&s->heap);
        if (s->seen[it.node] == 2 || it.width < s->width[it.node]) continue;
        s->seen[it.node] = 2;
        for (size_t k = a->out_start[it.node]; k < a->out_start[it.node + 1] && ok; k++) {
            const tg_graph_link *l = &in->links[a->out[k]];
            uint64_t w = l->amount < it.width ? l->amount : it.width;
            if (g->state[l->to] == TG_GRAPH_KEPT) {
                reach(s, l->to, w, it.node);
            } else if (traversable(g, l->to) && s->seen[l->to] != 2 && (!s->seen[l->to] || w > s->width[l->to])) {
                reach(s, l->to, w, it.node);
                ok = heap_push(&s->heap, (heap_item){ w, l->to });
            }
        }
    }
    for (size_t t = 0; t < s->touched_count; t++) {
        uint32_t to = s->touched[t];
        if (ok && g->state[to] == TG_GRAPH_KEPT && s->seen[to] && !s->direct[to] && to != from) {
            if (widest && s->width[to] < g->edge_cut && !touches_focus(in, from, to)) {
                g->dropped_edges++;
            } else {
                ok = edge_push(g, from, to, widest ? s->width[to] : 0, SIZE_MAX, false) &&
                     note_via(g, s, in->node_count, from, to, &g->edges[g->edge_count - 1]);
            }
        }
        s->seen[to] = 0;
        s->direct[to] = 0;
        s->width[to] = 0;
    }
    return ok;
}

static bool find_hidden_paths(tg_graph *g, const tg_graph_input *in, const adjacency *a)
{
    size_t n = in->node_count;
    if (g->kept == n) return true;     /* nothing hidden, nothing to bridge */
    search s = { calloc(n + 1, sizeof *s.width), calloc(n + 1, 1), calloc(n + 1, 1), calloc(n + 1, sizeof *s.pred),
                 malloc((n + 1) * sizeof *s.touched), 0, { NULL, 0, 0 } };
    bool ok = s.width && s.seen && s.direct && s.pred && s.touched;
    for (size_t i = 0; ok && i < g->kept; i++) ok = find_hidden_paths_from(g, in, a, g->order[i], &s);
    free(s.width);
    free(s.seen);
    free(s.direct);
    free(s.pred);
    free(s.touched);
    free(s.heap.items);
    return ok;
}

/* Is `to` reachable from `from` over live edges other than `skip`? */
static bool other_path(const tg_graph *g, const size_t *start, const size_t *list, size_t skip, uint32_t from,
                       uint32_t to, uint32_t *stamp, uint32_t mark, uint32_t *queue)
{
    size_t head = 0, tail = 0;
    queue[tail++] = from;
    stamp[from] = mark;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (size_t k = start[v]; k < start[v + 1]; k++) {
            const tg_graph_edge *e = &g->edges[list[k]];
            if (list[k] == skip || !e->alive || stamp[e->to_rank] == mark) continue;
            if (e->to_rank == to) return true;
            stamp[e->to_rank] = mark;
            queue[tail++] = e->to_rank;
        }
    }
    return false;
}

/*
 * Like pprof, a dotted edge whose callee is reachable from its caller
 * some other way says nothing new: drop it, weakest first, so the graph
 * keeps its connectivity with the fewest synthetic edges. The edges are
 * in drawing order, heaviest first.
 */
static bool remove_redundant_paths(tg_graph *g)
{
    size_t k = g->kept, dotted = 0;
    for (size_t i = 0; i < g->edge_count; i++) dotted += g->edges[i].dotted;
    if (!dotted) return true;
    size_t *start = calloc(k + 1, sizeof *start), *list = malloc((g->edge_count + 1) * sizeof *list);
    size_t *fill = malloc((k + 1) * sizeof *fill), *weak = malloc((dotted + 1) * sizeof *weak);
    uint32_t *stamp = calloc(k + 1, sizeof *stamp), *queue = malloc((k + 1) * sizeof *queue);
    bool ok = start && list && fill && weak && stamp && queue;
    if (ok) {
        for (size_t i = 0; i < g->edge_count; i++) start[g->edges[i].from_rank + 1]++;
        for (size_t v = 0; v < k; v++) start[v + 1] += start[v];
        memcpy(fill, start, (k + 1) * sizeof *fill);
        size_t w = 0;
        for (size_t i = 0; i < g->edge_count; i++) {
            list[fill[g->edges[i].from_rank]++] = i;
            if (g->edges[i].dotted) weak[w++] = i;
        }
        /* Walking `weak` backwards is weakest first. */
        uint32_t mark = 0;
        while (w-- > 0) {
            tg_graph_edge *e = &g->edges[weak[w]];
            if (other_path(g, start, list, weak[w], e->from_rank, e->to_rank, stamp, ++mark, queue)) e->alive = false;
        }
    }
    free(start);
    free(list);
    free(fill);
    free(weak);
    free(stamp);
    free(queue);
    return ok;
}

/*
 * The drawing order. Links first, then ghosts, then (with
 * TG_GRAPH_HIDDEN_LINKS) dotted edges; within that, heaviest first, then
 * by box order, a link before a dotted edge of the same weight.
 */
static int edge_class(const tg_graph_edge *e, bool dotted_last)
{
    if (e->dotted) return dotted_last ? 2 : 0;
    return e->ghost ? 1 : 0;
}

static int compare_edges_by(const tg_graph_edge *a, const tg_graph_edge *b, bool dotted_last)
{
    int ka = edge_class(a, dotted_last), kb = edge_class(b, dotted_last);
    if (ka != kb) return ka < kb ? -1 : 1;
    if (a->amount != b->amount) return a->amount > b->amount ? -1 : 1;
    if (a->from_rank != b->from_rank) return a->from_rank < b->from_rank ? -1 : 1;
    if (a->to_rank != b->to_rank) return a->to_rank < b->to_rank ? -1 : 1;
    if (a->dotted != b->dotted) return a->dotted ? 1 : -1;
    return 0;
}

static int compare_edges_widest(const void *pa, const void *pb)
{
    return compare_edges_by(pa, pb, false);
}

static int compare_edges_links(const void *pa, const void *pb)
{
    return compare_edges_by(pa, pb, true);
}

static bool order_edges(tg_graph *g, const tg_graph_input *in)
{
    bool widest = in->hidden == TG_GRAPH_HIDDEN_WIDEST;
    if (g->edge_count > 1)
        qsort(g->edges, g->edge_count, sizeof *g->edges, widest ? compare_edges_widest : compare_edges_links);
    if (widest && !remove_redundant_paths(g)) return false;
    size_t live = 0;
    for (size_t i = 0; i < g->edge_count; i++) {
        if (g->edges[i].alive) g->edges[live++] = g->edges[i];
    }
    g->edge_count = live;
    return true;
}

/*
 * Dot puts a box's children side by side on the rank below it, so a box
 * with many (an iterator's blocks, a dispatcher's handlers) decides the
 * drawing's width. Each box's parent is the caller of its heaviest edge
 * in (the first in drawing order); a parent of more than
 * TG_GRAPH_ROW_CHILDREN children gets them in rows of that many, the
 * heaviest nearest. On the real programs of docs/real-programs.md this
 * narrowed the method-level graphs of rubocop, rdoc, rake and kramdown
 * by 7-17%, at the cost of height.
 */
static bool stagger_children(tg_graph *g)
{
    size_t k = g->kept;
    size_t *parent_edge = malloc((k + 1) * sizeof *parent_edge);
    uint32_t *children = calloc(k + 1, sizeof *children), *placed = calloc(k + 1, sizeof *placed);
    bool ok = parent_edge && children && placed;
    if (ok) {
        for (size_t v = 0; v < k; v++) parent_edge[v] = SIZE_MAX;
        for (size_t i = 0; i < g->edge_count; i++) {
            const tg_graph_edge *e = &g->edges[i];
            if (e->from_rank != e->to_rank && parent_edge[e->to_rank] == SIZE_MAX) {
                parent_edge[e->to_rank] = i;
                children[e->from_rank]++;
            }
        }
        /* Drawing order is heaviest first, so each parent's rows fill heaviest first. */
        for (size_t i = 0; i < g->edge_count; i++) {
            tg_graph_edge *e = &g->edges[i];
            if (parent_edge[e->to_rank] != i || children[e->from_rank] <= TG_GRAPH_ROW_CHILDREN) continue;
            e->minlen = 1 + placed[e->from_rank]++ / TG_GRAPH_ROW_CHILDREN;
        }
    }
    free(parent_edge);
    free(children);
    free(placed);
    return ok;
}

/* ------------------------------------------------------------------ */

void tg_graph_free(tg_graph *g)
{
    free(g->state);
    free(g->rank);
    free(g->order);
    free(g->edges);
    free(g->focus_unshown);
    free(g->via);
    memset(g, 0, sizeof *g);
}

bool tg_graph_build(tg_graph *g, const tg_graph_input *in)
{
    size_t n = in->node_count;
    memset(g, 0, sizeof *g);
    g->state = malloc(n + 1);
    g->rank = calloc(n + 1, sizeof *g->rank);
    g->order = malloc((n + 1) * sizeof *g->order);
    adjacency a = { 0 }, with_ghosts = { 0 };
    bool ghosts = false;
    for (size_t i = 0; in->focus && i < in->link_count; i++) ghosts = ghosts || in->links[i].ghost;
    bool ok = g->state && g->rank && g->order && adjacency_build(&a, in, false) &&
              (!ghosts || adjacency_build(&with_ghosts, in, true)) &&
              select_nodes(g, in, &a, ghosts ? &with_ghosts : &a) && collect_links(g, in) &&
              find_hidden_paths(g, in, &a) && order_edges(g, in) && stagger_children(g);
    adjacency_free(&a);
    adjacency_free(&with_ghosts);
    if (!ok) tg_graph_free(g);
    return ok;
}

/*
 * tg_diff_dot.h - the differential call graph: what changed from a base
 * profile to a head profile, as Graphviz DOT text.
 *
 * Like a red/blue differential flame graph (Brendan Gregg's difffolded),
 * the graph is drawn for head: one box per method, sized by head's self
 * time on tg_dot's scale. The colour is the change in self time from base
 * to head: red where it grew, blue where it shrank, near-white where it
 * held. Intensity grows with |change| / max(base total, head total), on a
 * sqrt scale as in tg_dot, so a change of 1% of the run is already
 * visible and one of 100% is fully saturated.
 *
 * With allocation counts for both models (allocations: true), labels
 * and tooltips give each method's own allocations in both, and with
 * metric TG_DOT_BY_ALLOCATIONS objects take time's place in everything
 * that picks and draws: box size is head's self allocations, colour the
 * change in self allocations as a share of the larger model's objects
 * (the same scale), edges and cuts go by objects allocated in the call.
 * Allocation counts are exact and never normalized.
 *
 * Methods are matched by name (two methods of one model with the same
 * name are summed). Methods only in base are drawn as dashed blue "ghost"
 * boxes with their base numbers, so code paths that vanished stay
 * visible; methods only in head are labelled "new". Edges are head's,
 * plus dashed blue ghosts for calls only base made.
 *
 * Pruning follows tg_dot on each method's heavier side, max(head total,
 * base total): a method that was big in base but vanished in head is
 * kept. Kept methods joined only through hidden ones in head get a
 * dotted "via hidden" edge. The rendering is a pure function of the two
 * models and the options: the same input gives the same bytes, whatever
 * the order of methods and edges in either model.
 */
#ifndef TG_DIFF_DOT_H
#define TG_DIFF_DOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tg_dot.h"
#include "tg_model.h"

/* One model's allocation counts (allocations: true). */
typedef struct tg_diff_dot_allocations {
    const uint64_t *self;    /* per method: the objects it allocated itself */
    const uint64_t *total;   /* per method: with its callees */
    const uint64_t *edges;   /* per edge: the objects allocated in its calls */
    uint64_t whole;          /* all the model's objects (the sum of self) */
} tg_diff_dot_allocations;

typedef struct tg_diff_dot_options {
    double node_fraction;   /* drop methods whose max(head, base) total < node_fraction * max(head, base)
                               model total; 0 keeps all. default 0.005 */
    double edge_fraction;   /* the same for edges. default 0.001 */
    size_t max_nodes;       /* keep at most this many methods, heaviest first; 0 = no cap. default 80 */
    bool normalize;         /* scale base times by head total / base total first (difffolded -n). default false */
    const char *cwd;        /* working directory; file paths under it are shown relative. May be NULL */
    /* Both models' allocation counts, or NULL (both or neither; one alone is ignored). */
    const tg_diff_dot_allocations *base_allocations, *head_allocations;
    /* TG_DOT_BY_TIME (default), or TG_DOT_BY_ALLOCATIONS: sizes, colours, the fractions and
     * max_nodes go by objects allocated (needs both allocations; without them, by time). */
    tg_dot_metric metric;
    /* NULL, or per-method flags of one model (its method_count long): 1 = matches. A merged method
     * matches when its method in either model does. A focus draws its matches first, then their
     * callers and callees, then the paths to the roots, and hides what neither leads to nor from
     * them (as tg_dot_options.focus); ignored methods are hidden, paths through them dotted. */
    const uint8_t *base_focus, *head_focus;
    bool focus_paths;            /* both models hold only the call paths through a match (tg_dot_options') */
    size_t focus_left_out;       /* the merged methods left out of the models before, as unrelated */
    const uint8_t *base_ignore, *head_ignore;
    const char *const *notes;    /* note_count more legend lines (what was done to the graph), or NULL */
    size_t note_count;
    /* The arrows' times are not known, only their calls (as tg_dot_options'):
     * arrows give their calls and the change in them, thin and grey. */
    bool edge_calls_only;
} tg_diff_dot_options;

void tg_diff_dot_options_default(tg_diff_dot_options *o);

/*
 * Renders the differential graph from base to head. Returns a malloc'd
 * NUL-terminated string (caller frees) and its length in *len, or NULL on
 * out-of-memory. o may be NULL for the defaults; len may be NULL.
 */
char *tg_diff_dot_render(const tg_model *base, const tg_model *head, const tg_diff_dot_options *o, size_t *len);

#endif

/*
 * tg_dot.h - the call graph as Graphviz DOT text.
 *
 * One box per method (sized by self time, coloured by total time), one
 * arrow per caller->callee edge (width and colour by the time through the
 * call), and a legend that says what is shown and what was dropped. With
 * metric TG_DOT_BY_ALLOCATIONS, objects allocated take time's place in all
 * of that - sizes, colours, cuts, the cap - so the graph shows where the
 * garbage comes from; the labels still give both.
 *
 * Pruning follows pprof: nodes and edges under a fraction of the total
 * time are dropped, then only the max_nodes heaviest nodes are kept.
 * Calls that went through dropped ("hidden") methods are not lost: the
 * nearest kept caller and callee are joined by a dotted "via hidden"
 * edge, so the graph stays connected. The rendering is a pure function
 * of the model and the options: the same input gives the same bytes.
 */
#ifndef TG_DOT_H
#define TG_DOT_H

#include <stddef.h>
#include <stdint.h>

#include "tg_model.h"

/* What picks, sizes and colours the boxes and edges. */
typedef enum tg_dot_metric { TG_DOT_BY_TIME, TG_DOT_BY_ALLOCATIONS } tg_dot_metric;

typedef struct tg_dot_options {
    double node_fraction;   /* drop nodes whose total_time < node_fraction * model total; 0 keeps all. default 0.005 */
    double edge_fraction;   /* drop edges whose total_time < edge_fraction * total; 0 keeps all. default 0.001 */
    size_t max_nodes;       /* keep at most this many nodes, by total time; 0 = no cap. default 80 */
    const uint8_t *focus;   /* NULL, or per-method flags (method_count long): 1 = matches --focus. When set, keep
                               only nodes that match or lie on a caller/callee path through a matching node
                               (ancestors and descendants in the edge graph) */
    bool focus_paths;       /* the model holds only the call paths through a focus match (a call tree's) */
    size_t focus_left_out;  /* with a focus: the methods left out of the model before, as unrelated */
    const uint8_t *ignore;  /* NULL, or per-method flags: 1 = drop this node (paths through it become dotted edges) */
    const char *cwd;        /* working directory; file paths under it are shown relative. May be NULL */
    const uint8_t *waiting; /* NULL, or per-method flags: 1 = blocks its thread (sleep, join, I/O waits): drawn
                               grey, and its self time reported as waiting in the legend */
    /* For the legend's word on what the total is: the threads the numbers
     * cover, how many were recorded (more when some were left out), their
     * names ("main, worker") or NULL, the wall time while recording, and
     * waiting time left out of the numbers (idle: :hide), and where the
     * waiting was ("in 3 threads, Kernel#sleep"). 0/NULL: unknown. */
    uint32_t thread_count, threads_recorded;
    const char *thread_names;
    uint64_t wall_time;
    uint64_t hidden_waiting;
    const char *waiting_where;
    const char *const *context;  /* NULL, or per method: a line under its name, e.g. "from Foo#bar" for one
                                    caller's part of a method split per caller; NULL entries for none */
    const char *const *tooltips; /* NULL, or per method: more tooltip lines ("A\nB"), e.g. the methods a
                                    group of them (Profile#group_by) holds; NULL entries for none */
    const char *const *notes;    /* note_count more legend lines (what was done to the graph), or NULL */
    size_t note_count;
    const char *recorded_by;     /* the legend's last line: which path recorded the profile, on which Ruby
                                    ("VM reads checked on 3.4.5"), or NULL */
    size_t method_total;              /* methods the boxes stand for, when parts of a method are boxes of their
                                        own (split per caller); 0: every box is one method */
    const char *const *edge_via;     /* NULL, or per model edge: the frames a folded chain stands for, "B\nC"
                                        (one name per line; the count is the number of lines), or NULL */
    const char *const *short_files;  /* NULL, or per method: its file as the label shows it ("rubocop/cli.rb",
                                        "(ruby) json/common.rb"; the tooltip keeps the full path), or NULL */
    /* NULL, or per method (both or neither): the objects it allocated
     * itself and with its callees (allocations: true), shown in its box
     * and tooltip as shares of total_allocations, which the legend gives. */
    const uint64_t *self_allocations, *allocations;
    uint64_t total_allocations;
    const uint64_t *edge_allocations;  /* NULL, or per model edge: the objects allocated in its calls */
    const char *const *allocation_types;  /* NULL, or per method: its own objects' biggest types for its
                                             tooltip ("String 1,000 Â· Array 500"), or NULL */
    /* TG_DOT_BY_TIME (default), or TG_DOT_BY_ALLOCATIONS: then the fractions, max_nodes and the look
     * go by allocations (self_allocations, allocations, edge_allocations and total_allocations, which
     * must all be given; without them the graph goes by time). */
    tg_dot_metric metric;
    /* What the legend's "The boxes hold X%" is a share of: the self amounts
     * of the profile's methods, in the metric; 0: the metric's whole. They
     * are the same number but in a profile of medians (--runs), whose self
     * times, each a median of its own, need not add up to its median total. */
    uint64_t held_whole;
    /* The arrows' times are not known, only their calls (a grouped profile
     * without a call tree: its arrows' times could only be estimated).
     * Arrows are then labelled with their calls alone, drawn thin and
     * grey; the legend line saying why is the caller's (notes). */
    bool edge_calls_only;
    /* The calls the legend gives, when the model is a view of a profile
     * whose own count it should say (grouped, or with chains of frames
     * folded away, its methods' calls add up to fewer); 0: the model's. */
    uint64_t total_calls;
} tg_dot_options;

void tg_dot_options_default(tg_dot_options *o);

/*
 * Renders the call graph. Returns a malloc'd NUL-terminated string
 * (caller frees) and its length in *len, or NULL on out-of-memory.
 * o may be NULL for the defaults; len may be NULL.
 */
char *tg_dot_render(const tg_model *r, const tg_dot_options *o, size_t *len);

#endif

/*
 * tg_graph.h - the graph both DOT writers draw, built once: which nodes
 * are kept and why not the others, the edges between kept nodes, and the
 * dotted edges for calls through hidden nodes.
 *
 * The writers (tg_dot, tg_diff_dot) turn their data into nodes and links
 * carrying one number each in the graph's metric (time, or objects
 * allocated), call tg_graph_build(), and then only render: labels,
 * sizes, colours and the legend, which reads what was dropped from here.
 * As in pprof's graph.go, nothing disappears silently: every node not
 * kept has a state saying why, and every dropped edge is counted.
 *
 * Selection, in order:
 *   1. ignore flags hide nodes; paths through them become dotted edges;
 *   2. focus flags hide every node that is neither an ancestor nor a
 *      descendant of a match, along links and ghosts (no dotted edges
 *      through those): the methods a match is reached from, going up
 *      its callers' chains, and those it reaches, going down; never the
 *      other callees of an ancestor or the other callers of a
 *      descendant. That is all a method graph can tell; an input of
 *      only the paths through a match (focus_paths, from a call tree)
 *      is exact;
 *   3. nodes whose total is under node_fraction of the whole are cut,
 *      except a focus's matches and their callers and callees;
 *   4. of the rest, max_nodes are kept (0: all). With a focus: the
 *      matches first, then their callers and callees, then the paths
 *      from the matches to the roots, then as without one. Without: the
 *      heaviest totals, or with TG_GRAPH_CAP_COVERAGE the hot spots by
 *      self first, each with the heaviest-caller path that joins it to
 *      the kept ones. On such a path (and the focus's), the nodes of
 *      negligible self (TG_GRAPH_NEGLIGIBLE_SELF of the whole, at most)
 *      cost no box: they are left hidden, and the dotted edge that
 *      bridges them names them, so the boxes go where the time is.
 * Kept nodes are ranked by total desc, self desc, tie desc, name, index.
 *
 * Edges: every link between two kept nodes whose amount reaches the
 * edge cut (or that joins a focus match, however small), then dotted edges from each kept node to the kept nodes it
 * reaches only through ignored, cut or capped ones (along links that are
 * not ghosts), each with the hidden nodes along its widest path, then
 * all in drawing order. Last, each edge's minlen staggers the children
 * of a box that has many (TG_GRAPH_ROW_CHILDREN). Memory grows with
 * nodes and links, never with calls.
 */
#ifndef TG_GRAPH_H
#define TG_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The cuts and the cap both writers use by default. */
#define TG_GRAPH_DEFAULT_NODE_FRACTION 0.005
#define TG_GRAPH_DEFAULT_EDGE_FRACTION 0.001
#define TG_GRAPH_DEFAULT_MAX_NODES 80
/* A node whose self is at most whole / TG_GRAPH_NEGLIGIBLE_SELF (0.1%)
 * only passes calls on: on a path to the roots it costs no box. */
#define TG_GRAPH_NEGLIGIBLE_SELF 1000
/* A box with more children than this (boxes whose heaviest caller it is)
 * has them staggered: the heaviest TG_GRAPH_ROW_CHILDREN on the rank
 * below it, the next ones a rank lower, and so on, so that a hub such as
 * Array#each with twenty blocks makes the drawing taller, not wider. */
#define TG_GRAPH_ROW_CHILDREN 4

/* Why a node is or is not drawn. */
typedef enum tg_graph_state {
    TG_GRAPH_KEPT,        /* drawn as a box */
    TG_GRAPH_IGNORED,     /* hidden by the ignore flags; paths through it are dotted */
    TG_GRAPH_CUT,         /* hidden: total below the node cut */
    TG_GRAPH_CAPPED,      /* hidden: beyond max_nodes */
    TG_GRAPH_UNRELATED,   /* hidden by focus; paths through it are NOT drawn */
} tg_graph_state;

/* How max_nodes picks among the nodes that pass the cut. */
typedef enum tg_graph_cap {
    TG_GRAPH_CAP_HEAVIEST,   /* the heaviest totals */
    TG_GRAPH_CAP_COVERAGE,   /* hot spots by self first, with the callers that join them up; then by total */
} tg_graph_cap;

/* What the dotted edges through hidden nodes carry. */
typedef enum tg_graph_hidden {
    /* The widest path's bottleneck (max over paths of the min link amount):
     * cut like links, sorted among them, and dropped when the callee can
     * be reached from the caller some other way (as pprof does). */
    TG_GRAPH_HIDDEN_WIDEST,
    /* Only that a path exists: amount 0, never cut, drawn after all links. */
    TG_GRAPH_HIDDEN_LINKS,
} tg_graph_hidden;

/* A caller->callee link between two nodes of the input. */
typedef struct tg_graph_link {
    uint32_t from, to;   /* node indexes; a link with one out of range is skipped */
    uint64_t amount;     /* in the metric: what the edge cut and the drawing order look at */
    bool ghost;          /* drawn, but not a call dotted paths follow (the diff's calls only base made);
                            drawn after the other links */
} tg_graph_link;

typedef struct tg_graph_input {
    size_t node_count;
    const uint64_t *total;       /* per node: its amount with callees, what the cuts and the cap look at */
    const uint64_t *self;        /* per node: its own amount; ties among equal totals, heavier first */
    const uint64_t *self_tie;    /* NULL, or per node: the next tie-break, heavier first */
    const char *const *names;    /* per node: the tie-break after those (strcmp), then the index */
    const tg_graph_link *links;
    size_t link_count;
    uint64_t whole;              /* the metric's total, what the fractions are of */
    double node_fraction, edge_fraction;
    size_t max_nodes;            /* 0 = no cap */
    const uint8_t *ignore;       /* NULL, or per node: 1 = hide */
    const uint8_t *focus;        /* NULL, or per node: 1 = a match */
    /* With a focus: whether its nodes and links are already only the call
     * paths through a match (a call tree's: then no walk is needed and
     * the legend says so), and how many nodes it left out before that,
     * which the legend counts as unrelated. */
    bool focus_paths;
    size_t focus_left_out;
    tg_graph_cap cap;
    tg_graph_hidden hidden;
} tg_graph_input;

/* An edge to draw between two kept nodes. */
typedef struct tg_graph_edge {
    uint32_t from, to;             /* node indexes */
    uint32_t from_rank, to_rank;   /* their positions among the kept nodes */
    uint64_t amount;               /* the link's; a dotted edge's estimate (0 with TG_GRAPH_HIDDEN_LINKS) */
    size_t link;                   /* index of the input link; SIZE_MAX for a dotted edge */
    bool dotted;                   /* stands for calls through hidden nodes */
    bool ghost;                    /* the link is a ghost */
    bool alive;                    /* (while building: false once found redundant) */
    size_t via_start;              /* a dotted edge: its path's hidden nodes, caller side first, are */
    uint32_t via_len;              /*   via[via_start .. via_start + via_len) of the graph */
    uint32_t minlen;               /* the ranks dot puts between its ends, at least (see TG_GRAPH_ROW_CHILDREN) */
} tg_graph_edge;

typedef struct tg_graph {
    uint8_t *state;                /* per node: enum tg_graph_state */
    uint32_t *rank;                /* per node: its position among the kept ones (kept nodes only) */
    uint32_t *order;               /* the kept nodes, heaviest first */
    size_t kept;
    tg_graph_edge *edges;          /* what to draw, in drawing order */
    size_t edge_count, edge_cap;
    uint32_t *via;                 /* the hidden nodes the dotted edges pass through (see tg_graph_edge) */
    size_t via_count, via_cap;
    size_t passed;                 /* nodes of negligible self left out of the hot spots' paths to the roots */
    uint64_t node_cut, edge_cut;   /* the smallest total a node, and an edge, needs to be drawn */
    uint64_t cap_cut;              /* the heaviest total the cap dropped */
    bool focus;                    /* focus flags were given */
    bool focus_paths;              /* the input was only the paths through the matches */
    size_t focus_matches;          /* nodes matching them */
    size_t focus_shown;            /* of those, kept */
    uint32_t *focus_unshown;       /* the matches the cap left out, heaviest total first */
    size_t focus_unshown_count;
    size_t ignored, unrelated, cut, capped;   /* nodes hidden, by reason */
    size_t dropped_edges;          /* links and dotted edges under the edge cut */
} tg_graph;

/* Builds the graph into *g (which need not be initialized). Returns false
 * on out-of-memory, with *g freed. */
bool tg_graph_build(tg_graph *g, const tg_graph_input *in);

void tg_graph_free(tg_graph *g);

#endif

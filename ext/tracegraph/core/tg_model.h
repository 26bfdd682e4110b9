/*
 * tg_model.h - the profile's data model, as the emitters see it.
 *
 * A model is a finished profile: every method with its totals, every
 * caller->callee edge, and the clock it was measured with. It is plain C
 * data (no Ruby), built by the binding from a Tracegraph::Profile, so the
 * emitters can be tested with hand-built models.
 *
 * All times are nanoseconds of the profile's clock.
 * tg_model.c has the few helpers every emitter shares.
 */
#ifndef TG_MODEL_H
#define TG_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

typedef struct tg_model_method {
    const char *name;      /* "Class#meth", "Mod.meth"; any bytes, NUL-terminated */
    const char *file;      /* defining file, or NULL for C methods / unknown */
    int line;              /* defining line, 0 if unknown */
    bool is_c;             /* implemented in C (drawn dashed) */
    uint64_t calls;
    uint64_t total_time;   /* each moment counted once, even under recursion */
    uint64_t self_time;
} tg_model_method;

typedef struct tg_model_edge {
    uint32_t caller;       /* index into methods */
    uint32_t callee;       /* index into methods */
    uint64_t calls;
    uint64_t total_time;   /* time spent in callee when called from caller */
    uint64_t self_time;    /* callee's self time when called from caller */
} tg_model_edge;

/* Garbage collection while recording (tg_gc.h): the collections started,
 * the collector's steps, and the time in them (the "(garbage collection)"
 * method's total), with its marking and sweeping parts. */
typedef struct tg_model_gc {
    uint64_t runs, entries, time, mark_time, sweep_time;
} tg_model_gc;

typedef struct tg_model {
    const char *program;   /* e.g. "examples/demo.rb"; may be NULL */
    const char *clock;     /* "wall", "cpu" or "thread_cpu" */
    uint64_t total_time;   /* sum of the threads' profiled time */
    const tg_model_method *methods;
    size_t method_count;
    const tg_model_edge *edges;
    size_t edge_count;
    const tg_model_gc *gc;   /* NULL if unknown (not recorded, or an old profile) */
} tg_model;

/* Arithmetic on models that every emitter needs. */

/* The method's name, or "" if it has none. */
const char *tg_model_method_name(const tg_model_method *m);

/* The sum of all methods' calls, saturating at UINT64_MAX. */
uint64_t tg_model_total_calls(const tg_model *r);

/* The smallest time kept by a pruning threshold: ceil(fraction * total),
 * 0 (keep everything) for a fraction of 0 or NaN, saturating. */
uint64_t tg_model_cut_off(double fraction, uint64_t total);

#endif

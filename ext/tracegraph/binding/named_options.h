/*
 * named_options.h - reading a Hash of named options from Ruby, for the
 * binding's methods that take many (Tracegraph._start, _render_dot,
 * _render_diff_dot): each key is read by its name, a missing one raises
 * KeyError naming it, and a key the reader does not list raises
 * ArgumentError, so that an option added on one side only fails at once
 * instead of shifting every slot after it. Inline: shared without one
 * binding file calling another.
 */
#ifndef TRACEGRAPH_NAMED_OPTIONS_H
#define TRACEGRAPH_NAMED_OPTIONS_H

#include <string.h>

#include <ruby.h>

/* hash[:key]; KeyError if it is missing. */
static inline VALUE named_options_get(VALUE hash, const char *key)
{
    return rb_hash_fetch(hash, ID2SYM(rb_intern(key)));
}

typedef struct named_options_known {
    const char *what;
    const char *const *names;
} named_options_known;

static inline int named_options_check_key(VALUE key, VALUE value, VALUE arg)
{
    (void)value;
    const named_options_known *k = (const named_options_known *)arg;
    if (SYMBOL_P(key)) {
        const char *name = rb_id2name(SYM2ID(key));
        for (const char *const *n = k->names; *n; n++)
            if (strcmp(*n, name) == 0) return ST_CONTINUE;
    }
    rb_raise(rb_eArgError, "%s: unknown option %" PRIsVALUE, k->what, rb_inspect(key));
    return ST_STOP;
}

/* Checks that hash is a Hash whose keys are all among names (NULL-ended). */
static inline void named_options_check(VALUE hash, const char *what, const char *const *names)
{
    Check_Type(hash, T_HASH);
    named_options_known k = {what, names};
    rb_hash_foreach(hash, named_options_check_key, (VALUE)&k);
}

#endif

/*
 * number_text.c - see number_text.h. Uses: core tg_format.h.
 */
#include "number_text.h"

#include "tg_format.h"

/* Tracegraph._human_time(ns) -> "4.11 µs": ns an Integer (negative for a
 * change); a Float is rounded to the nearest nanosecond first. */
static VALUE human_time(VALUE self, VALUE ns)
{
    (void)self;
    if (RB_FLOAT_TYPE_P(ns)) ns = rb_funcall(ns, rb_intern("round"), 0);
    char buf[TG_FORMAT_SIZE];
    tg_format_signed_ns(buf, sizeof buf, NUM2LL(ns));
    return rb_utf8_str_new_cstr(buf);
}

void number_text_init(VALUE mTracegraph)
{
    rb_define_module_function(mTracegraph, "_human_time", human_time, 1);
}

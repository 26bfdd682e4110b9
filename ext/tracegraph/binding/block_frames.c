/* block_frames.c - see block_frames.h. */
#include "block_frames.h"

#include <string.h>

#include <ruby/encoding.h>

static VALUE mTracegraph;
static ID id_naming, id_block_name;

bool tg_block_public_frame(rb_trace_arg_t *arg, VALUE *frame, int *line)
{
    VALUE buf[1] = {Qnil};
    if (rb_profile_frames(0, 1, buf, NULL) != 1 || NIL_P(buf[0])) return false;
    VALUE lineno = rb_tracearg_lineno(arg);   /* at b_call: the iseq's first line */
    *frame = buf[0];
    *line = FIXNUM_P(lineno) ? FIX2INT(lineno) : 0;
    return true;
}

bool tg_block_public_is_block(VALUE frame)
{
    VALUE label = rb_profile_frame_label(frame);
    return RB_TYPE_P(label, T_STRING) && RSTRING_LEN(label) > 6 && memcmp(RSTRING_PTR(label), "block ", 6) == 0;
}

typedef struct naming_call {
    VALUE label, owner, mid, line, method_name;
} naming_call;

static VALUE call_block_name(VALUE arg)
{
    const naming_call *c = (const naming_call *)arg;
    VALUE naming = rb_const_get_at(mTracegraph, id_naming);
    return rb_funcall(naming, id_block_name, 5, c->label, c->owner, c->mid, c->line, c->method_name);
}

VALUE tg_block_name(VALUE frame, int line, VALUE owner, ID owner_mid, VALUE method_name)
{
    VALUE label = rb_profile_frame_label(frame);
    naming_call c = {
        .label = RB_TYPE_P(label, T_STRING) ? rb_str_dup(label) : rb_str_new_cstr("block"),
        .owner = owner ? owner : Qnil,
        .mid = owner_mid ? ID2SYM(owner_mid) : Qnil,
        .line = INT2FIX(line),
        .method_name = method_name,
    };
    int state = 0;
    VALUE name = rb_protect(call_block_name, (VALUE)&c, &state);
    if (state || !RB_TYPE_P(name, T_STRING)) {
        rb_set_errinfo(Qnil);
        name = c.label;
    }
    return rb_enc_associate(rb_str_dup(name), rb_utf8_encoding());
}

VALUE tg_block_location(VALUE frame, int line)
{
    VALUE path = rb_profile_frame_path(frame);
    if (RB_TYPE_P(path, T_STRING)) path = rb_enc_associate(rb_str_dup(path), rb_utf8_encoding());
    else path = Qnil;
    return rb_ary_new_from_args(2, path, INT2FIX(line));
}

void tg_block_frames_init(VALUE mod)
{
    mTracegraph = mod;
    id_naming = rb_intern("Naming");
    id_block_name = rb_intern("block_name");
}

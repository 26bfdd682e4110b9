/* block_frames.c - see block_frames.h. */
#include "block_frames.h"

#include <string.h>

bool block_frames_public_frame(rb_trace_arg_t *arg, VALUE *frame, int *line)
{
    VALUE buf[1] = {Qnil};
    if (rb_profile_frames(0, 1, buf, NULL) != 1 || NIL_P(buf[0])) return false;
    VALUE lineno = rb_tracearg_lineno(arg);   /* at b_call: the iseq's first line */
    *frame = buf[0];
    *line = FIXNUM_P(lineno) ? FIX2INT(lineno) : 0;
    return true;
}

bool block_frames_public_is_block(VALUE frame)
{
    VALUE label = rb_profile_frame_label(frame);
    return RB_TYPE_P(label, T_STRING) && RSTRING_LEN(label) > 6 && memcmp(RSTRING_PTR(label), "block ", 6) == 0;
}

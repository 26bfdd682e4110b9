/* public_frames.c - see public_frames.h. */
#include "public_frames.h"

#include <string.h>
#include <ruby/debug.h>

#define MAX_FRAMES PUBLIC_FRAMES_MAX_DEPTH

static VALUE frames[MAX_FRAMES];
static int depth;

uint64_t public_frames_walk(void)
{
    depth = rb_profile_frames(0, MAX_FRAMES, frames, NULL);
    if (depth <= 0 || depth >= MAX_FRAMES) {
        depth = 0;
        return 0;
    }
    return PUBLIC_FRAMES_BASE - (uint64_t)depth;
}

VALUE public_frames_at(uint64_t position)
{
    if (position > PUBLIC_FRAMES_BASE || position == 0) return Qundef;
    uint64_t d = PUBLIC_FRAMES_BASE - position;
    if (d == 0 || d > (uint64_t)depth) return Qundef;
    return frames[depth - (int)d];
}

bool public_frames_is_method(VALUE frame, ID mid)
{
    VALUE name = rb_profile_frame_method_name(frame);
    VALUE want = rb_id2str(mid);
    if (!RB_TYPE_P(name, T_STRING) || !want || !RB_TYPE_P(want, T_STRING)) return false;
    return name == want ||
           (RSTRING_LEN(name) == RSTRING_LEN(want) && memcmp(RSTRING_PTR(name), RSTRING_PTR(want), (size_t)RSTRING_LEN(want)) == 0);
}

/*
 * tg_stride.h - "is this offset a whole number of strides?" without a
 * division on the hot path.
 *
 * The binding asks it of every call (is a remembered stack position still
 * a frame boundary?), and a 64-bit division costs tens of cycles. For a
 * stride 2^k * m with m odd, x is a multiple of it exactly when its low k
 * bits are zero and (x >> k) * inverse(m) mod 2^64 is at most
 * (2^64 - 1) / m: multiplying by the inverse maps the multiples of m onto
 * 0, 1, 2, ... and everything else above them.
 */
#ifndef TG_STRIDE_H
#define TG_STRIDE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct tg_stride {
    uint64_t low_mask;   /* 2^k - 1 */
    unsigned shift;      /* k */
    uint64_t inverse;    /* m * inverse == 1 (mod 2^64) */
    uint64_t limit;      /* (2^64 - 1) / m */
} tg_stride;

/* stride must be positive. */
static inline void tg_stride_init(tg_stride *s, uint64_t stride)
{
    unsigned k = (unsigned)__builtin_ctzll(stride);
    uint64_t m = stride >> k;
    uint64_t inv = m;   /* Newton's iteration: each step doubles the correct low bits */
    for (int i = 0; i < 5; i++) inv *= 2 - m * inv;
    *s = (tg_stride){.low_mask = (1ull << k) - 1, .shift = k, .inverse = inv, .limit = UINT64_MAX / m};
}

static inline bool tg_stride_divides(const tg_stride *s, uint64_t x)
{
    return (x & s->low_mask) == 0 && (x >> s->shift) * s->inverse <= s->limit;
}

#endif

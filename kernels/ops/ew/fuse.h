/* ops/ew/fuse.h - one instruction of arrayfun's fused chain on an
 * accumulator (ops/ew/fuse.cu), the same code for the interpreting kernel,
 * the host's loop and the chains compiled at run time (NVRTC compiles this
 * text, embedded in the library, with the chain). The constants
 * GD_SINGLE, GD_DOUBLE and GD_FUSE_* come from gd.h, or from the compiled
 * chain's first lines. */
#ifndef GD_EW_FUSE_H
#define GD_EW_FUSE_H

#include "ops/ew/arith.h"

/* input element q in class T (single, double or a logical's byte) */
template <class T> GD_EW T fuse_load(const void *p, int cls, int64_t q)
{
    if (cls == GD_SINGLE) return (T)((const float *)p)[q];
    if (cls == GD_DOUBLE) return (T)((const double *)p)[q];
    return (T)((const uint8_t *)p)[q];
}

/* one instruction on the accumulator: acc op v (v op acc where swap);
 * 1 where Octave's result would be complex */
template <class T> GD_EW int fuse_apply(int op, int swap, T &acc, T v)
{
    if (op == GD_FUSE_LOAD) {
        acc = v;
        return 0;
    }
    const T x = swap ? v : acc, y = swap ? acc : v;
    if (op >= GD_FUSE_CMP) {
        acc = (T)ew_compare<T, T>(op - GD_FUSE_CMP, x, y);
        return 0;
    }
    if (op >= GD_FUSE_UNARY) {
        const int u = op - GD_FUSE_UNARY;
        const int bad = ((u == EW_SQRT || u == EW_LOG || u == EW_LOG2) && acc < 0) ||
                        (u == EW_LOG1P && acc < -1);
        acc = ew_unary_op<T>(u, acc);
        return bad;
    }
    switch (op) {
    case EW_POWER: {
        const int bad = x < 0 && y != (T)trunc((double)y);
        acc = ew_power<T, T, T>(x, y);
        return bad;
    }
    case EW_MAX2:
    case EW_MIN2: acc = ew_max_min<T>(op, x, y); return 0;
    case EW_MOD:
    case EW_REM: acc = ew_float_modrem<T>(op, x, y); return 0;
    default: acc = ew_float_op<T>(op, x, y); return 0;
    }
}

#endif

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

/* input elements 4 g .. 4 g + 3 in class T, by one load where the class
 * allows (single: 16 bytes, double: two of 16, a logical's bytes: 4); the
 * array aligned to 16 bytes */
template <class T> GD_EW void fuse_load4(const void *p, int cls, int64_t g, T (&x)[4])
{
#ifdef __CUDA_ARCH__
    if (cls == GD_SINGLE) {
        const float4 v = ((const float4 *)p)[g];
        x[0] = (T)v.x, x[1] = (T)v.y, x[2] = (T)v.z, x[3] = (T)v.w;
        return;
    }
    if (cls == GD_DOUBLE) {
        const double2 a = ((const double2 *)p)[2 * g], b = ((const double2 *)p)[2 * g + 1];
        x[0] = (T)a.x, x[1] = (T)a.y, x[2] = (T)b.x, x[3] = (T)b.y;
        return;
    }
    const uchar4 v = ((const uchar4 *)p)[g];
    x[0] = (T)v.x, x[1] = (T)v.y, x[2] = (T)v.z, x[3] = (T)v.w;
#else
    for (int e = 0; e < 4; ++e) x[e] = fuse_load<T>(p, cls, 4 * g + e);
#endif
}

/* result elements 4 g .. 4 g + 3 by one store where the class allows */
template <class TR> GD_EW void fuse_store4(TR *R, int64_t g, const TR (&r)[4])
{
#ifdef __CUDA_ARCH__
    if constexpr (sizeof(TR) == 4) {
        ((float4 *)R)[g] = make_float4(r[0], r[1], r[2], r[3]);
        return;
    } else if constexpr (sizeof(TR) == 8) {
        ((double2 *)R)[2 * g] = make_double2(r[0], r[1]);
        ((double2 *)R)[2 * g + 1] = make_double2(r[2], r[3]);
        return;
    } else {
        ((uchar4 *)R)[g] = make_uchar4(r[0], r[1], r[2], r[3]);
        return;
    }
#else
    for (int e = 0; e < 4; ++e) R[4 * g + e] = r[e];
#endif
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

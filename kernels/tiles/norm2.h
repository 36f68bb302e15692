/* norm2.h - the Euclidean distance of two rows the careful way, for the
 * pairs whose plain sum of squares leaves the normal range.
 *
 * gd sums (x - y)^2 directly: fast, and within a few ulp of the statistics
 * package's pdist, which takes norm (x - y) (Octave's scaled accumulation,
 * as LAPACK's dnrm2 does). The plain sum overflows to Inf where the
 * distance itself is finite (rows 1e200 and -1e200: 2e200) and underflows
 * to 0 or to a subnormal that has lost its digits (rows 1e-200 apart).
 * Such a pair is recomputed here with Octave's accumulator: the largest
 * |x - y| so far as the scale, squares of ratios summed. A sum at or above
 * GD_RESCUE_LO_* (the smallest normal number times 2^digits) keeps every
 * digit the scaled form would; below it, or Inf, the pair is recomputed.
 * Shared by the CPU loops (cpu.c) and the GPU kernels (pdist.cu).
 */
#ifndef GD_NORM2_H
#define GD_NORM2_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define GD_HD static __host__ __device__ __forceinline__
#else
#define GD_HD static inline
#endif

#define GD_RESCUE_LO_F 0x1p-102f /* FLT_MIN * 2^24 */
#define GD_RESCUE_LO_D 0x1p-969  /* DBL_MIN * 2^53 */

/* 1 when sum of squares s may have lost digits to underflow or overflow
 * (NaN: never; a NaN in a row gives NaN either way). */
GD_HD int gd_rescue_f(float s) { return s < GD_RESCUE_LO_F || s == INFINITY; }
GD_HD int gd_rescue_d(double s) { return s < GD_RESCUE_LO_D || s == INFINITY; }

/* norm (x - y) over d features, x(k) at x[ldx * k], y(k) at y[ldy * k],
 * accumulated as Octave's norm does: exactly 0 for equal rows, NaN for a
 * NaN, Inf only where a difference is. */
#define GD_DEFINE_SCALED_NORM(NAME, T, SQRT, FABS)                              \
    GD_HD T NAME(const T *x, int64_t ldx, const T *y, int64_t ldy, int64_t d)  \
    {                                                                          \
        T scl = 0, sum = 1;                                                    \
        for (int64_t k = 0; k < d; ++k) {                                      \
            const T t = FABS(x[ldx * k] - y[ldy * k]);                         \
            if (scl == t) {                                                    \
                sum += 1;                                                      \
            } else if (scl < t) {                                              \
                sum *= (scl / t) * (scl / t);                                  \
                sum += 1;                                                      \
                scl = t;                                                       \
            } else if (t != 0) {                                               \
                sum += (t / scl) * (t / scl);                                  \
            }                                                                  \
        }                                                                      \
        return scl * SQRT(sum);                                                \
    }

GD_DEFINE_SCALED_NORM(gd_scaled_norm_f, float, sqrtf, fabsf)
GD_DEFINE_SCALED_NORM(gd_scaled_norm_d, double, sqrt, fabs)

#ifdef __cplusplus
/* The same for the kernels' templates (pdist.cu, knn.cu): whether a sum
 * needs the rescue, the scaled norm, and the correctly rounded root. */
GD_HD bool gd_rescue(float s) { return gd_rescue_f(s); }
GD_HD bool gd_rescue(double s) { return gd_rescue_d(s); }
GD_HD float gd_scaled_norm(const float *x, int64_t ldx, const float *y, int64_t ldy, int64_t d)
{
    return gd_scaled_norm_f(x, ldx, y, ldy, d);
}
GD_HD double gd_scaled_norm(const double *x, int64_t ldx, const double *y, int64_t ldy,
                            int64_t d)
{
    return gd_scaled_norm_d(x, ldx, y, ldy, d);
}
GD_HD float gd_root(float x) { return sqrtf(x); }
GD_HD double gd_root(double x) { return sqrt(x); }
#endif

#endif

/* metric.cuh - the statistics package's metrics on the GPU, shared by
 * pdist's and pdist2's tuned kernels (pdist.cu) and the fused nearest
 * neighbours (knn.cu): each metric is a step of the register tile
 * (tile.cuh) and, where the sum alone does not give the distance, what
 * turns the sum into it (the rows' norms and NaN flags for cosine, hamming
 * and jaccard; minkowski's root and scaled form; the Euclidean root and
 * rescue, norm2.h). The expressions are the host's (cpu.c), so that the
 * distances are the cpu variant's.
 *
 * Below them the metric policies of the fused kernels: a type per metric
 * that names the tile's step and says how a sum becomes the distance and
 * whether a sum can be rejected against a threshold before it does.
 *
 * Everything here is in an anonymous namespace: each file that includes it
 * has its own copy (minkowski's exponent in constant memory included).
 */
#ifndef GD_METRIC_CUH
#define GD_METRIC_CUH

#include "runtime/runtime.h"
#include "tiles/norm2.h"
#include "tiles/tile.cuh"

#include <math.h>
#include <stdint.h>

namespace {

// cosine, hamming, jaccard: per row its norm (sqrt of the sum of squares, each
// product and sum rounded on its own, in feature order: the host's) and
// whether it holds NaN; after the tile, each distance from its sum and
// the two rows' (the host's expressions, so its values to the bit).
template <class T> __device__ __forceinline__ T mul_rn(T a, T b);
template <> __device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
template <> __device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
template <class T> __device__ __forceinline__ T add_rn(T a, T b);
template <> __device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
template <> __device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

// rows 0 .. rows-1 of X (leading dimension ld, d features); threads along
// the rows, so each feature's loads are contiguous
template <class T>
__global__ void row_info(const T *__restrict__ X, int64_t ld, int64_t rows, int64_t d,
                         T *__restrict__ norm, unsigned char *__restrict__ nan)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows;
         i += (int64_t)gridDim.x * blockDim.x) {
        T sum = 0;
        bool f = false;
        for (int64_t k = 0; k < d; ++k) {
            const T x = X[i + ld * k];
            sum = add_rn(sum, mul_rn(x, x));
            f |= x != x;
        }
        norm[i] = sqrt(sum);
        nan[i] = f;
    }
}

// jaccard's two counts, from the bits gd_tile::jaccard_counts left
__device__ __forceinline__ void counts(float v, float *num, float *den)
{
    const unsigned u = __float_as_uint(v);
    *num = (float)(u & 0xffffu);
    *den = (float)(u >> 16);
}
__device__ __forceinline__ void counts(double v, double *num, double *den)
{
    const unsigned long long u = (unsigned long long)__double_as_longlong(v);
    *num = (double)(u & 0xffffffffull);
    *den = (double)(u >> 32);
}

template <class T>
__device__ __forceinline__ T epilogue(gd_metric m, T v, T ni, T nj, bool fi, bool fj, int64_t d)
{
    if (m == GD_COSINE) {
        v = 1 - v / (ni * nj);
        return v < 0 ? 0 : v;
    }
    if (m == GD_JACCARD) {
        T num, den;
        counts(v, &num, &den);
        return fi || fj ? (T)NAN : num / den;
    }
    return fi || fj ? (T)NAN : v / (T)d; // hamming
}

// minkowski: sum |x - y|^p, then its 1/p-th power; where the sum
// overflowed or lost digits to underflow (Inf, or below TINY), the host's
// scaled form, norm (x - y, p) as Octave computes it: the largest |x - y|
// times (sum (|x - y| / it)^p)^(1/p). p lives in constant memory (one
// call at a time uses it on a device; each file that includes this has
// its own), set before the launches by set_minkowski_p.
__constant__ float c_minkowski_pf;
__constant__ double c_minkowski_pd;
__device__ __forceinline__ float minkowski_p(float) { return c_minkowski_pf; }
__device__ __forceinline__ double minkowski_p(double) { return c_minkowski_pd; }
__device__ __forceinline__ float tiny(float) { return 0x1p-100f; }
__device__ __forceinline__ double tiny(double) { return 0x1p-960; }

// t^p for t = |x - y| (>= 0, Inf or NaN) and p > 0, finite, other than
// 3 and 4 (minkowski_int_step): not pow (in double a call of some hundred
// FP64 instructions, in single some 89 inline) but 2^(p log2 t), with the
// exponent kept apart so that only log2 of the mantissa carries error:
// t = m 2^e with m in [sqrt(1/2), sqrt(2)); p e split exactly into
// z + zl (FMA); 2^(p e + p log2 m) = 2^k 2^f with k an integer and |f| <=
// 1/2. Single takes log2 and 2^f from the two MUFU approximations: the
// term's relative error is about p 2^-23 + 2^-22 (lg2's absolute error
// is 2^-22.6 on the mantissa, ex2's relative 2^-22.5). Double takes the
// library's log2 and exp2 (a unit in the last place each, |log2 m| <=
// 1/2): about (p/2 + 2) units of 2^-53. After the sum and the 1/p-th
// power the distance is a few units in the last place off: the tests'
// and the bench's 64 and 20 eps hold it (tests/check_metrics.m prints
// the largest). Zero, Inf and NaN give 0, Inf and NaN as pow does; terms
// past the range give 0 or Inf, and a sum that leaves it takes the
// scaled form. Double's is a call, as pow was, not a copy of log2's and
// exp2's code in each of the tile's unrolled steps.
__device__ __noinline__ double minkowski_pow(double t, double p)
{
    const bool sub = t < 0x1p-1022;                   // subnormal or 0
    const long long bits = __double_as_longlong(sub ? t * 0x1p54 : t);
    const long long e = (bits - 0x3fe6a09e667f3bcdLL) >> 52; // sqrt(1/2)
    const double m = __longlong_as_double(bits - (e << 52)), fe = (double)(sub ? e - 54 : e);
    const double l = log2(m);                         // |l| <= 1/2
    const double z = p * fe, zl = fma(p, fe, -z), zi = rint(z);
    const double w = (z - zi) + fma(p, l, zl), wi = rint(w), f = w - wi;
    double r = exp2(f);
    // 2^k as two powers of two in the double range (k within [-1100,
    // 1100]: past it the term is 0 or Inf all the same)
    const int k = (int)fmin(fmax(zi + wi, -1100.), 1100.), k1 = k >> 1;
    r = r * __longlong_as_double((long long)(k1 + 1023) << 52) *
        __longlong_as_double((long long)(k - k1 + 1023) << 52);
    r = t == 0 ? 0. : r;
    return t == t && t != INFINITY ? r : t;
}
__device__ __forceinline__ float minkowski_pow(float t, float p)
{
    const bool sub = t < 0x1p-126f;                 // subnormal or 0
    const int bits = __float_as_int(sub ? t * 0x1p24f : t);
    const int e = (bits - 0x3f3504f3) >> 23;        // 0x3f3504f3: sqrt(1/2)
    const float m = __int_as_float(bits - (e << 23)), fe = (float)(sub ? e - 24 : e);
    float l, r;
#ifdef __CUDA_ARCH__
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(l) : "f"(m)); // |l| <= 1/2
#else
    l = log2f(m); // the build without CUDA compiles, never runs, this
#endif
    const float z = p * fe, zl = fmaf(p, fe, -z), zi = rintf(z);
    const float w = (z - zi) + fmaf(p, l, zl), wi = rintf(w), f = w - wi;
#ifdef __CUDA_ARCH__
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(f));
#else
    r = exp2f(f);
#endif
    // 2^k as two powers of two in the float range (k within [-252, 254]:
    // past it the term is 0 or Inf all the same)
    const int k = (int)fminf(fmaxf(zi + wi, -252.f), 254.f), k1 = k >> 1;
    r = r * __int_as_float((k1 + 127) << 23) * __int_as_float((k - k1 + 127) << 23);
    r = t == 0 ? 0.f : r;
    return t == t && t != INFINITY ? r : t;
}

// the distance from minkowski's sum, s^(1/p)
template <class T> __device__ __forceinline__ T minkowski_root(T s) { return pow(s, 1 / minkowski_p(s)); }

struct minkowski_step {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    template <class T> __device__ static void step(T &acc, T a, T b)
    {
        acc += minkowski_pow(fabs(a - b), minkowski_p(a));
    }
};

// p = 3 or 4 (minkowski_int_p): |x - y|^p by multiplication, t^2 t or
// t^2 t^2 fused into the sum (four instructions a step beside pow's
// some thirty in single, a call of the library's in double); the term's
// error is a unit in the last place or two, as pow's; past the range
// the sum is Inf or below TINY, and the scaled form takes over as above.
// One step serves both exponents (a select on the exponent read once),
// so that the metric adds one policy, not two, to each kernel file.
__device__ __forceinline__ bool minkowski_four(float) { return c_minkowski_pf == 4.f; }
__device__ __forceinline__ bool minkowski_four(double) { return c_minkowski_pd == 4.; }
struct minkowski_int_step {
    enum { K = 1, WITNESS = 0 };
    template <class T> __device__ static T init() { return (T)0; }
    template <class T> __device__ static void step(T &acc, T a, T b)
    {
        const T t = fabs(a - b), t2 = t * t;
        acc = fma(t2, minkowski_four(a) ? t2 : t, acc);
    }
};

// whether minkowski's p takes the multiplying step
static inline bool minkowski_int_p(double p) { return p == 3 || p == 4; }

// minkowski's scaled form, norm (x - y, p) as Octave computes it, of rows
// x (stride ldx) and y (stride ldy); in double a call below (its two
// library pows inlined in each of a tile's unrolled outputs took ptxas
// minutes a kernel), in single inline (a call spills in the fused kNN)
template <class T>
__device__ __forceinline__ T minkowski_scaled_rows(const T *__restrict__ x, int64_t ldx,
                                                   const T *__restrict__ y, int64_t ldy, int64_t d)
{
    const T p = minkowski_p(T(0));
    T scl = 0, sum = 0;
    for (int64_t k = 0; k < d; ++k) {
        const T t = fabs(x[ldx * k] - y[ldy * k]);
        scl = t > scl ? t : scl;
    }
    if (scl > 0 && scl != (T)INFINITY)
        for (int64_t k = 0; k < d; ++k) sum += pow(fabs(x[ldx * k] - y[ldy * k]) / scl, p);
    return scl > 0 && scl != (T)INFINITY ? scl * pow(sum, 1 / p) : scl;
}
__device__ __noinline__ double minkowski_scaled(const double *x, int64_t ldx, const double *y,
                                                int64_t ldy, int64_t d)
{
    return minkowski_scaled_rows(x, ldx, y, ldy, d);
}
__device__ __forceinline__ float minkowski_scaled(const float *x, int64_t ldx, const float *y,
                                                  int64_t ldy, int64_t d)
{
    return minkowski_scaled_rows(x, ldx, y, ldy, d);
}

// whether the sum v overflowed or lost digits (the scaled form then)
template <class T> __device__ __forceinline__ bool minkowski_slow(T v)
{
    return v == (T)INFINITY || v < tiny(v);
}

// the distance of rows x and y from their sum v
template <class T>
__device__ T minkowski_finish(T v, const T *__restrict__ x, int64_t ldx, const T *__restrict__ y,
                              int64_t ldy, int64_t d)
{
    if (!minkowski_slow(v)) return minkowski_root(v);
    return minkowski_scaled(x, ldx, y, ldy, d);
}

// sets the exponent for the kernels above, on st (a copy from pageable
// memory: the source is read before the call returns). Not in the steps'
// microbenchmark (bench/fp64_mix.cu: GD_STEPS_ONLY), which links no gd.
#ifndef GD_STEPS_ONLY
gd_status set_minkowski_p(double p, cudaStream_t st)
{
    const float pf = (float)p;
    gd_status s = gd_cuda(cudaMemcpyToSymbolAsync(c_minkowski_pf, &pf, sizeof pf, 0, cudaMemcpyHostToDevice, st), "minkowski's exponent");
    if (s) return s;
    return gd_cuda(cudaMemcpyToSymbolAsync(c_minkowski_pd, &p, sizeof p, 0, cudaMemcpyHostToDevice, st), "minkowski's exponent");
}
#endif

/* ---------------------------------------------------------------------
 * The metric policies (knn.cu). What they read of the call: */
template <class T> struct metric_data {
    gd_metric metric;
    int64_t d;
    const T *nx, *ny;              /* cosine, hamming, jaccard: the rows' norms */
    const unsigned char *fx, *fy;  /* and NaN flags (X's, Y's) */
};

/* A policy M: M::Step, the tile's step; M(md); m.value(sum, i, j), the
 * distance of X's row i and Y's row j from their sum; m.slow(sum), whether
 * the distance needs the rows themselves instead (then m.slow_value(x,
 * ldx, y, ldy), from the rows); BOUND: whether a sum can be compared with
 * m.bound(r, largest), computed once per threshold r (a distance): a sum
 * above it (below it, largest) has a distance that cannot beat r, nor is
 * it NaN; NaN rejects nothing. Without BOUND every distance is computed
 * and compared. FINISH: how a store makes the distance of a sum:
 * FINISH_ROOT, the root or the sum itself by the call's metric (euclidean
 * or squaredeuclidean, the stores' own rescue); FINISH_NONE, the sum is the
 * distance; FINISH_POLICY, through value and slow_value. */
enum { FINISH_ROOT, FINISH_NONE, FINISH_POLICY };

// euclidean (root) and squaredeuclidean
template <class T> struct m_euclid {
    typedef gd_tile::sqdist Step;
    enum { BOUND = 1 };
    static constexpr int FINISH = FINISH_ROOT;
    bool root;
    int64_t d;
    __device__ m_euclid(const metric_data<T> &md) : root(md.metric == GD_EUCLIDEAN), d(md.d) {}
    __device__ T value(T s, int64_t, int64_t) const { return root ? gd_root(s) : s; }
    __device__ bool slow(T s) const { return root && gd_rescue(s); }
    __device__ T slow_value(const T *x, int64_t ldx, const T *y, int64_t ldy) const
    {
        return gd_scaled_norm(x, ldx, y, ldy, d);
    }
    // the root: sqrt (sum) > r however the root rounds, with a margin of
    // 2^-20 (single) or 2^-40 (double) on the square (three roundings of
    // 2^-24 (2^-53) stay far inside it); sums that left the normal range
    // (rescued, not rooted) are never rejected while they could beat r
    __device__ T bound(T r, bool largest) const
    {
        if (r != r || !root) return r;
        const T m = sizeof(T) == 4 ? (T)0x1p-20 : (T)0x1p-40;
        const T lo = sizeof(T) == 4 ? (T)GD_RESCUE_LO_F : (T)GD_RESCUE_LO_D;
        if (!largest) {
            if (r >= (sizeof(T) == 4 ? (T)1e18 : (T)1e150)) return (T)NAN; // overflowed sums
            const T tr = r * (1 + m), b = tr * tr * (1 + m);
            return b > lo ? b : lo; // underflowed sums pass
        }
        const T tr = r * (1 - m), b = tr * tr * (1 - m);
        return b < 4 * lo ? (T)NAN : b;
    }
};

// cityblock, chebychev: the sum is the distance
template <class T, class S> struct m_plain {
    typedef S Step;
    enum { BOUND = 1 };
    static constexpr int FINISH = FINISH_NONE;
    __device__ m_plain(const metric_data<T> &) {}
    __device__ T value(T s, int64_t, int64_t) const { return s; }
    __device__ bool slow(T) const { return false; }
    __device__ T slow_value(const T *, int64_t, const T *, int64_t) const { return 0; }
    __device__ T bound(T r, bool) const { return r; }
};

// minkowski: the sum's 1/p-th power, or the scaled form (S: the step,
// pow's or, for p = 3 and 4, the multiplying one)
template <class T, class S> struct m_minkowski {
    typedef S Step;
    enum { BOUND = 0 };
    static constexpr int FINISH = FINISH_POLICY;
    int64_t d;
    __device__ m_minkowski(const metric_data<T> &md) : d(md.d) {}
    __device__ T value(T s, int64_t, int64_t) const { return minkowski_root(s); }
    __device__ bool slow(T s) const { return minkowski_slow(s); }
    __device__ T slow_value(const T *x, int64_t ldx, const T *y, int64_t ldy) const
    {
        return minkowski_scaled(x, ldx, y, ldy, d);
    }
    __device__ T bound(T, bool) const { return (T)NAN; }
};

// cosine, hamming, jaccard: the sum and the two rows' norms and NaN flags
template <class T, class S> struct m_rows {
    typedef S Step;
    enum { BOUND = 0 };
    static constexpr int FINISH = FINISH_POLICY;
    metric_data<T> md;
    __device__ m_rows(const metric_data<T> &m) : md(m) {}
    __device__ T value(T s, int64_t i, int64_t j) const
    {
        return epilogue(md.metric, s, md.nx[i], md.ny[j], (bool)md.fx[i], (bool)md.fy[j], md.d);
    }
    __device__ bool slow(T) const { return false; }
    __device__ T slow_value(const T *, int64_t, const T *, int64_t) const { return 0; }
    __device__ T bound(T, bool) const { return (T)NAN; }
};

/* The one dispatch of the metrics on the GPU (pdist, pdist2, knn): the
 * policy of each metric the GPU computes, F::template run<M> () for the
 * metric's M (correlation and spearman arrive as cosine, seuclidean and
 * mahalanobis as euclidean, on rows prepared for them; squaredeuclidean
 * is m_euclid too, its root not taken; minkowski's p picks its step). */
template <class T, class F>
auto with_metric(gd_metric m, double p, const F &f) -> decltype(f.template run<m_euclid<T>>())
{
    switch (m) {
    case GD_CITYBLOCK: return f.template run<m_plain<T, gd_tile::absdist>>();
    case GD_CHEBYCHEV: return f.template run<m_plain<T, gd_tile::maxabs>>();
    case GD_MINKOWSKI:
        if (minkowski_int_p(p)) return f.template run<m_minkowski<T, minkowski_int_step>>();
        return f.template run<m_minkowski<T, minkowski_step>>();
    case GD_COSINE: return f.template run<m_rows<T, gd_tile::dot_rn>>();
    case GD_HAMMING: return f.template run<m_rows<T, gd_tile::neq>>();
    case GD_JACCARD: return f.template run<m_rows<T, gd_tile::jaccard_counts>>();
    default: return f.template run<m_euclid<T>>();
    }
}

// a step's cost, roughly, in single euclidean's (the H100's rates: double's
// FP64 pipe, minkowski's pow): sizes pdist's panels so that each of a long
// call's takes some 100 ms, which is how long Ctrl-C waits for them
static inline double metric_step_cost(gd_metric m, double p, bool dbl)
{
    if (m == GD_MINKOWSKI && !minkowski_int_p(p)) return dbl ? 200 : 30;
    return dbl ? 8 : 2;
}

// whether a metric needs the rows' norms and NaN flags (row_info)
static inline bool metric_rows(gd_metric m)
{
    return m == GD_COSINE || m == GD_HAMMING || m == GD_JACCARD;
}

} // namespace

#endif

/* ops/pdist/pdist.h - what pdist.cu (pdist's condensed triangle) and pdist2.cu
 * (pdist2's matrix through the product driver) share: the triangle's
 * index maps, the rescue of Euclidean sums that left the normal range,
 * and the choice of variant for a metric. Each file gets its own copy (an
 * anonymous namespace; the rescue flag too: each file's kernels raise and
 * read their own). Two files so that the two sets of tiles, one per
 * metric and class each, compile in parallel. C++, internal. */
#ifndef GD_PDIST_H
#define GD_PDIST_H

#include "tiles/dmma.cuh"
#include "tiles/metric.cuh"
#include "tiles/norm2.h"
#include "ops/product/product.h"
#include "runtime/op.h"
#include "tiles/tile.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

enum { BIG = gd_tile::BIG, BIG_BK = 8, SUB = 32 };

__host__ __device__ __forceinline__ int64_t tri_start(int64_t j, int64_t n)
{
    return j * (2 * n - j - 1) / 2; // pairs in columns 0 .. j-1
}

// The column j of condensed index t (start(j) <= t < start(j + 1)).
__device__ __forceinline__ int64_t tri_column(int64_t t, int64_t n)
{
    const double b = 2.0 * (double)n - 1.0;
    int64_t j = (int64_t)floor((b - sqrt(b * b - 8.0 * (double)t)) / 2.0);
    if (j < 0) j = 0;
    if (j > n - 2) j = n - 2;
    while (j > 0 && tri_start(j, n) > t) --j;
    while (j < n - 2 && tri_start(j + 1, n) <= t) ++j;
    return j;
}

// Tiles (or subsets) with the diagonal: column c of an L-wide triangle
// holds L - c tiles; tile p of the enumeration is in column c with
// c(2L - c + 1)/2 <= p.
__device__ __forceinline__ int64_t diag_start(int64_t c, int64_t L)
{
    return c * (2 * L - c + 1) / 2;
}
__device__ __forceinline__ int64_t diag_column(int64_t p, int64_t L)
{
    const double b = 2.0 * (double)L + 1.0;
    int64_t c = (int64_t)floor((b - sqrt(b * b - 8.0 * (double)p)) / 2.0);
    if (c < 0) c = 0;
    if (c > L - 1) c = L - 1;
    while (c > 0 && diag_start(c, L) > p) --c;
    while (c < L - 1 && diag_start(c + 1, L) <= p) ++c;
    return c;
}

// Euclidean sums that left the normal range (norm2.h) are recomputed by a
// rescue kernel after each launch; a store that meets one raises this flag
// (a compare per stored value), and the rescue kernel scans its part of D
// only when it is up, so ordinary data pay one launch of empty blocks. The
// flag goes down at the end of each call; left up by a call that failed,
// it costs the next one a scan, never a wrong result.
__device__ int g_rescue;

template <class T, bool SQRT> struct finish {
    __device__ T operator()(T x) const
    {
        if (!SQRT) return x;
        if (gd_rescue(x)) g_rescue = 1;
        return gd_root(x);
    }
};





// The rescue of a panel of the condensed triangle (pairs t0 <= t < t1, D
// at t0) and of a block of pdist2's D (m x n, leading dimension ldd):
// each stored value whose square left the normal range is recomputed from
// the rows (X(i,k) at X[i + ldx k]) by the scaled accumulation.
template <class T>
__global__ void rescue_triangle(const T *__restrict__ X, int64_t ldx, T *__restrict__ D,
                                int64_t n, int64_t d, int64_t t0, int64_t t1)
{
    if (!g_rescue) return;
    for (int64_t t = t0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < t1;
         t += (int64_t)gridDim.x * blockDim.x) {
        const T r = D[t - t0];
        if (!gd_rescue(r * r)) continue; // r * r: within rounding, the sum
        const int64_t j = tri_column(t, n), i = t - tri_start(j, n) + j + 1;
        D[t - t0] = gd_scaled_norm(X + i, ldx, X + j, ldx, d);
    }
}

template <class T>
__global__ void rescue_rect(const T *__restrict__ X, int64_t ldx, const T *__restrict__ Y,
                            int64_t ldy, T *__restrict__ D, int64_t ldd, int64_t m, int64_t n,
                            int64_t d)
{
    if (!g_rescue) return;
    const int64_t count = m * n;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e % m, j = e / m;
        const T r = D[i + ldd * j];
        if (!gd_rescue(r * r)) continue; // r * r: within rounding, the sum
        D[i + ldd * j] = gd_scaled_norm(X + i, ldx, Y + j, ldy, d);
    }
}

// one launch of rescue blocks: enough to cover the GPU, each thread
// striding over the part
static unsigned rescue_blocks(int64_t count)
{
    const int64_t want = (count + 255) / 256, most = 4 * (int64_t)gd_sm_count();
    return (unsigned)(want < most ? (want > 0 ? want : 1) : most);
}

gd_status rescue_lower(cudaStream_t st)
{
    int *flag;
    gd_status s = gd_cuda(cudaGetSymbolAddress((void **)&flag, g_rescue), "the rescue flag");
    if (s) return s;
    return gd_cuda(cudaMemsetAsync(flag, 0, sizeof(int), st), "lowering the rescue flag");
}

// 'auto' below this many (pair, feature) triples: the host finishes
// before a GPU round trip would (pdist and pdist2 alike)
const double AUTO_CPU_BELOW = 1 << 16;

// 'auto' takes 'dmma' (single, the Euclidean two, an sm_90 GPU) from this
// many features: on an H200, 'tuned' / dmma, pdist 16384 x 128 1.05x
// (euclidean) and 1.10x (squared), x 300 1.27x and 1.37x, 8192 x 2048 1.52x
// and 1.62x, pdist2 16384^2 x 128 1.02x and 1.07x; pdist at 64 features
// 0.84x (kernels/NOTES.md "dmma")
const int64_t DMMA_AUTO_D = 128;
/* the form of dmma's tile for a metric: the Euclidean two and cosine */
int dmma_form(gd_metric m)
{
    return m == GD_EUCLIDEAN ? gd_dmma::ROOT : m == GD_COSINE ? gd_dmma::COS : gd_dmma::SQ;
}
bool dmma_auto(gd_metric m, gd_class cls, int64_t d)
{
    return cls == GD_SINGLE && gd_metric_on_gpu(m) && d >= DMMA_AUTO_D && gd_cc_major() >= 9;
}

// whether name is a GPU variant of the list
bool gpu_named(const char *name, const gd_variant_info *list, int count)
{
    for (int i = 0; i < count; ++i)
        if (strcmp(list[i].name, name) == 0) return list[i].gpu != 0;
    return false;
}

/* The variant for a metric in gd_pdist and gd_pdist2 (computed in class
 * cls, d features): 'dmma' in single alone; the Euclidean two on every
 * variant, the others on
 * 'tuned' and 'cpu' ('auto' stays: it takes tuned wherever it takes the
 * GPU), except jaccard in single past 65535 features, whose counts would
 * not fit the tile's 16 bits: 'cpu'. */
gd_status pdist_metric_variant(gd_metric m, const char **name, bool gpu_variant, gd_class cls,
                               int64_t d)
{
    if (strcmp(*name, "dmma") == 0 && cls != GD_SINGLE)
        return gd_fail(GD_ERR_VARIANT, "variant 'dmma' computes single; double runs on 'tuned' "
                       "('auto' chooses)");
    if (gd_metric_on_gpu(m) || (m == GD_COSINE && strcmp(*name, "dmma") == 0)) return GD_OK;
    if (!gd_metric_on_tuned(m)) return gd_fail(GD_ERR_INPUT, "unknown metric %d", (int)m);
    if (m == GD_JACCARD && cls == GD_SINGLE && d > 65535) {
        if (!gpu_variant) {
            if (strcmp(*name, "auto") == 0) *name = "cpu";
            return GD_OK;
        }
        return gd_fail(GD_ERR_VARIANT, "jaccard in single on the GPU counts at most 65535 "
                       "features (X has %lld); the 'cpu' variant takes any ('auto' chooses it)",
                       (long long)d);
    }
    if (!gpu_variant || strcmp(*name, "tuned") == 0) return GD_OK; // auto, cpu, tuned
    return gd_fail(GD_ERR_VARIANT, "variant '%s' computes the euclidean and squaredeuclidean "
                   "metrics%s; the others run on 'tuned' and 'cpu' ('auto' chooses)", *name,
                   strcmp(*name, "dmma") == 0 ? " and cosine (correlation, spearman)" : "");
}

} // namespace

/* pdist's GPU call in double (pdist_d.cu): the variant of the table
 * (gpu.cuh) named variant, columns [jlo, jhi) of the triangle (jhi
 * -1: all) */
gd_status gd_pdist_run_gpu_d(const char *variant, const gd_matrix &X, gd_metric metric, double p,
                             gd_out out, gd_timing *t, int64_t jlo, int64_t jhi);

#endif

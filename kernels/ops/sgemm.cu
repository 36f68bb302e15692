/* sgemm.cu - single-precision matrix multiply C = A*B on the GPU.
 *
 * The ladder of Michael Wolfe, "Compilers and More: Optimizing GPU
 * Kernels" (HPCwire, 2008), which is written column-major with pitches as
 * Octave stores matrices. His a(i,j) += b(i,k)*c(k,j) is our
 * C(i,j) += A(i,k)*B(k,j):
 *
 *   k1-W         one thread per C(i,j); the i loop strip-mined to a block of
 *                W threads (W = 32, 64, 128), one block per strip and column
 *   k2-W[-uU]    k1 with the strip of B's column j that the k loop reads
 *                staged in shared memory, W elements at a time; -u2
 *                unrolls the inner k loop twice
 *   k3-W-iI      k2 with the i loop unrolled: I outputs per thread, rows
 *                i, i+W, ... (I = 2, 3)
 *   k4-W-jJ[-kU] k2 with the j loop unrolled: J columns per block share
 *                each A element loaded (J = 2, 4), k loop unrolled U times
 *   k5           16x16 tiles of A and B in shared memory, one output per
 *                thread
 *   tuned        128x128 block tiles, 8x8 outputs per thread in
 *                registers, 16-byte loads, A and B both stored k-major in
 *                shared memory (B transposed by the preparation kernel),
 *                16 k-steps a stage, three stages copied in by cp.async
 *                while one is computed
 *   cublas       cublasSgemm, FP32 math (no TF32): the reference
 *
 * Sizes that are not multiples of a kernel's tile, two ways (the
 * article's discussion): Edges 'pad' (default) runs the kernels on
 * operands padded with zeros by a device-side preparation kernel (zeros
 * add nothing to a sum of products) and copies the padded result back with
 * cudaMemcpy2D; Edges 'guard' runs them on Octave's own layout with every
 * load and store bounds-checked. tuned always pads; cublas needs neither.
 */
#include "ops/product.h"
#include "tiles/tile.cuh"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

// ---------------------------------------------------------------------------
// k1: one thread per output, W threads per strip of i, one column j per
// block row (strided over j past the grid's 65535 rows).

template <int W, bool GUARD>
__global__ void __launch_bounds__(W)
sgemm_k1_strip(const float *__restrict__ A, const float *__restrict__ B,
               float *__restrict__ C, int64_t m, int64_t n, int64_t k,
               int64_t lda, int64_t ldb, int64_t ldc)
{
    const int64_t i = blockIdx.x * (int64_t)W + threadIdx.x;
    if (GUARD && i >= m) return;
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        float sum = 0.0f;
        for (int64_t kk = 0; kk < k; ++kk) sum += A[i + lda * kk] * B[kk + ldb * j];
        C[i + ldc * j] = sum;
    }
}

// ---------------------------------------------------------------------------
// k2, k3, k4: one family. A block of W threads covers I*W rows (rows i,
// i+W, ... per thread: k3) and J columns (k4); the W-long strips of B's J
// columns are staged in shared memory, so the inner loop reads only A from
// global memory, each A element used for J columns. k2 is I = J = 1. KU
// unrolls the inner k loop (1: not unrolled).

template <int W, int I, int J, int KU, bool GUARD>
__global__ void __launch_bounds__(W)
sgemm_k234_strip(const float *__restrict__ A, const float *__restrict__ B,
                 float *__restrict__ C, int64_t m, int64_t n, int64_t k,
                 int64_t lda, int64_t ldb, int64_t ldc)
{
    __shared__ float cb[J][W];
    const int tx = threadIdx.x;
    const int64_t i0 = blockIdx.x * (int64_t)(W * I) + tx;
    for (int64_t j0 = blockIdx.y * (int64_t)J; j0 < n; j0 += (int64_t)gridDim.y * J) {
        float sum[I][J];
#pragma unroll
        for (int r = 0; r < I; ++r)
#pragma unroll
            for (int c = 0; c < J; ++c) sum[r][c] = 0.0f;
        for (int64_t ks = 0; ks < k; ks += W) {
#pragma unroll
            for (int c = 0; c < J; ++c)
                cb[c][tx] = (!GUARD || (ks + tx < k && j0 + c < n))
                                ? B[ks + tx + ldb * (j0 + c)] : 0.0f;
            __syncthreads();
            const int kmax = GUARD ? (int)(k - ks < W ? k - ks : W) : W;
#pragma unroll KU
            for (int kk = 0; kk < kmax; ++kk) {
#pragma unroll
                for (int r = 0; r < I; ++r) {
                    const int64_t i = i0 + r * W;
                    const float a = (!GUARD || i < m) ? A[i + lda * (ks + kk)] : 0.0f;
#pragma unroll
                    for (int c = 0; c < J; ++c) sum[r][c] += a * cb[c][kk];
                }
            }
            __syncthreads();
        }
#pragma unroll
        for (int r = 0; r < I; ++r)
#pragma unroll
            for (int c = 0; c < J; ++c) {
                const int64_t i = i0 + r * W;
                if (!GUARD || (i < m && j0 + c < n)) C[i + ldc * (j0 + c)] = sum[r][c];
            }
    }
}

// ---------------------------------------------------------------------------
// k5: 16x16 tiles of A and B in shared memory, one output per thread
// (thread (tx, ty) owns C(i0 + tx, j0 + ty)). Both tile loads run along
// the contiguous dimension (i for A, k for B); rows padded by one float.

template <bool GUARD>
__global__ void sgemm_k5_tiled(const float *__restrict__ A,
                               const float *__restrict__ B,
                               float *__restrict__ C, int64_t m, int64_t n,
                               int64_t k, int64_t lda, int64_t ldb, int64_t ldc)
{
    __shared__ float at[16][17], bt[16][17]; // at[k][i], bt[j][k]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t i = blockIdx.x * 16 + tx;
    for (int64_t j0 = blockIdx.y * 16; j0 < n; j0 += (int64_t)gridDim.y * 16) {
        const int64_t j = j0 + ty;
        float sum = 0.0f;
        for (int64_t ks = 0; ks < k; ks += 16) {
            at[ty][tx] = (!GUARD || (i < m && ks + ty < k)) ? A[i + lda * (ks + ty)] : 0.0f;
            // B(ks + tx, j0 + ty): consecutive tx read consecutive k
            bt[ty][tx] = (!GUARD || (ks + tx < k && j < n)) ? B[ks + tx + ldb * j] : 0.0f;
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < 16; ++kk) sum += at[kk][tx] * bt[ty][kk];
            __syncthreads();
        }
        if (!GUARD || (i < m && j < n)) C[i + ldc * j] = sum;
    }
}

// ---------------------------------------------------------------------------
// tuned: the 128x128 block tile of tile.cuh (256 threads, 8x8 outputs
// each, 16-byte loads, three shared stages of 16 k-steps filled by
// cp.async) with fused multiply-adds. When the output has fewer tiles
// than the GPU has SMs, the k range is split into S slices computed side
// by side and summed in slice order (split-k), so a result does not
// depend on timing: in a cluster of the slices' blocks (sm_90 on, where
// they fit at once; tile.cuh), else into a workspace and by a second
// kernel.

__global__ void sum_slices(const float *__restrict__ W, float *__restrict__ C, int64_t count,
                           int slices)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < count;
         e += (int64_t)gridDim.x * blockDim.x) {
        float v = W[e];
        for (int z = 1; z < slices; ++z) v += W[e + count * z];
        C[e] = v;
    }
}

// ---------------------------------------------------------------------------
// launchers. In 'pad' mode the padded sizes stand in for m, n, k: every
// thread has a row, a column and whole strips; the kernels' guards are
// compiled out.

struct dims {
    int64_t m, n, k;
};
dims sizes(const gd_plan &p, bool guard)
{
    dims d = {guard ? p.m : p.mp, guard ? p.n : p.np, guard ? p.k : p.kp};
    return d;
}

template <int W, bool GUARD> gd_status launch_k1(const gd_plan &p)
{
    dims d = sizes(p, GUARD);
    dim3 grid((unsigned)((d.m + W - 1) / W), gd_grid_y(d.n));
    sgemm_k1_strip<W, GUARD><<<grid, W, 0, p.st>>>(
        (const float *)p.A, (const float *)p.B, (float *)p.C, d.m, d.n, d.k, p.lda, p.ldb, p.ldc);
    return GD_OK;
}

template <int W, int I, int J, int KU, bool GUARD> gd_status launch_k234(const gd_plan &p)
{
    dims d = sizes(p, GUARD);
    dim3 grid((unsigned)((d.m + W * I - 1) / (W * I)), gd_grid_y((d.n + J - 1) / J));
    sgemm_k234_strip<W, I, J, KU, GUARD><<<grid, W, 0, p.st>>>(
        (const float *)p.A, (const float *)p.B, (float *)p.C, d.m, d.n, d.k, p.lda, p.ldb, p.ldc);
    return GD_OK;
}

template <bool GUARD> gd_status launch_k5(const gd_plan &p)
{
    dims d = sizes(p, GUARD);
    dim3 grid((unsigned)((d.m + 15) / 16), gd_grid_y((d.n + 15) / 16));
    sgemm_k5_tiled<GUARD><<<grid, dim3(16, 16), 0, p.st>>>(
        (const float *)p.A, (const float *)p.B, (float *)p.C, d.m, d.n, d.k, p.lda, p.ldb, p.ldc);
    return GD_OK;
}

// Split-k: when the output has fewer 128x128 tiles than the GPU has SMs,
// the k range is cut into slices (whole stages) so that about one block
// runs on each SM. One block an SM, not two: on an H100 (132 SMs), 1024^3
// in 2 slices (128 blocks) took 58.4 us, in 4 (256 blocks, two an SM, as
// the kernel's bounds allow) 63.1, unsplit 96.2; 512^3 in 8 slices 19.8,
// in 2 (slices of at least 256 k-steps, the earlier rule) 32.2; each
// further slice is another pass over the output in sum_slices.
struct split {
    int slices;
    int64_t kchunk; // whole stages; every slice non-empty
};
template <int BK> split split_for(const gd_plan &p)
{
    // (from the whole result's sizes: a device's panel of it, or a block,
    // is cut as the whole is, so that its sums are the same)
    int64_t tiles = ((p.args.whole_m + gd_tile::BIG - 1) / gd_tile::BIG) *
                    ((p.args.whole_n + gd_tile::BIG - 1) / gd_tile::BIG);
    if (tiles < 1) tiles = 1; /* (an empty result launches nothing) */
    int64_t s = tiles >= gd_sm_count() ? 1 : gd_sm_count() / tiles;
    if (s > 16) s = 16;
    long asked;
    if (gd_setting_int(GD_SET_SPLIT, 1, 16, &asked) > 0) s = asked;
    if (s > p.kp / BK) s = p.kp / BK;
    if (s < 1) s = 1;
    split r;
    r.kchunk = gd_round_up((p.kp + s - 1) / s, BK);
    r.slices = (int)((p.kp + r.kchunk - 1) / r.kchunk);
    return r;
}

typedef gd_tile::layout<16, 16, 2, true> tuned_layout;
template <int BK>
constexpr auto cluster_kernel =
    gd_tile::cluster_split_kernel<gd_tile::muladd, float, BK, tuned_layout, gd_tile::identity>;

// a launch of the cluster form: grid (tiles of mp, tiles of ny, slices),
// clusters of the slices
struct cluster_launch {
    cudaLaunchAttribute at[1];
    cudaLaunchConfig_t cfg;
    cluster_launch(int64_t mp, int64_t ny, int slices, cudaStream_t st) : at(), cfg()
    {
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = 1;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = (unsigned)slices;
        cfg.gridDim = dim3((unsigned)(mp / gd_tile::BIG), (unsigned)ny, (unsigned)slices);
        cfg.blockDim = dim3(tuned_layout::TX * tuned_layout::TY);
        cfg.dynamicSmemBytes = gd_tile::SPLIT_SMEM;
        cfg.stream = st;
        cfg.attrs = at;
        cfg.numAttrs = 1;
    }
};

/* How many clusters of `slices` blocks the device runs at once (0: none,
 * or before sm_90), asked once per device and count. A cluster's blocks
 * run in one GPC, so the GPCs' sizes decide: on an H100, 32 clusters of 4
 * (1000 x 3000 x 500) did not fit at once and took two waves, 148 us
 * against the second kernel's 80. */
template <int BK> int max_clusters(int slices)
{
    static int known[GD_MAX_DEVICES][gd_tile::SPLIT_CLUSTER_MAX + 1]; /* the count + 1 */
    int &k = known[gd_ordinal()][slices];
    if (k) return k - 1;
    int n = 0;
    if (gd_cc_major() >= 9) {
        cluster_launch l(gd_tile::BIG, 1, slices, 0);
        if (gd_dynamic_smem<cluster_kernel<BK>>(gd_tile::SPLIT_SMEM) != cudaSuccess ||
            cudaOccupancyMaxActiveClusters(&n, cluster_kernel<BK>, &l.cfg) != cudaSuccess) {
            n = 0;
            cudaGetLastError(); /* (a refusal is an answer: the second kernel sums) */
        }
    }
    k = n + 1;
    return n;
}

/* Where the slices are summed: in a cluster of their blocks (sm_90 on, up
 * to 8 slices, and every tile's cluster running at once: no workspace, no
 * second kernel), else through the workspace by sum_slices. The same sums
 * in the same order either way. */
template <int BK> bool in_cluster(const gd_plan &p, const split &sp)
{
    return sp.slices > 1 && sp.slices <= gd_tile::SPLIT_CLUSTER_MAX &&
           !gd_setting_is(GD_SET_SPLIT_SUM, "kernel") &&
           (p.mp / gd_tile::BIG) * (p.np / gd_tile::BIG) <= max_clusters<BK>(sp.slices);
}

template <int BK> size_t work_tuned(const gd_plan &p)
{
    const split sp = split_for<BK>(p);
    return sp.slices > 1 && !in_cluster<BK>(p, sp)
               ? (size_t)(p.mp * p.np) * sp.slices * sizeof(float)
               : 0;
}

// launches the cluster form over the mp x np product (several launches
// where the tile columns pass the grid's y limit)
template <int BK> gd_status launch_split_cluster(const gd_plan &p, const split &sp)
{
    const int64_t tiles_j = p.np / gd_tile::BIG;
    cudaError_t e = cudaSuccess;
    for (int64_t jt = 0; e == cudaSuccess && jt < tiles_j; jt += 65535) {
        const int64_t ny = tiles_j - jt < 65535 ? tiles_j - jt : 65535;
        cluster_launch l(p.mp, ny, sp.slices, p.st);
        e = cudaLaunchKernelEx(&l.cfg, cluster_kernel<BK>, (const float *)p.A, (const float *)p.B,
                               (float *)p.C, p.mp, p.np, p.kp, sp.kchunk, jt);
    }
    return gd_cuda(e, "the split-k cluster's launch");
}

template <int BK> gd_status launch_tuned(const gd_plan &p)
{
    const split sp = split_for<BK>(p);
    if (in_cluster<BK>(p, sp)) return launch_split_cluster<BK>(p, sp);
    const int64_t count = p.mp * p.np;
    float *out = sp.slices > 1 ? (float *)p.work : (float *)p.C;
    // one kernel, split or not: unsplit at 4096 the split-k form ran in
    // 2.93 ms, the form without the split arguments in 3.04 (measured with
    // the earlier two-stage register fill, not again since; ptxas's
    // schedules differ, and for min-plus it is the other way round)
    gd_tile::launch_big<gd_tile::muladd, float, BK, tuned_layout, gd_tile::identity, true>((const float *)p.A, (const float *)p.B, out, p.mp, p.np, p.kp,
                              sp.kchunk, count, (int)sp.slices, p.st);
    if (sp.slices > 1) {
        const int64_t blocks = (count + 1023) / 1024;
        sum_slices<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, p.st>>>(
            out, (float *)p.C, count, sp.slices);
    }
    return GD_OK;
}

// cuBLAS: loaded with dlopen on the first use of the cublas variant, not
// linked: the library is 150 MB that every other call (and a machine
// without a GPU) never needs. One handle, bound to gd's stream, destroyed
// by gd_release (through the hook below); the library stays loaded.
struct cublas_api {
    cublasStatus_t (*create)(cublasHandle_t *);
    cublasStatus_t (*destroy)(cublasHandle_t);
    cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t);
    cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
    const char *(*status_string)(cublasStatus_t);
    cublasStatus_t (*sgemm)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const float *, const float *, int, const float *, int,
                            const float *, float *, int);
};
cublas_api g_api;
cublasHandle_t g_cublases[GD_MAX_DEVICES]; /* by CUDA ordinal */
#define g_cublas g_cublases[gd_ordinal()]

#define GD_STR2(x) #x
#define GD_STR(x) GD_STR2(x)
#define GD_CUBLAS_SONAME "libcublas.so." GD_STR(CUBLAS_VER_MAJOR)

gd_status cublas_load(void)
{
    if (g_api.sgemm) return GD_OK;
    // the toolkit gd was built with first, then the loader's search (the
    // gateway's runpath, LD_LIBRARY_PATH, the system's)
    static const char *const names[] = {
#ifdef GD_CUDA_LIB
        GD_CUDA_LIB "/" GD_CUBLAS_SONAME,
#endif
        GD_CUBLAS_SONAME};
    void *h = NULL;
    for (const char *name : names)
        if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) return gd_fail(GD_ERR_NOGPU, "cannot load cuBLAS (%s): %s", GD_CUBLAS_SONAME, dlerror());
    cublas_api a;
    struct { void **fn; const char *sym; } syms[] = {
        {(void **)&a.create, "cublasCreate_v2"},   {(void **)&a.destroy, "cublasDestroy_v2"},
        {(void **)&a.set_math_mode, "cublasSetMathMode"},
        {(void **)&a.set_stream, "cublasSetStream_v2"},
        {(void **)&a.status_string, "cublasGetStatusString"},
        {(void **)&a.sgemm, "cublasSgemm_v2"}};
    for (auto &e : syms)
        if (!(*e.fn = dlsym(h, e.sym)))
            return gd_fail(GD_ERR_NOGPU, "cuBLAS (%s) lacks %s", GD_CUBLAS_SONAME, e.sym);
    g_api = a;
    return GD_OK;
}

void release_cublas(void)
{
    for (int o = 0; o < GD_MAX_DEVICES; ++o) {
        if (!g_cublases[o]) continue;
        cudaSetDevice(o);
        g_api.destroy(g_cublases[o]);
        g_cublases[o] = NULL;
    }
    cudaSetDevice(gd_ordinal());
    cudaGetLastError();
}

gd_status cublas_check(cublasStatus_t c, const char *what)
{
    if (c == CUBLAS_STATUS_SUCCESS) return GD_OK;
    if (c == CUBLAS_STATUS_ALLOC_FAILED)
        return gd_fail(GD_ERR_MEMORY, "%s: out of GPU memory", what);
    return gd_fail(GD_ERR_CUDA, "%s failed: %s", what, g_api.status_string(c));
}

gd_status launch_cublas(const gd_plan &p)
{
    gd_status s;
    if ((s = cublas_load())) return s;
    if (!g_cublas) {
        if ((s = cublas_check(g_api.create(&g_cublas), "cublasCreate"))) {
            g_cublas = NULL;
            return s;
        }
        gd_on_release(release_cublas);
        // FP32 arithmetic: no TF32 tensor-core shortcut
        if ((s = cublas_check(g_api.set_math_mode(g_cublas, CUBLAS_DEFAULT_MATH), "cublasSetMathMode")))
            return s;
    }
    if (p.m > INT32_MAX || p.n > INT32_MAX || p.k > INT32_MAX)
        return gd_fail(GD_ERR_SIZE, "cublas takes sizes below 2^31");
    if ((s = cublas_check(g_api.set_stream(g_cublas, p.st), "cublasSetStream"))) return s;
    const float one = 1.0f, zero = 0.0f;
    return cublas_check(g_api.sgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, (int)p.m, (int)p.n,
                                    (int)p.k, &one, (const float *)p.A, (int)p.lda,
                                    (const float *)p.B, (int)p.ldb, &zero, (float *)p.C,
                                    (int)p.ldc),
                        "cublasSgemm");
}

// ---------------------------------------------------------------------------
// variant tables: the same names in the same order, one table per edge
// handling. K-variants: GD_PADDED (zeros, no guards) or GD_RAW (guards).

/* a K row: the table's layout and output, its name and note, the
 * multiples of mp, np and kp, its launcher (in parentheses: a template's
 * commas). One block each: the ladder compares the kernels themselves,
 * and in guard mode (GD_RAW, which sections of C would take) a 4096 product
 * in 2 x 2 blocks ran 8-13% longer than whole on an H100. */
#define K_ROW(LAYOUT, OUT, NAME, NOTE, ROWS, COLS, KS, LAUNCH)                                    \
    {.info = {.name = NAME, .note = NOTE, .gpu = 1},                                              \
     .in = LAYOUT,                                                                                \
     .padded_out = OUT,                                                                           \
     .row_mult = ROWS,                                                                            \
     .col_mult = COLS,                                                                            \
     .k_mult = KS,                                                                                \
     .run_f = LAUNCH,                                                                             \
     .one_block = true}
#define K_VARIANTS(G, LAYOUT, OUT)                                                                \
    K_ROW(LAYOUT, OUT, "k1-32", "one thread per output, i strip of 32 threads, one column per block",\
          32, 1, 1, (launch_k1<32, G>)),                                                          \
    K_ROW(LAYOUT, OUT, "k1-64", "k1 with strips of 64 threads: more warps per multiprocessor",    \
          64, 1, 1, (launch_k1<64, G>)),                                                          \
    K_ROW(LAYOUT, OUT, "k1-128", "k1 with strips of 128 threads",                                 \
          128, 1, 1, (launch_k1<128, G>)),                                                        \
    K_ROW(LAYOUT, OUT, "k2-32", "k1 with a 32-long strip of B's column cached in shared memory",  \
          32, 1, 32, (launch_k234<32, 1, 1, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k2-64", "k2 with strips of 64",                                           \
          64, 1, 64, (launch_k234<64, 1, 1, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k2-128", "k2 with strips of 128",                                         \
          128, 1, 128, (launch_k234<128, 1, 1, 1, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k2-64-u2", "k2-64 with the inner k loop unrolled twice",                  \
          64, 1, 64, (launch_k234<64, 1, 1, 2, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k3-32-i2", "k2-32 with the i loop unrolled: 2 outputs per thread (rows i, i+32)",\
          64, 1, 32, (launch_k234<32, 2, 1, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k3-32-i3", "k2-32 with 3 outputs per thread (rows i, i+32, i+64)",        \
          96, 1, 32, (launch_k234<32, 3, 1, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k3-64-i2", "k2-64 with 2 outputs per thread",                             \
          128, 1, 64, (launch_k234<64, 2, 1, 1, G>)),                                             \
    K_ROW(LAYOUT, OUT, "k4-32-j2", "k2-32 with the j loop unrolled: 2 columns share each A load", \
          32, 2, 32, (launch_k234<32, 1, 2, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k4-64-j2", "k4 with strips of 64, 2 columns",                             \
          64, 2, 64, (launch_k234<64, 1, 2, 1, G>)),                                              \
    K_ROW(LAYOUT, OUT, "k4-128-j2", "k4 with strips of 128, 2 columns",                           \
          128, 2, 128, (launch_k234<128, 1, 2, 1, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k4-128-j4", "k4 with strips of 128, 4 columns (4 partial sums)",          \
          128, 4, 128, (launch_k234<128, 1, 4, 1, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k4-128-j4-k2", "k4-128-j4 with the k loop unrolled twice",                \
          128, 4, 128, (launch_k234<128, 1, 4, 2, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k4-128-j4-k4", "k4-128-j4 with the k loop unrolled 4 times: the article's best",\
          128, 4, 128, (launch_k234<128, 1, 4, 4, G>)),                                           \
    K_ROW(LAYOUT, OUT, "k5", "16x16 tiles of A and B in shared memory, one output per thread",    \
          16, 16, 16, (launch_k5<G>))

#define SHARED_VARIANTS                                                                           \
    {.info = {.name = "tuned",                                                                    \
              .note = "128x128 tiles, 8x8 per thread in registers, 16-byte loads, three stages of 16 "\
                      "k-steps by cp.async, split-k on small grids (pads in either Edges mode)",  \
              .gpu = 1},                                                                          \
     .in = GD_PADDED_BT,                                                                          \
     .padded_out = true,                                                                          \
     .row_mult = 128,                                                                             \
     .col_mult = 128,                                                                             \
     .k_mult = 16,                                                                                \
     .run_f = launch_tuned<16>,                                                                   \
     .work_f = work_tuned<16>,                                                                    \
     .scratch_work = true},                                                                       \
    {.info = {.name = "cublas",                                                                   \
              .note = "cublasSgemm with FP32 math (no TF32): the reference",                      \
              .gpu = 1},                                                                          \
     .run_f = launch_cublas,                                                                      \
     .one_block = true},                                                                          \
    {.info = {.name = "cpu",                                                                      \
              .note = "the BLAS Octave uses (sgemm)",                                             \
              .gpu = 0}}

const gd_product_variant PAD_TABLE[] = {K_VARIANTS(false, GD_PADDED, true), SHARED_VARIANTS};
const gd_product_variant GUARD_TABLE[] = {K_VARIANTS(true, GD_RAW, false), SHARED_VARIANTS};
const int NVARIANTS = sizeof PAD_TABLE / sizeof PAD_TABLE[0];
static_assert(sizeof GUARD_TABLE == sizeof PAD_TABLE, "one entry per name in each table");

gd_status cpu_sgemm(gd_class, const void *A, const void *B, void *C, int *, int64_t m,
                    int64_t k, int64_t n, const gd_op_args &)
{
    const gd_status s = gd_cpu_sgemm((const float *)A, (const float *)B, (float *)C, m, k, n);
    if (s == GD_ERR_SIZE) return gd_fail(GD_ERR_SIZE, "the host BLAS takes sizes below 2^31");
    return s ? gd_fail(s, "interrupted") : GD_OK;
}

// Zeros add nothing to a sum; a sum over nothing is 0. auto: cublas (tuned
// is 1.5-3% slower at 2048, 4096 and 8192, ties at 4097 and 1000x3000x500
// and wins at 1000, bench/results and NOTES.md); below 2^20
// flops the host's BLAS finishes before a GPU round trip would.
// 'all' devices divide a product of 2^39 flops a device or more (n =
// 6500 a device: about 11 ms of cuBLAS on an H100): min-plus's measured
// break-even, with room for sgemm's larger share of copies (at n =
// 16384 two H200s gain 1.3x host to host), not measured at the threshold
const double SPLIT_MIN = 549755813888.0;
const gd_product_op OP = {.name = "sgemm",
                          .pad = 0.0,
                          .empty_k = 0.0,
                          .ops_per_step = 2.0,
                          .device_cpu = "cpu (BLAS)",
                          .auto_single = "cublas",
                          .auto_double = "cublas",
                          .auto_cpu_below = 1 << 20,
                          .cpu = cpu_sgemm,
                          /* large products in sections of C, copies beside
                           * kernels, as min-plus's ('cublas' in one) */
                          .panels = true,
                          .single_only = true,
                          .split_min = SPLIT_MIN};

/* A 1x1 operand: Octave multiplies by a scalar element by element, which
 * keeps the sign of a zero product (single (-0) * 5 is -0); a sum of
 * products starts at +0 and loses it. So C = a * B or A * b is computed
 * so, on the host (a vector's worth of products), whatever the variant. */
gd_status scalar_times(const gd_matrix *A0, const gd_matrix *B0, gd_out C, gd_timing *t)
{
    const double t0 = gd_now_ms();
    const int64_t m = A0->rows, n = B0->cols;
    gd_allocs conv = {};
    gd_matrix A1, B1, A, B;
    void *h[4] = {NULL, NULL, NULL, NULL}, *buf = NULL;
    const size_t bytes = (size_t)(m * n) * sizeof(float);
    char what[96];
    gd_describe(what, sizeof what, "C", m, n, GD_SINGLE);
    t->resident = (A0->where == GD_DEVICE ? 1u : 0u) | (B0->where == GD_DEVICE ? 2u : 0u);
    gd_status s;
    if (!(s = gd_operand_class(A0, GD_SINGLE, &A1, &conv, &h[0], "A")) &&
        !(s = gd_operand_class(B0, GD_SINGLE, &B1, &conv, &h[1], "B")) &&
        !(s = gd_operand_host(&A1, &A, &h[2], "A")) &&
        !(s = gd_operand_host(&B1, &B, &h[3], "B")) &&
        !(s = gd_host_result_begin(&C, bytes, what, &buf))) {
        const float *a = (const float *)A.ptr, *b = (const float *)B.ptr;
        float *c = (float *)buf;
        for (int64_t e = 0; e < m * n; ++e)
            c[e] = m == 1 ? a[0] * b[B.ld * e] : a[e] * b[0];
    }
    if (buf || C.device) s = gd_host_result_end(&C, buf, bytes, s, t);
    if (conv.n) {
        gd_timing ct;
        memset(&ct, 0, sizeof ct);
        gd_end_call(GD_OK, &conv, &ct);
    }
    for (int i = 0; i < 4; ++i) free(h[i]);
    snprintf(t->variant, sizeof t->variant, "elementwise");
    snprintf(t->device, sizeof t->device, "cpu");
    t->total_ms = gd_now_ms() - t0;
    return s;
}

} // namespace

extern "C" int gd_sgemm_variants(const gd_variant_info **list)
{
    static gd_variant_info infos[NVARIANTS];
    return gd_variant_infos(PAD_TABLE, NVARIANTS, infos, list);
}

extern "C" gd_status gd_sgemm(const char *name, gd_edges edges, const gd_matrix *A,
                              const gd_matrix *B, gd_out C, gd_timing *t)
{
    const gd_product_variant *table = edges == GD_EDGES_GUARD ? GUARD_TABLE : PAD_TABLE;
    if (A->cols == 1 && B->rows == 1 && (A->rows == 1 || B->cols == 1) && A->rows * B->cols > 0) {
        gd_entry entry(t);
        t->ops = 2.0 * (double)A->rows * (double)B->cols;
        if (strcmp(name, "auto") && !gd_row_named(table, NVARIANTS, name))
            return gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", name);
        return scalar_times(A, B, C, t);
    }
    const gd_op_args args = {};
    return gd_product(OP, table, NVARIANTS, name, A, B, C, args, t);
}

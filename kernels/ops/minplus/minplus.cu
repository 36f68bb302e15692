/* minplus.cu - the min-plus product R = A (x) B on the GPU.
 *
 * R(i,j) = min_k A(i,k) + B(k,j): the "shortcut" step of shortest paths,
 * following the kernel ladder of "Programming Parallel Computers", chapter 4
 * (versions 0-4), rewritten for Octave's column-major matrices:
 *
 *   v0  one thread per output; threadIdx.x walks j, so a warp's reads of B
 *       and its writes of R are strided (the naive mapping)
 *   v1  v0 with threadIdx.x walking i: A's column and R's column are read
 *       and written contiguously by each warp
 *   v2  each thread keeps 8x8 outputs of R in registers (64x64 per block
 *       of 8x8 threads), reading the padded A and the transposed B
 *   v3  v2 with operands staged through shared memory 4 k-steps at a time
 *   v4  v3 with 16-byte loads from global and shared memory, 16-byte stores
 *       into a padded R copied back with cudaMemcpy2D, __launch_bounds__
 *   v5  beyond the course: 128x64 tiles of 128 threads, four blocks an SM,
 *       8 k-steps a stage, three shared stages filled by cp.async (double:
 *       the distances' 128x64 of 128, two blocks an SM, two stages, the
 *       next prefetched into registers)
 *       (tile.cuh). In single, where no operand is negative (nor -0), the
 *       min runs on the sums' bit patterns as integers, three at a time
 *       (16 k-steps a stage)
 *
 * Layouts. v0/v1 read A (m x k) and B (k x n) as Octave holds them. v2-v5
 * read the layouts the preparation kernels build on the device:
 *   Ap  A, column-major, mp x kp:  Ap[i + mp*k]   (A(:,k) contiguous)
 *   Bt  B transposed,     np x kp:  Bt[j + np*k]   (B(k,:) contiguous)
 * mp, np: m, n rounded up to the tile (64, or 128 for v5); kp: k rounded up to the
 * staging depth. Padding holds NaN: the accumulator starts at NaN and fmin
 * skips NaN, so padded k-steps never change a result (padding with +Inf
 * would: Inf + -Inf is NaN, and a row of -Inf would become NaN). Padding
 * rows and columns of R are computed but never copied back.
 *
 * Semantics: fmin is Octave's min rule (NaN ignored unless every term is
 * NaN); sums are plain IEEE adds in the input's class, so results are
 * Octave's bit for bit, except that a zero minimum may carry the other
 * sign when +0 and -0 tie (the comparison disagrees on nothing else). v5
 * in double compares and selects instead of fmin (tile.cuh's minplus_sel,
 * 1.55 times fmin's rate): the first least sum stays, as in Octave's
 * min, so its zeros carry Octave's sign too, and the outputs whose every
 * term is NaN are found after the tile (all_nan).
 */
#include "ops/product/product.h"
#include "tiles/tile.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// v5 on the integer classes (minplus_int.cu): its launcher, workspace and
// the form it reports
gd_status gd_minplus_int_launch(const gd_plan &p);
size_t gd_minplus_int_work(const gd_plan &p);
void gd_minplus_int_after(const gd_plan &p, gd_timing *t);

namespace {

// ---------------------------------------------------------------------------
// helpers

enum { TILE = gd_tile::TILE, KPAD = 8, V5_BK = 8, V5_BK_NONNEG = 16 };

template <class T> __device__ __forceinline__ T nan_v();
template <> __device__ __forceinline__ float nan_v<float>() { return __int_as_float(0x7fffffff); }
template <> __device__ __forceinline__ double nan_v<double>() { return __longlong_as_double(0x7fffffffffffffffLL); }

__device__ __forceinline__ float gmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double gmin(double a, double b) { return fmin(a, b); }



#include "ops/minplus/v01_naive.cuh"
#include "ops/minplus/v2_registers.cuh"
#include "ops/minplus/v3_shared.cuh"
#include "ops/minplus/v4_vector.cuh"
#include "ops/minplus/v5_tile.cuh"
// ---------------------------------------------------------------------------
// launchers

template <class T, bool JFAST> gd_status launch_v01(const gd_plan &p)
{
    dim3 block(32, 8);
    int64_t fast = JFAST ? p.n : p.m, slow = JFAST ? p.m : p.n;
    dim3 grid((unsigned)((fast + 31) / 32), gd_grid_y((slow + 7) / 8));
    if (p.K)
        minplus_v01_naive<T, JFAST, true><<<grid, block, 0, p.st>>>(
            (const T *)p.A, (const T *)p.B, (T *)p.C, p.K, p.m, p.k, p.n);
    else
        minplus_v01_naive<T, JFAST, false><<<grid, block, 0, p.st>>>(
            (const T *)p.A, (const T *)p.B, (T *)p.C, NULL, p.m, p.k, p.n);
    return GD_OK;
}

template <class T> gd_status launch_v2(const gd_plan &p)
{
    dim3 grid((unsigned)(p.mp / TILE), gd_grid_y(p.np / TILE));
    minplus_v2_registers<T><<<grid, dim3(8, 8), 0, p.st>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.C, p.m, p.n, p.mp, p.np, p.kp);
    return GD_OK;
}

template <class T> gd_status launch_v3(const gd_plan &p)
{
    dim3 grid((unsigned)(p.mp / TILE), gd_grid_y(p.np / TILE));
    minplus_v3_shared<T><<<grid, dim3(8, 8), 0, p.st>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.C, p.m, p.n, p.mp, p.np, p.kp);
    return GD_OK;
}

template <class T> gd_status launch_v4(const gd_plan &p)
{
    dim3 grid((unsigned)(p.mp / TILE), gd_grid_y(p.np / TILE));
    minplus_v4_vector<T><<<grid, dim3(8, 8), 0, p.st>>>(
        (const T *)p.A, (const T *)p.B, (T *)p.C, p.mp, p.np, p.kp);
    return GD_OK;
}

const gd_product_variant VARIANTS[] = {
    {.info = {.name = "v0",
              .note = "one thread per output, threads along j: strided reads of B, strided writes",
              .gpu = 1},
     .run_f = launch_v01<float, true>,
     .run_d = launch_v01<double, true>,
     .witness = true},
    {.info = {.name = "v1",
              .note = "one thread per output, threads along i: each warp reads A and writes R contiguously",
              .gpu = 1},
     .run_f = launch_v01<float, false>,
     .run_d = launch_v01<double, false>,
     .witness = true},
    {.info = {.name = "v2",
              .note = "8x8 outputs per thread kept in registers, padded A and transposed B",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .row_mult = TILE,
     .col_mult = TILE,
     .k_mult = KPAD,
     .run_f = launch_v2<float>,
     .run_d = launch_v2<double>},
    {.info = {.name = "v3",
              .note = "v2 with 64x64 tiles staged through shared memory 4 k-steps at a time",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .row_mult = TILE,
     .col_mult = TILE,
     .k_mult = KPAD,
     .run_f = launch_v3<float>,
     .run_d = launch_v3<double>},
    {.info = {.name = "v4",
              .note = "v3 with 16-byte loads and stores, padded output, __launch_bounds__",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .padded_out = true,
     .row_mult = TILE,
     .col_mult = TILE,
     .k_mult = KPAD,
     .run_f = launch_v4<float>,
     .run_d = launch_v4<double>},
    {.info = {.name = "v5",
              .note = "128x64 tiles of 128 threads, 8x8 per thread, three shared stages of 8 k-steps "
                      "filled by cp.async; with no negative operand, an integer min of three a step "
                      "(double: 128x64 of 128, two blocks an SM, two stages through registers; the integer classes: "
                      "Hopper's DPX min(a + b, c) on 16- or 32-bit lanes, else 64-bit sums)",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .padded_out = true,
     .row_mult = gd_tile::BIG,
     .col_mult = gd_tile::BIG,
     .k_mult = V5_BK_NONNEG,
     .run_f = launch_v5<float>,
     .run_d = launch_v5<double>,
     .work_f = work_v5,
     .after = after_v5,
     .inspect = inspect_v5,
     .witness = true,
     .run_i = gd_minplus_int_launch},
    {.info = {.name = "cpu",
              .note = "OpenMP on the host, blocked for cache, Octave's min rule",
              .gpu = 0},
     .witness = true},
};
const int NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0];

gd_status cpu_minplus(gd_class cls, const void *A, const void *B, void *R, int *K,
                      int64_t m, int64_t k, int64_t n, const gd_op_args &)
{
    if (cls == GD_SINGLE)
        gd_cpu_minplus_f((const float *)A, (const float *)B, (float *)R, K, m, k, n);
    else if (cls == GD_DOUBLE)
        gd_cpu_minplus_d((const double *)A, (const double *)B, (double *)R, K, m, k, n);
    else if (gd_cpu_minplus_int(cls, A, B, R, K, m, k, n))
        return gd_fail(GD_ERR_INPUT, "min-plus: not a class it takes");
    return GD_OK;
}

// NaN padding never wins (see the top of this file); min over nothing is
// Inf. auto: v5 wins in both classes from 1024 (single) and 4096 (double)
// up (bench/results; in double at 1024 v2 and v3 are 20% faster). Below
// 2^17 steps the host finishes before a GPU round trip would; resident
// data that small goes to v1, which needs no layout preparation (a call
// on a 16 x 16 gdArray: 106 us against v5's 159, bench/results).
// 'all' devices divide a product where each gets 2^35 steps or more (n =
// 4096 on two devices: with A shared, host to host 9.9 -> 7.7 ms on two
// H200s and 15.0 -> 12.2 on two H100s, where uploading A whole each it
// was 9.7 -> 8.4); below, the second device's start and the threads cost
// about what they save (bench/results: the devices tables).
const double SPLIT_MIN = 34359738368.0;
const gd_product_op OP = {.name = "min-plus",
                          .pad = NAN,
                          .empty_k = INFINITY,
                          .ops_per_step = 1.0,
                          .device_cpu = "cpu (OpenMP)",
                          .auto_single = "v5",
                          .auto_double = "v5",
                          .auto_cpu_below = 1 << 17,
                          .cpu = cpu_minplus,
                          .panels = true,
                          .auto_small = "v1",
                          .split_min = SPLIT_MIN,
                          .auto_int = "v5",
                          .empty_int_max = true};

} // namespace

extern "C" int gd_minplus_variants(const gd_variant_info **list)
{
    static gd_variant_info infos[NVARIANTS];
    return gd_variant_infos(VARIANTS, NVARIANTS, infos, list);
}

extern "C" gd_status gd_minplus(const char *name, const gd_matrix *A, const gd_matrix *B,
                                gd_out R, const gd_place *at, gd_timing *t)
{
    const gd_op_args args = {};
    return gd_product(OP, VARIANTS, NVARIANTS, name, A, B, R, args, at, t);
}

/* R and K over a part of the inner dimension (rc, kc: its minima and
 * their k + 1 within the part) taken into those of the parts before (r,
 * k): a part's minimum replaces the one before where it is smaller (the
 * first k wins a tie) or the one before is NaN (every term was) */
struct take_part_fn {
    void *r;
    double *k;
    const void *rc;
    const int32_t *kc;
    size_t cells;
    int64_t k0;
    template <class T> void operator()() const
    {
        T *x = (T *)r;
        const T *y = (const T *)rc;
        for (size_t e = 0; e < cells; ++e)
            if (y[e] < x[e] || (x[e] != x[e] && y[e] == y[e])) {
                x[e] = y[e];
                k[e] = (double)k0 + kc[e];
            }
    }
};

/* The witness where k passes what int32 holds (the kernels' index): the
 * inner dimension in parts (at most 2^30, fewer where the GPU's padded
 * operands need it), each part's R and K on the host, taken
 * together in order (take_part_fn). K in double; host results. */
static gd_status witness_by_parts(const char *name, const gd_matrix *A, const gd_matrix *B,
                                  gd_out R, gd_out K, gd_class kcls, const gd_place *at,
                                  gd_timing *t)
{
    const int64_t m = A->rows, k = A->cols, n = B->cols;
    if (kcls != GD_DOUBLE)
        return gd_fail(GD_ERR_SIZE, "K's class int32 cannot hold an index of the inner dimension "
                       "%lld (past 2^31 - 1): ask 'IndexClass' 'double'", (long long)k);
    if (R.device || K.device)
        return gd_fail(GD_ERR_SIZE, "a witness over an inner dimension of %lld (past 2^31 - 1) "
                       "is taken on the host: gather the operands first", (long long)k);
    if (B->rows != k)
        return gd_fail(GD_ERR_SIZE, "inner dimensions must agree: A is %lldx%lld, B is %lldx%lld",
                       (long long)m, (long long)k, (long long)B->rows, (long long)B->cols);
    const bool ints = gd_class_is_int(A->cls);
    const gd_class cls = ints ? A->cls
                         : A->cls == GD_SINGLE || B->cls == GD_SINGLE ? GD_SINGLE : GD_DOUBLE;
    const size_t cells = (size_t)m * (size_t)n, es = gd_class_bytes(cls);
    char what[96];
    gd_status s;
    gd_describe(what, sizeof what, "R", m, n, cls);
    if ((s = gd_out_buffer(&R, cells * es, what))) return s;
    gd_describe(what, sizeof what, "K", m, n, GD_DOUBLE);
    if ((s = gd_out_buffer(&K, cells * sizeof(double), what))) return s;
    void *rc = malloc(cells * es + 1), *bpart = NULL;
    int32_t *kc = (int32_t *)malloc(cells * sizeof(int32_t) + 1);
    /* parts of at most 2^30, and small enough that the GPU kernels' padded
     * operands fit: the witness tiles pad A's rows to 128 and B's columns to
     * 64 with 8 bytes a lane (minplus_int.cu), so a part costs about
     * (m + 128) + (n + 64) lanes of 8 bytes a step of k; 4 GiB of them */
    const int64_t lanes = (m + 128) + (n + 64);
    int64_t part = ((int64_t)1 << 32) / (8 * lanes);
    part = part > ((int64_t)1 << 30) ? (int64_t)1 << 30 : part < 4096 ? 4096 : part & ~(int64_t)15;
    /* 'auto' takes the parts on the host: operands this wide have a few
     * rows and columns, where the GPU's witness tiles (128 x 64 outputs)
     * would do thousands of times the work and the transfer alone costs
     * more than the host's pass over the data */
    if (!name || strcmp(name, "auto") == 0) name = "cpu";
    gd_entry entry(at, t);
    gd_timing tp;
    memset(&tp, 0, sizeof tp);
    if (!rc || !kc)
        s = gd_fail(GD_ERR_MEMORY, "cannot allocate a part's R and K (%s) in host memory", what);
    for (int64_t k0 = 0; k0 < k && !s; k0 += part) {
        const int64_t kk = k - k0 < part ? k - k0 : part;
        gd_matrix Ap = *A, Bp = *B;
        Ap.ptr = (const char *)A->ptr + (size_t)k0 * (size_t)A->ld * gd_class_bytes(A->cls);
        Ap.cols = kk;
        Bp.ptr = (const char *)B->ptr + (size_t)k0 * gd_class_bytes(B->cls);
        Bp.rows = kk;
        if (n == 1) {
            Bp.ld = kk; /* one column: tight whatever its leading dimension */
        } else if (B->where == GD_HOST) {
            /* the part's rows of B, tight (the host variants take tight
             * operands) */
            const size_t bes = gd_class_bytes(B->cls);
            free(bpart);
            if (!(bpart = malloc((size_t)kk * (size_t)n * bes + 1))) {
                s = gd_fail(GD_ERR_MEMORY, "cannot allocate a part of B (%lld x %lld) in host "
                            "memory", (long long)kk, (long long)n);
                break;
            }
            for (int64_t j = 0; j < n; ++j)
                memcpy((char *)bpart + (size_t)j * (size_t)kk * bes,
                       (const char *)Bp.ptr + (size_t)j * (size_t)B->ld * bes, (size_t)kk * bes);
            Bp.ptr = bpart;
            Bp.ld = kk;
        }
        gd_out ro = {}, ko = {};
        ro.ptr = k0 ? rc : R.ptr;
        ko.ptr = kc;
        gd_op_args args = {};
        args.witness = &ko;
        args.witness_cls = GD_INT32;
        if ((s = gd_product(OP, VARIANTS, NVARIANTS, name, &Ap, &Bp, ro, args, at, &tp))) break;
        if (k0 == 0) {
            for (size_t e = 0; e < cells; ++e) ((double *)K.ptr)[e] = kc[e];
            *t = tp;
        } else {
            take_part_fn f = {R.ptr, (double *)K.ptr, rc, kc, cells, k0};
            if (cls == GD_SINGLE)
                f.operator()<float>();
            else if (cls == GD_DOUBLE)
                f.operator()<double>();
            else
                gd_with_int_class(cls, f);
            t->upload_ms += tp.upload_ms;
            t->kernel_ms += tp.kernel_ms;
            t->download_ms += tp.download_ms;
            t->total_ms += tp.total_ms;
            t->ops += tp.ops;
        }
    }
    free(rc);
    free(kc);
    free(bpart);
    return s;
}

extern "C" gd_status gd_minplus_witness(const char *name, const gd_matrix *A,
                                        const gd_matrix *B, gd_out R, gd_out K,
                                        gd_class kcls, const gd_place *at, gd_timing *t)
{
    if (A->cols > INT32_MAX) return witness_by_parts(name, A, B, R, K, kcls, at, t);
    gd_op_args args = {};
    args.witness = &K;
    args.witness_cls = kcls;
    return gd_product(OP, VARIANTS, NVARIANTS, name, A, B, R, args, at, t);
}

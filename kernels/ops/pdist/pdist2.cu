/* ops/pdist/pdist2.cu - pdist2's matrix D (mx x my) through the product driver
 * (product.h): X as A, Y given by rows as B, the tuned tile of pdist.cu's
 * header comment over the whole of D, every metric as the tile's step
 * (metric.cuh), the Euclidean sums that left the normal range rescued as
 * in pdist (pdist.h). The nearest-neighbour forms are knn.cu's. */
#include "ops/pdist/pdist.h"
#include "tiles/dmma.cuh"

namespace {

// pdist2, naive: one thread per D(i,j), threads along i.
template <class T, bool SQRT>
__global__ void pdist2_naive(const T *__restrict__ X, const T *__restrict__ Y,
                             T *__restrict__ D, int64_t mx, int64_t my, int64_t d)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= mx) return;
    for (int64_t j = blockIdx.y; j < my; j += gridDim.y) {
        T acc = 0;
        for (int64_t k = 0; k < d; ++k) {
            const T diff = X[i + mx * k] - Y[j + my * k];
            acc += diff * diff;
        }
        D[i + mx * j] = finish<T, SQRT>()(acc);
    }
}

// ---------------------------------------------------------------------------
// pdist2 through the product driver: A = X (mx x d), B = Y given by rows

template <class T> gd_status launch2_naive(const gd_plan &p)
{
    dim3 grid((unsigned)((p.m + 127) / 128), gd_grid_y(p.n));
    if (p.args.metric == GD_EUCLIDEAN) {
        pdist2_naive<T, true><<<grid, 128, 0, p.st>>>((const T *)p.A, (const T *)p.B, (T *)p.C, p.m, p.n, p.k);
        rescue_rect<T><<<rescue_blocks(p.m * p.n), 256, 0, p.st>>>(
            (const T *)p.A, p.m, (const T *)p.B, p.n, (T *)p.C, p.m, p.m, p.n, p.k);
    } else
        pdist2_naive<T, false><<<grid, 128, 0, p.st>>>((const T *)p.A, (const T *)p.B, (T *)p.C, p.m, p.n, p.k);
    return GD_OK;
}

// pdist2, tuned: the kernel of min-plus v5 and sgemm tuned (tile.cuh) with
// the metric's step: (x - y)^2 (the square root applied as each value is
// stored), |x - y| summed (cityblock) or maximised (chebychev).
// pdist2 tuned's store for the metrics with a finish (metric.cuh's policy
// M): D(i, j) from the sum and the rows (padded X and Y, ld mp and np),
// as it is stored; the padding's rows and columns get the sum.
template <class T, class M> struct store2_metric {
    enum { TILE = 0 };
    metric_data<T> md;
    T *C;
    int64_t ldc, m, n;
    const T *X, *Y;
    int64_t ldx, ldy;
    __device__ void operator()(int64_t i, int64_t j, T v, const T *, int64_t, const T *, int64_t,
                               int64_t) const
    {
        if (i < m && j < n) {
            const M mm(md);
            v = mm.slow(v) ? mm.slow_value(X + i, ldx, Y + j, ldy) : mm.value(v, i, j);
        }
        C[i + ldc * j] = v;
    }
};
/* tuned's tile in the call's metric (with_metric's policy M): the root and
 * its rescue for euclidean, the sum for the plain steps, the policy's
 * value for the others as each distance is stored */
template <class T> struct tile_in_metric {
    const gd_plan &p;
    const metric_data<T> &md;
    template <class M> void run() const
    {
        typedef gd_tile::dist_shape<T> S;
        const T *X = (const T *)p.A, *Y = (const T *)p.B;
        if constexpr (M::FINISH == FINISH_ROOT) {
            if (p.args.metric == GD_EUCLIDEAN) {
                gd_tile::launch_big<gd_tile::sqdist, T, BIG_BK, S, finish<T, true>>(
                    X, Y, (T *)p.C, p.mp, p.np, p.kp, p.kp, 0, 1, p.st);
                rescue_rect<T><<<rescue_blocks(p.m * p.n), 256, 0, p.st>>>(X, p.mp, Y, p.np,
                                                                          (T *)p.C, p.mp, p.m,
                                                                          p.n, p.k);
            } else {
                gd_tile::launch_big<gd_tile::sqdist, T, BIG_BK, S>(X, Y, (T *)p.C, p.mp, p.np,
                                                                   p.kp, p.kp, 0, 1, p.st);
            }
        } else if constexpr (M::FINISH == FINISH_NONE) {
            gd_tile::launch_big<typename M::Step, T, BIG_BK, S>(X, Y, (T *)p.C, p.mp, p.np, p.kp,
                                                                p.kp, 0, 1, p.st);
        } else {
            const store2_metric<T, M> out = {md, (T *)p.C, p.ldc, p.m, p.n, X, Y, p.mp, p.np};
            gd_tile::launch_each<typename M::Step, T, BIG_BK, S>(X, p.mp, Y, p.np, p.mp, p.np,
                                                                 p.kp, out, p.st);
        }
    }
};

template <class T> gd_status launch2_tuned(const gd_plan &p)
{
    // the rows' norms and NaN flags in the workspace (work2: cosine,
    // hamming, jaccard)
    T *nx = (T *)p.work, *ny = nx + p.mp;
    unsigned char *fx = (unsigned char *)(ny + p.np), *fy = fx + p.mp;
    metric_data<T> md;
    md.metric = p.args.metric;
    md.d = p.k;
    md.nx = nx;
    md.ny = ny;
    md.fx = fx;
    md.fy = fy;
    if (p.args.metric == GD_MINKOWSKI) {
        const gd_status s = set_minkowski_p(p.args.p, p.st);
        if (s) return s;
    }
    if (metric_rows(p.args.metric)) {
        row_info<T><<<gd_blocks_for(p.m, 256), 256, 0, p.st>>>((const T *)p.A, p.mp, p.m, p.k, nx, fx);
        row_info<T><<<gd_blocks_for(p.n, 256), 256, 0, p.st>>>((const T *)p.B, p.np, p.n, p.k, ny, fy);
    }
    with_metric<T>(p.args.metric, p.args.p, tile_in_metric<T>{p, md});
    return GD_OK;
}

// tuned's workspace: the rows' norms (8 bytes each, whatever the class) and
// NaN flags, for cosine and hamming
size_t work2(const gd_plan &p) { return (size_t)(p.mp + p.np) * 9; }

// after a call's work: the rescue flag goes down for the next call (no
// wait: the next call's kernels queue behind it on the same stream, or on
// the second one after an event recorded there)
void lower_after(const gd_plan &p, gd_class, gd_timing *)
{
    rescue_lower(p.st);
}

// dmma: tiles/dmma.cuh over the whole of D (single; C mp x np). The
// workspace: the centre (kp), the rows' norms (mp, np), the count.
enum { DM2_BM = 128, DM2_BK = 16 };
size_t work_dmma(const gd_plan &p) { return (size_t)(p.kp + p.mp + p.np + 1) * 8; }

template <int BM, int F> gd_status launch2_dmma_in(const gd_plan &p, const gd_dmma::args &a)
{
    typedef gd_dmma::shape<BM, DM2_BK> S;
    typedef gd_dmma::out_rect<BM> O;
    const int64_t ti = p.mp / BM, blocks = ti * (p.np / gd_dmma::BN);
    if (blocks > INT32_MAX)
        return gd_fail(GD_ERR_SIZE, "variant 'dmma' computes at most 2^31 tiles of D in a call");
    const O o = {(float *)p.C, p.ldc, p.m, p.n, ti};
    (void)gd_dynamic_smem<gd_dmma::dist<BM, DM2_BK, F, O>>(S::smem);
    gd_dmma::dist<BM, DM2_BK, F><<<(unsigned)blocks, gd_dmma::THREADS, S::smem, p.st>>>(a, o);
    return gd_cuda(cudaGetLastError(), "dmma kernel");
}

gd_status launch2_dmma(const gd_plan &p)
{
    if (gd_cc_major() < 9)
        return gd_fail(GD_ERR_VARIANT, "variant 'dmma' needs the FP64 tensor cores' m16n8k16 "
                       "(sm_90 or later)");
    const float *X = (const float *)p.A, *Y = (const float *)p.B;
    double *cen = (double *)p.work, *nx = cen + p.kp, *ny = nx + p.mp;
    unsigned long long *count = (unsigned long long *)(ny + p.np);
    const int f = dmma_form(p.args.metric);
    gd_status s = gd_cuda(cudaMemsetAsync(count, 0, 8, p.st), "clearing the count");
    if (!s) s = gd_cuda(gd_dmma::prepare(X, p.mp, p.m, p.k, p.kp, Y, p.np, cen, nx, ny, f == gd_dmma::COS, p.st),
                        "the centre and the rows' norms");
    if (s) return s;
    const gd_dmma::args a = {X, Y, p.mp, p.np, p.k, p.kp, cen, nx, ny, gd_dmma::kappa(p.k, f), count};
    return f == gd_dmma::ROOT  ? launch2_dmma_in<DM2_BM, gd_dmma::ROOT>(p, a)
           : f == gd_dmma::COS ? launch2_dmma_in<DM2_BM, gd_dmma::COS>(p, a)
                               : launch2_dmma_in<DM2_BM, gd_dmma::SQ>(p, a);
}

// the pairs the certificate left, in info.kernel
void after_dmma(const gd_plan &p, gd_class, gd_timing *t)
{
    unsigned long long k = 0;
    const double *count = (const double *)p.work + p.kp + p.mp + p.np;
    if (!gd_cuda(cudaMemcpy(&k, count, 8, cudaMemcpyDeviceToHost), "the count"))
        snprintf(t->kernel, sizeof t->kernel, "%llu of %lld pairs summed in double (not certified)",
                 k, (long long)(p.m * p.n));
}

const gd_product_variant VARIANTS2[] = {
    {.info = {.name = "naive",
              .note = "one thread per D(i,j), threads along i",
              .gpu = 1},
     .run_f = launch2_naive<float>,
     .run_d = launch2_naive<double>,
     .after = lower_after},
    {.info = {.name = "tuned",
              .note = "128x64 tiles of 128 threads, 8x8 pairs each, two shared "
                      "stages of 8 features, 16-byte loads and stores",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .padded_out = true,
     .row_mult = BIG,
     .col_mult = BIG,
     .k_mult = BIG_BK,
     .run_f = launch2_tuned<float>,
     .run_d = launch2_tuned<double>,
     .work_f = work2,
     .after = lower_after},
    {.info = {.name = "dmma",
              .note = "single: |x|^2 + |y|^2 - 2x.y in double on the FP64 tensor cores (sm_90), "
                      "each pair certified correctly rounded, the rest summed in double",
              .gpu = 1},
     .in = GD_PADDED_BT,
     .padded_out = true,
     .row_mult = 128,
     .col_mult = gd_dmma::BN,
     .k_mult = DM2_BK,
     .run_f = launch2_dmma,
     .work_f = work_dmma,
     .after = after_dmma},
    {.info = {.name = "cpu",
              .note = "OpenMP on the host, a column of D at a time",
              .gpu = 0}},
};
const int NVARIANTS2 = sizeof VARIANTS2 / sizeof VARIANTS2[0];

gd_status cpu_pdist2(gd_class cls, const void *X, const void *Y, void *D, int *, int64_t mx,
                     int64_t d, int64_t my, const gd_op_args &args)
{
    const int root = args.metric == GD_EUCLIDEAN;
    if (!gd_metric_on_gpu(args.metric)) {
        const gd_distance m = {args.metric, args.p};
        const int r = cls == GD_SINGLE
                          ? gd_cpu_pdist2_metric_f(m, (const float *)X, (const float *)Y, mx, my,
                                                   d, (float *)D)
                          : gd_cpu_pdist2_metric_d(m, (const double *)X, (const double *)Y, mx,
                                                   my, d, (double *)D);
        return r ? gd_fail(GD_ERR_MEMORY, "cannot allocate the rows' norms in host memory")
                 : GD_OK;
    }
    if (cls == GD_SINGLE)
        gd_cpu_pdist2_f((const float *)X, (const float *)Y, mx, my, d, root, (float *)D);
    else
        gd_cpu_pdist2_d((const double *)X, (const double *)Y, mx, my, d, root, (double *)D);
    return GD_OK;
}

// Zero features add (0 - 0)^2 = 0; no features: distance 0.
// 'all' devices divide pdist2 from 2^32 steps a device: two H100s, from
// the host, X = Y of 128 features: 4096 rows 1.05x, 8192 1.29x, 16384
// 1.22x (its result's copy to the host is most of its time, and each
// device has a link of its own)
const double SPLIT_MIN2 = 4294967296.0;
const gd_product_op OP2 = {.name = "pdist2",
                           .pad = 0.0,
                           .empty_k = 0.0,
                           .ops_per_step = 1.0,
                           .b_rows = true,
                           .device_cpu = "cpu (OpenMP)",
                           .auto_single = "tuned",
                           .auto_double = "tuned",
                           .auto_cpu_below = AUTO_CPU_BELOW,
                           .cpu = cpu_pdist2,
                           .auto_small = "naive",
                           .split_min = SPLIT_MIN2};

} // namespace

extern "C" int gd_pdist2_variants(const gd_variant_info **list)
{
    static gd_variant_info infos[NVARIANTS2];
    return gd_variant_infos(VARIANTS2, NVARIANTS2, infos, list);
}

extern "C" gd_status gd_pdist2(const char *name, const gd_matrix *X, const gd_matrix *Y,
                               gd_distance metric, gd_out D, const gd_place *at, gd_timing *t)
{
    gd_op_args args = {};
    args.metric = metric.metric;
    args.p = metric.p;
    gd_status s;
    const gd_variant_info *list;
    const int count = gd_pdist2_variants(&list);
    const gd_class cls = X->cls == GD_SINGLE || Y->cls == GD_SINGLE ? GD_SINGLE : GD_DOUBLE;
    if ((s = pdist_metric_variant(metric.metric, &name, gpu_named(name, list, count), cls,
                                  X->cols))) {
        gd_timing_reset(t);
        if (D.device) *D.device = NULL;
        return s;
    }
    /* 'auto' takes dmma where dmma_auto says (and a GPU serves) */
    if (strcmp(name, "auto") == 0 &&
        (double)X->rows * (double)Y->rows * (double)X->cols >= OP2.auto_cpu_below) {
        bool gpu = false; /* (the device readied first: dmma_auto reads its architecture) */
        if (!gd_auto_device(t, &gpu) && gpu && dmma_auto(metric.metric, cls, X->cols))
            name = "dmma";
    }
    /* 'auto' on a small resident product takes the naive kernel, which
     * computes the Euclidean two alone: tuned for the others */
    if (!gd_metric_on_gpu(metric.metric) && gd_metric_on_tuned(metric.metric) &&
        strcmp(name, "auto") == 0 && gd_any_resident(X, Y, D) &&
        (double)X->rows * (double)Y->rows * (double)X->cols < OP2.auto_cpu_below)
        name = "tuned";
    return gd_product(OP2, VARIANTS2, NVARIANTS2, name, X, Y, D, args, at, t);
}

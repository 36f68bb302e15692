/* ops/pdist/pdist.cu - pairwise distances: pdist's condensed vector (pdist2's
 * matrix: pdist2.cu, on the same tile). Euclidean or squared Euclidean
 * always as sum((x - y).^2) (never the expanded |x|^2 + |y|^2 - 2x.y, which cancels in single): never
 * negative, exactly 0 for identical rows, NaN for a row with NaN. The
 * other metrics of the statistics package run on tuned alone, each as the
 * tile's step and, where the sum is not yet the distance, a finish as it
 * is stored (cosine, hamming, jaccard from the rows' norms and NaN flags;
 * minkowski's root: metric.cuh), with the host's expressions (cpu.c), so
 * that its distances are the cpu variant's.
 *
 * After "the t-SNE preparation step" kernels of the article on pairwise
 * distances for t-SNE (a linear index over the triangle mapped to (i,j);
 * subsets of 32 vectors staged feature-major in shared memory):
 *
 *   naive  one thread per pair through the triangular index map, computed
 *          in double with an integer correction (a float square root maps
 *          indices wrongly past a few million pairs)
 *   tiled  a block of 32x32 threads per pair of 32-observation subsets,
 *          32 features at a time staged in shared memory feature-major
 *          (consecutive observations in consecutive banks)
 *   tuned  128x128 tiles of the triangle, each two blocks of 128x64 and
 *          128 threads (the tiles of min-plus v5 and sgemm tuned; four
 *          blocks an SM in single, two in double), 8x8 pairs per thread in
 *          registers, 16-byte loads (single: stages copied by cp.async),
 *          tiles above the diagonal never launched, results written
 *          straight into the condensed order;
 *          pdist2's tuned is the same tile over the whole of D
 *
 * X (n x d) is column-major, so X(:,k) (one feature of every observation)
 * is contiguous: the feature-major layout the article built by
 * transposing. The condensed vector D holds (i,j), i > j, at
 * start(j) + i - j - 1 with start(j) = j(2n - j - 1)/2: column j of the
 * lower triangle, as the statistics package's pdist orders it.
 *
 * Large n: the columns of the triangle are computed in panels whose part
 * of D fits the GPU; each panel's part is contiguous in D and copied
 * straight into the Octave result. n = 65536 has 2.1e9 pairs: every index
 * is 64-bit.
 */
#include "ops/pdist/pdist.h"
#include "runtime/call.h"

#include "ops/pdist/gpu.cuh"

namespace {

gd_status cpu_pdist(const gd_matrix &X0, gd_distance metric, gd_out out, gd_timing *t)
{
    const gd_class cls = X0.cls;
    const int64_t n = X0.rows, d = X0.cols, P = n * (n - 1) / 2;
    const size_t bytes = (size_t)P * (cls == GD_SINGLE ? 4 : 8);
    char what[96];
    gd_describe(what, sizeof what, "D", 1, P, cls);
    gd_matrix X;
    void *hx = NULL, *buf = NULL;
    gd_status s;
    if (!(s = gd_operand_host(&X0, &X, &hx, "X")) &&
        !(s = gd_host_result_begin(&out, bytes, what, &buf))) {
        if (X.ld != n) {
            s = gd_fail(GD_ERR_INPUT, "internal: the cpu variant takes a tight X");
        } else {
            double t0 = gd_now_ms();
            const int root = metric.metric == GD_EUCLIDEAN;
            int r = 0;
            if (!gd_metric_on_gpu(metric.metric))
                r = cls == GD_SINGLE
                        ? gd_cpu_pdist_metric_f(metric, (const float *)X.ptr, n, d, (float *)buf)
                        : gd_cpu_pdist_metric_d(metric, (const double *)X.ptr, n, d, (double *)buf);
            else if (cls == GD_SINGLE)
                gd_cpu_pdist_f((const float *)X.ptr, n, d, root, (float *)buf);
            else
                gd_cpu_pdist_d((const double *)X.ptr, n, d, root, (double *)buf);
            if (r) s = gd_fail(GD_ERR_MEMORY, "cannot allocate the rows' norms in host memory");
            t->kernel_ms = gd_now_ms() - t0;
        }
    }
    if (buf || out.device) s = gd_host_result_end(&out, buf, bytes, s, t);
    free(hx);
    snprintf(t->variant, sizeof t->variant, "cpu");
    snprintf(t->device, sizeof t->device, "cpu (OpenMP)");
    return s;
}

// 'all' devices divide pdist from 2^33 (pair, feature) steps a device
// (8192 rows of 256): min-plus's measured break-even carried over
const double SPLIT_MIN1 = 8589934592.0;

} // namespace

extern "C" int gd_pdist_variants(const gd_variant_info **list)
{
    static gd_variant_info infos[NVARIANTS];
    return gd_variant_infos(VARIANTS, NVARIANTS, infos, list);
}

namespace {

/* Across devices: each takes the columns [j0, j1) of the triangle whose
 * pairs are its share (column j holds n - 1 - j), j0 and j1 on the
 * kernels' 128-column steps, and writes them in their place in D. */

struct pdist_split {
    const pdist_variant *v;
    const gd_matrix *X;
    gd_metric metric;
    double p;
    gd_out out;
    int64_t bound[GD_MAX_DEVICES + 1];
    gd_pieces *pieces; /* distributed: each part's D where it computed it */
};

gd_status pdist_part(void *c, int i, int, gd_timing *t)
{
    const pdist_split &x = *(const pdist_split *)c;
    if (x.bound[i + 1] == x.bound[i]) return GD_OK;
    /* a resident X on another device: copied here */
    gd_local here;
    gd_matrix X;
    gd_status s = here.take(x.X, &X, "X");
    if (s) return s;
    gd_out out = x.out;
    void *piece = NULL;
    if (x.pieces) {
        out = gd_out{};
        out.device = &piece;
    }
    s = X.cls == GD_SINGLE
            ? run_gpu<float>(*x.v, X, x.metric, x.p, out, t, x.bound[i], x.bound[i + 1])
            : gd_pdist_run_gpu_d(x.v->info.name, X, x.metric, x.p, out, t, x.bound[i],
                                 x.bound[i + 1]);
    if (!s && x.pieces) {
        const int64_t n = X.rows, a = tri_start(x.bound[i], n);
        x.pieces->p[i] = {piece, gd_device_index(), a, tri_start(x.bound[i + 1], n) - a};
    }
    return s;
}

gd_status split_pdist(const pdist_variant &v, const gd_matrix &X, gd_distance dist, gd_out out,
                      int nd, const int *idx, gd_timing *t)
{
    pdist_split x;
    x.v = &v;
    x.X = &X;
    x.metric = dist.metric;
    x.p = dist.p;
    x.out = out;
    const int64_t n = X.rows, P = tri_start(n - 1, n);
    x.bound[0] = 0;
    for (int i = 1; i < nd; ++i) {
        /* the 128-column step at which part i's share begins */
        const double want = (double)P * i / nd;
        int64_t j = x.bound[i - 1];
        while (j + BIG < n - 1 && (double)tri_start(j + BIG, n) <= want) j += BIG;
        /* the step nearest the even share, not the one below it: at
         * 65536 x 128 on two devices the second part had 0.5% more pairs
         * than the first, and it starts later (X copied to it) */
        if (j + BIG < n - 1 && (double)tri_start(j + BIG, n) - want < want - (double)tri_start(j, n))
            j += BIG;
        x.bound[i] = j;
    }
    x.bound[nd] = n - 1;
    x.pieces = NULL;
    gd_status s;
    if (out.device) {
        /* resident: the parts' pieces of D stay where they were computed
         * (divided only where the result may stay distributed) */
        if (!out.pieces) return gd_fail(GD_ERR_INPUT, "internal: pdist divided, D resident whole");
        x.pieces = out.pieces;
        memset(x.pieces, 0, sizeof *x.pieces);
        x.pieces->n = nd;
        if ((s = gd_pieces_settle(x.pieces, gd_run_parts(nd, idx, pdist_part, &x, t))))
            return s;
        *out.device = NULL;
        t->kept = 1;
        return GD_OK;
    }
    char what[96];
    gd_describe(what, sizeof what, "D", 1, P, X.cls);
    s = gd_out_buffer(&x.out, (size_t)P * gd_class_bytes(X.cls), what);
    if (s) return s;
    /* (D's pages are faulted in by the parts' own copies, both devices'
     * at once: touching them first, or beside the parts, was slower on
     * two H200s, NOTES.md "several devices") */
    return gd_run_parts(nd, idx, pdist_part, &x, t);
}

/* X's size and D's n(n-1)/2 elements (n = 2^32 + 1 would wrap an
 * int64_t), in es bytes an element */
gd_status pdist_sizes(int64_t n, int64_t d, size_t es)
{
    gd_status s = gd_check_size("X", n, d, es);
    if (!s && (double)n * (double)(n - 1) / 2 * (double)es >= (double)GD_MAX_BYTES)
        s = gd_fail(GD_ERR_SIZE, "D would have n(n-1)/2 = %.4g elements (n = %lld): larger than "
                    "any memory gd can address (2^56 bytes)", (double)n * (double)(n - 1) / 2,
                    (long long)n);
    return s;
}

/* whether name is one of gd_pdist's GPU variants */
bool gpu_named(const char *name)
{
    const pdist_variant *r = gd_row_named(VARIANTS, NVARIANTS, name);
    return r && r->info.gpu;
}

} // namespace

extern "C" gd_status gd_pdist(const char *name, const gd_matrix *Xm, gd_distance dist,
                              gd_out D, const gd_place *at, gd_timing *t)
{
    const gd_metric metric = dist.metric;
    gd_op_entry entry(at, t, &D);
    const gd_class cls = Xm->cls;
    const int64_t n = Xm->rows, d = Xm->cols, P = n > 1 ? n * (n - 1) / 2 : 0;
    gd_op_operands o;
    gd_status s;
    if ((s = pdist_sizes(n, d, gd_class_bytes(cls))) ||
        (s = o.take(t, (double)P * (double)d, Xm, "X")) ||
        (s = pdist_metric_variant(metric, &name, gpu_named(name), cls, d)))
        return s;
    Xm = &o.a;
    /* 'auto': tuned from AUTO_CPU_BELOW steps (dmma where dmma_auto
     * says); below, the host, unless something is resident (then naive,
     * or tuned for the metrics naive does not compute) */
    const pdist_variant *v = gd_op_variant(VARIANTS, NVARIANTS, name, t, &s, [&](bool gpu) {
        const char *resident = gd_metric_on_gpu(metric) ? "naive" : "tuned";
        return !gpu ? "cpu"
               : t->ops >= AUTO_CPU_BELOW ? (dmma_auto(metric, cls, d) ? "dmma" : "tuned")
               : Xm->where == GD_DEVICE || D.device ? resident : "cpu";
    });
    if (!v) return s;
    gd_op_call oc(v->info, P == 0, &D, "D");
    oc.resident = Xm->where == GD_DEVICE || D.device;
    /* with resident data it divides where D may stay distributed */
    oc.divides_resident = D.device && D.pieces;
    oc.split_min = SPLIT_MIN1;
    oc.units = (n - 1 + BIG - 1) / BIG;
    return gd_run_op(oc, at, t, [&] { return cpu_pdist(*Xm, dist, D, t); },
        [&] {
            return cls == GD_SINGLE
                       ? run_gpu<float>(*v, *Xm, metric, dist.p, D, t)
                       : gd_pdist_run_gpu_d(v->info.name, *Xm, metric, dist.p, D, t, 0, -1);
        },
        [&](int nd, const int *idx) { return split_pdist(*v, *Xm, dist, D, nd, idx, t); });
}


/* knn.cu - nearest neighbours: the K smallest (or largest) distances from
 * each query (a row of Y) to the rows of X, selected while the distances
 * are computed, so that the mx x my matrix is never stored.
 *
 * fused: the tile of pdist2 'tuned' (tile.cuh: 128 rows of X by 64
 * queries in single, 128 by 128 in double, 8x8 pairs a thread), the same
 * arithmetic in the same order, so each distance is gd_pdist2's to the
 * bit. A block keeps its queries and walks a range of X's row tiles (a
 * split); for each query it holds a sorted list of its K best (key, row)
 * pairs so far (knnkey.h: the order of a stable sort) in global memory and
 * the list's K-th pair, the threshold, in shared memory. A distance that
 * beats its query's threshold goes into the query's bucket of 32 in
 * shared memory (an atomic add on the bucket's count); a full bucket (or
 * the split's end) is merged into the list by one warp: a bitonic sort of
 * the 32 across the warp's lanes, then each element of either sorted run
 * finds its place in the merged run by a binary search in the other, and
 * the first K are written to the list's second buffer, whose K-th pair is
 * the new threshold. Distances that found their bucket full are tested
 * again against the new threshold. Once a list holds K pairs only
 * distances among the K best so far pass, about K (1 + ln (n / K)) of n
 * in random order, so the selection costs little beside the distances.
 * The splits' lists are then merged, a warp a query, and written out as D
 * and I. Splits give the GPU enough blocks: the queries alone (8192 / 64
 * = 128 blocks) would not fill it.
 *
 * The ideas are the threshold-filtered k-selection of FAISS's GPU
 * brute-force search ("Billion-scale similarity search with GPUs",
 * Johnson, Douze and Jegou) and the bitonic merge it builds its warp
 * queues from; unlike FAISS, any K (no cap), double, and the exact
 * unexpanded distances.
 */
#include "ops/knn/gemm.h"
#include "tiles/knnkey.h"
#include "tiles/metric.cuh"
#include "tiles/norm2.h"
#include "runtime/op.h"
#include "runtime/call.h"
#include "runtime/layout.cuh"
#include "tiles/tile.cuh"

#include <math.h>
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

#include "ops/knn/select.cuh"
#include "ops/knn/fused.cuh"

// The variants: a row each, what it is said by its fields
struct knn_variant {
    gd_variant_info info;
    bool gemm; /* candidates from the TF32 product, then fused's selection */
};
const knn_variant VARIANTS[] = {
    {{"fused", "pdist2's tuned tiles, each distance tested against its query's K-th best so "
               "far and kept in a bucket in shared memory; warps merge full buckets into "
               "sorted lists (bitonic sort, then merge by binary search); the full matrix is "
               "never stored",
      1},
     false},
    {{"cpu", "OpenMP on the host: a query's column of distances at a time, a heap of K", 0},
     false},
    {{"gemm", "euclidean, squaredeuclidean and cosine (correlation, spearman), the K smallest or "
              "largest (K up to 256): candidates from one TF32 product on the tensor cores with "
              "a certified bound on its error, then their exact distances as 'fused' computes "
              "them and the same selection (fused's D and I bit for bit); a query whose "
              "candidates overflow runs 'fused'",
      1},
     true},
};
const int NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0];

// 'auto' below this many (pair, feature) triples: the host finishes
// before a GPU round trip would
const double AUTO_CPU_BELOW = 1 << 16;
// 'all' devices divide a search from 2^34 (pair, feature) triples a
// device (16384 queries among 8192 points of 128 features: some 2 ms of
// kernel on an H100). Not measured for kNN itself: min-plus's measured
// break-even (a few ms of kernel a device, minplus.cu) carried over
const double SPLIT_MIN = 17179869184.0;
// ... and the gemm variant, which divides the queries (each device
// uploads X whole), from 2^36 a device and 8192 queries: two H100s, from
// the host, 10^6 points: 1000 and 4000 queries 0.68-0.88x as fast on two
// devices as on one (X's upload twice against half the kernels), 10,000
// 1.26x (K = 10) and 1.36x (K = 100); 65536 points: 4096 queries 0.69x,
// 16384 1.50x
const double SPLIT_MIN_GEMM = 68719476736.0;
const int64_t SPLIT_GEMM_QUERIES = 8192;
// 'auto' takes the gemm variant from this many (pair, feature) triples,
// where X has at least this many tiles of 128 points a neighbour: a query's
// candidates are about 1.2 K points, and about 0.7 K^2 / tiles tiles hold
// two of them and are taken whole (128 points each). Measured on an H100
// (kernels/NOTES.md, "'auto' for gemm"): 240 searches of 8192 to 262144
// points, 512 to 8192 queries, d = 16 to 256, K = 1 to 100, smallest and
// largest, from the host; gemm wins from about 8 tiles a neighbour down to
// 2^30 triples and loses by up to 5x at 2 to 3 tiles a neighbour. This rule
// is within 0.7% of the better variant in the geometric mean (worst 1.34x,
// at the edge: 32768 points, K = 32, d = 16), where 2^33 triples and 48
// tiles a neighbour had given 13% (worst 2.4x). Cosine the same: fused's
// cosine is slower than its Euclidean, gemm's is not
const double AUTO_GEMM_FROM = 1073741824.0;
const int64_t AUTO_GEMM_TILES_K = 8;

/* A search's operands: as many columns, sizes memory can address, X's
 * rows 32-bit (the results' rows, whose name is what) */
gd_status search_operands(const gd_matrix &X, const gd_matrix &Y, gd_class cls, const char *what)
{
    gd_status s;
    if (Y.cols != X.cols)
        return gd_fail(GD_ERR_SIZE, "X and Y must have the same number of columns: X is "
                       "%lldx%lld, Y is %lldx%lld", (long long)X.rows, (long long)X.cols,
                       (long long)Y.rows, (long long)Y.cols);
    if ((s = gd_check_size("X", X.rows, X.cols, gd_class_bytes(cls))) ||
        (s = gd_check_size("Y", Y.rows, Y.cols, gd_class_bytes(cls))))
        return s;
    if (X.rows >= ((int64_t)1 << 31))
        return gd_fail(GD_ERR_SIZE, "X has %lld rows: the %s' rows are 32-bit (at most "
                       "2^31 - 1)", (long long)X.rows, what);
    return GD_OK;
}

/* The class a search computes in: single where either operand is */
gd_class search_class(const gd_matrix &X, const gd_matrix &Y)
{
    return X.cls == GD_SINGLE || Y.cls == GD_SINGLE ? GD_SINGLE : GD_DOUBLE;
}

/* Every metric runs on the GPU but jaccard in single past 65535
 * features, whose counts would not fit the tile's 16 bits (as pdist2's
 * tuned): there 'auto' is the host and 'fused' an error */
gd_status jaccard_variant(gd_distance dist, gd_class cls, int64_t d, const char **name)
{
    if (dist.metric != GD_JACCARD || cls != GD_SINGLE || d <= 65535) return GD_OK;
    if (strcmp(*name, "auto") == 0) *name = "cpu";
    if (strcmp(*name, "fused") != 0) return GD_OK;
    return gd_fail(GD_ERR_VARIANT, "jaccard in single on the GPU counts at most 65535 features "
                   "(X has %lld); the 'cpu' variant takes any ('auto' chooses it)", (long long)d);
}

/* The end of a cpu variant's call: its allocations given back, its
 * report's variant and device */
gd_status host_end(gd_status s, gd_allocs *al, gd_timing *t)
{
    s = gd_end_call(s, al, t);
    snprintf(t->variant, sizeof t->variant, "cpu");
    snprintf(t->device, sizeof t->device, "cpu (OpenMP)");
    return s;
}

#include "ops/knn/host.cuh"
#include "ops/knn/gpu.cuh"
#include "ops/knn/devices.cuh"
#include "ops/knn/range.cuh"
#include "ops/knn/merge.cuh"

/* kNN's 'auto': the host for small searches of host data; the gemm
 * variant where it serves and pays (AUTO_GEMM_FROM), else fused */
const char *auto_variant(bool gpu, bool resident, double ops, gd_distance dist, int64_t K,
                         int64_t mx, int64_t d)
{
    if (!gpu || (ops < AUTO_CPU_BELOW && !resident)) return "cpu";
    return ops >= AUTO_GEMM_FROM && !gemm_unfit(dist, K, mx, d) &&
                   (mx + 127) / 128 >= AUTO_GEMM_TILES_K * K
               ? "gemm"
               : "fused";
}

// The range search's variants
const gd_variant_info RANGE_VARIANTS[] = {
    {"fused", "two passes of pdist2's tuned tiles: each query's hits counted, its place in one "
              "list made, the hits written there; sorted on the host by (distance, row)",
     1},
    {"cpu", "OpenMP on the host: blocks of queries' distance columns, their hits kept", 0},
};
const int NRANGE = sizeof RANGE_VARIANTS / sizeof RANGE_VARIANTS[0];

} // namespace

extern "C" int gd_knn_variants(const gd_variant_info **list)
{
    static gd_variant_info infos[NVARIANTS];
    return gd_variant_infos(VARIANTS, NVARIANTS, infos, list);
}

extern "C" gd_status gd_knn(const char *name, const gd_matrix *X, const gd_matrix *Y,
                            gd_distance dist, int64_t K, int largest, int by_query, gd_out D,
                            gd_out I, gd_class icls, const gd_place *at, gd_timing *t)
{
    gd_op_entry entry(at, t, &D, &I);
    const int64_t my = Y->rows, d = X->cols;
    int64_t mx = X->rows;
    const gd_class cls = search_class(*X, *Y);
    gd_status s = search_operands(*X, *Y, cls, "neighbours");
    if (s) return s;
    if (K > mx || (K < 1 && mx > 0) || K < 0)
        return gd_fail(GD_ERR_INPUT, "K must be between 1 and the rows of X (%lld), not %lld",
                       (long long)mx, (long long)K);
    gd_op_operands o;
    if ((s = gd_check_size("D", K, my, gd_class_bytes(cls))) ||
        (s = o.take(t, (double)mx * (double)my * (double)d, X, "X", Y, "Y")) ||
        (s = jaccard_variant(dist, cls, d, &name)))
        return s;
    /* no features: every distance is the metric's on two empty rows and
     * ties go to the lower row, so X's first K rows are the answer */
    if (d == 0 && mx > K) o.a.rows = o.a.ld = mx = K;
    const bool resident = t->resident || D.device || I.device;
    const knn_variant *v = gd_op_variant(VARIANTS, NVARIANTS, name, t, &s, [&](bool gpu) {
        return auto_variant(gpu, resident, t->ops, dist, K, mx, d);
    });
    if (!v) return s;
    knn_split x = knn_search(o.a, o.b, cls, icls, dist, K, largest, by_query, D, I, v->gemm);
    gd_op_call oc(v->info, my == 0 || K == 0, &D, "D", &I, "I");
    oc.resident = resident;
    oc.split_min = !x.gemm ? SPLIT_MIN : my >= SPLIT_GEMM_QUERIES ? SPLIT_MIN_GEMM : HUGE_VAL;
    oc.units = ((x.points ? mx : my) + x.mult - 1) / x.mult;
    return gd_run_op(oc, at, t, [&] { return run_cpu(o.a, o.b, cls, dist, K, largest, x.by_query, D, I, icls, t); },
        [&] { return knn_one(x, t); },
        [&](int nd, const int *idx) { return split_knn(x, nd, idx, t); });
}

extern "C" int gd_range_variants(const gd_variant_info **list)
{
    *list = RANGE_VARIANTS;
    return NRANGE;
}

extern "C" gd_status gd_range(const char *name, const gd_matrix *X, const gd_matrix *Y,
                              gd_distance dist, double r, gd_out D, gd_out I, gd_class icls,
                              gd_out N, const gd_place *at, gd_timing *t)
{
    gd_op_entry entry(at, t, &D, &I);
    if (N.device) *N.device = NULL;
    const int64_t mx = X->rows, my = Y->rows, d = X->cols;
    const gd_class cls = search_class(*X, *Y);
    gd_status s = search_operands(*X, *Y, cls, "hits");
    if (s) return s;
    if (!(r >= 0))
        return gd_fail(GD_ERR_INPUT, "the radius must be 0 or more, not %g", r);
    gd_op_operands o;
    if ((s = o.take(t, (double)mx * (double)my * (double)d, X, "X", Y, "Y")) ||
        (s = jaccard_variant(dist, cls, d, &name)))
        return s;
    const gd_matrix &Xh = o.a, &Yh = o.b;
    /* 'auto': the host for small searches of host data, else fused */
    const bool resident = t->resident != 0;
    const gd_variant_info *v = gd_op_variant(RANGE_VARIANTS, NRANGE, name, t, &s, [&](bool gpu) {
        return gpu && (t->ops >= AUTO_CPU_BELOW || resident) ? "fused" : "cpu";
    });
    if (!v) return s;
    /* no queries or no points: no hits (the host's loop makes the empty
     * lists and the zero counts) */
    if (!v->gpu || mx == 0 || my == 0) {
        snprintf(t->variant, sizeof t->variant, "%s", v->name);
        return cls == GD_SINGLE ? range_cpu<float>(Xh, Yh, dist, r, D, I, icls, N, t)
                                : range_cpu<double>(Xh, Yh, dist, r, D, I, icls, N, t);
    }
    snprintf(t->variant, sizeof t->variant, "%s", v->name);
    return cls == GD_SINGLE ? range_gpu<float>(Xh, Yh, dist, r, D, I, icls, N, t)
                            : range_gpu<double>(Xh, Yh, dist, r, D, I, icls, N, t);
}

extern "C" gd_status gd_knn_merge(const gd_matrix *D, const gd_matrix *I, int64_t K, int np,
                                  const int64_t *lens, const int64_t *first, int largest,
                                  int by_query, gd_out Do, gd_out Io, const gd_place *at,
                                  gd_timing *t)
{
    gd_entry entry(at, t);
    const double t0 = gd_now_ms();
    int64_t total = 0;
    for (int p = 0; p < np; ++p) total += lens[p] > 0 ? lens[p] : 0;
    const int64_t w = by_query ? D->cols : D->rows, q = by_query ? D->rows : D->cols;
    if (np < 1 || D->rows != I->rows || D->cols != I->cols || w != total || D->where != I->where ||
        D->ld != D->rows || I->ld != I->rows || K < 0 || K > total ||
        (D->cls != GD_SINGLE && D->cls != GD_DOUBLE) || (I->cls != GD_DOUBLE && I->cls != GD_INT32))
        return gd_fail(GD_ERR_INPUT, "internal: the lists to merge do not match (%lld candidates "
                       "a query, %lld in the parts, K %lld)", (long long)w, (long long)total,
                       (long long)K);
    /* off, lens, first: the parts' places */
    int64_t *meta = (int64_t *)malloc((size_t)(3 * np) * sizeof(int64_t));
    if (!meta) return gd_fail(GD_ERR_MEMORY, "cannot allocate %d parts' places in host memory", np);
    for (int p = 0, off = 0; p < np; off += (int)lens[p], ++p) {
        meta[p] = off;
        meta[np + p] = lens[p];
        meta[2 * np + p] = first[p];
    }
    merge_shape m;
    m.q = q;
    m.K = K;
    m.np = np;
    m.largest = largest;
    m.sj = by_query ? 1 : D->ld;
    m.sc = by_query ? D->ld : 1;
    m.osj = by_query ? 1 : K;
    m.osc = by_query ? q : 1;
    snprintf(t->variant, sizeof t->variant, "%s", D->where == GD_HOST ? "cpu" : "gpu");
    snprintf(t->kernel, sizeof t->kernel, "lists of %d parts merged", np);
    const bool single = D->cls == GD_SINGLE, i32 = I->cls == GD_INT32;
    const gd_status s =
        single ? (i32 ? merge_lists_run<float, int32_t>(*D, *I, m, meta, Do, Io, t)
                      : merge_lists_run<float, double>(*D, *I, m, meta, Do, Io, t))
               : (i32 ? merge_lists_run<double, int32_t>(*D, *I, m, meta, Do, Io, t)
                      : merge_lists_run<double, double>(*D, *I, m, meta, Do, Io, t));
    free(meta);
    t->total_ms = gd_now_ms() - t0;
    return s;
}

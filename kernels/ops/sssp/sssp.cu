/* sssp.cu - shortest paths from sources (gd_apsp (W, 'Sources', s)): the
 * op's variants and its entry. The graph is sparse (its edges in
 * compressed columns, as Octave holds a sparse W) or dense (its entries
 * other than Inf, gathered into that form here); the lengths and the
 * trees of kernels/cpu/sssp.c. */
#include "runtime/call.h"
#include "runtime/op.h"

#include <functional>
#include <math.h>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

const gd_variant_info VARIANTS[] = {
    {"gpu", "the GPU, every source of a batch at once: Bellman-Ford rounds (the sources' "
            "lengths (min,+) W's columns from the vertices that fell, until none falls) where a "
            "weight is negative or where a probe of four sources' rounds settles within 40 "
            "rounds, else near-far; each tree from unique tight predecessors where every vertex "
            "has one, else by levels over the tight edges",
     1},
    {"nearfar", "the GPU's near-far buckets over W's rows, a frontier a source (non-negative "
                "weights)",
     1},
    {"rounds", "the GPU's Bellman-Ford rounds, every source at once", 1},
    {"cpu", "the host, a source a thread: Dijkstra with an indexed heap, or label-correcting "
            "rounds where a weight is negative; each tree by levels over the tight edges",
     0},
};
/* 'auto': the GPU from this many (source, edge) pairs, or where W is on it
 * or the results are to stay there */
const double AUTO_GPU_FROM = 1 << 20;
const int NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0];

/* The graph's edges in compressed columns, its values in class T: a
 * sparse S's own arrays or a dense W's entries other than +Inf. NaN and
 * -Inf are refused. */
template <class T> struct sssp_edges {
    int64_t n = 0;
    const int64_t *cp = NULL, *ri = NULL;
    const T *val = NULL;
    int64_t *own_cp = NULL, *own_ri = NULL;
    T *own_val = NULL;
    ~sssp_edges()
    {
        free(own_cp);
        free(own_ri);
        free(own_val);
    }
    /* (S's class is the computation's: gd_sssp picks T from it) */
    gd_status from_sparse(const gd_sparse &S)
    {
        n = S.n;
        cp = S.colptr;
        ri = S.rowidx;
        val = (const T *)S.vals;
        return check(cp[n]);
    }
    gd_status from_dense(const gd_matrix &W)
    {
        n = W.rows;
        const T *w = (const T *)W.ptr;
        int64_t m = 0;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) m += w[i + W.ld * j] != (T)INFINITY;
        own_cp = (int64_t *)malloc((size_t)(n + 1) * 8);
        own_ri = (int64_t *)malloc((size_t)m * 8 + 8);
        own_val = (T *)malloc((size_t)m * sizeof(T) + 8);
        if (!own_cp || !own_ri || !own_val) return lacking(m);
        int64_t e = 0;
        for (int64_t j = 0; j < n; ++j) {
            own_cp[j] = e;
            for (int64_t i = 0; i < n; ++i) {
                const T x = w[i + W.ld * j];
                if (x == (T)INFINITY) continue;
                own_ri[e] = i;
                own_val[e++] = x;
            }
        }
        own_cp[n] = e;
        cp = own_cp;
        ri = own_ri;
        val = own_val;
        return check(m);
    }
    gd_status lacking(int64_t m)
    {
        return gd_fail(GD_ERR_MEMORY, "cannot allocate the graph's %lld edges (%.1f MiB) in "
                       "host memory", (long long)m, gd_mib((size_t)m * (16 + sizeof(T))));
    }
    /* the weights checked, and in the same pass whether one is negative
     * and the sum and count of the finite ones (near-far's bucket width) */
    int neg = 0;
    double sum = 0, finite = 0;
    gd_status check(int64_t m)
    {
        for (int64_t e = 0; e < m; ++e) {
            const T x = val[e];
            if (x != x)
                return gd_fail(GD_ERR_INPUT, "W holds NaN (an edge's weight must be a number)");
            if (x == -(T)INFINITY)
                return gd_fail(GD_ERR_INPUT, "W holds -Inf: an edge of length -Inf is a "
                               "negative cycle's worth; give a finite weight");
            neg |= x < 0;
            if (x < (T)INFINITY) {
                sum += (double)x;
                finite += 1;
            }
        }
        return GD_OK;
    }
};

template <class T>
gd_status run_cpu(const gd_matrix *W, const gd_sparse *S, const int64_t *src, int64_t ns,
                  gd_out D, const gd_out *P, gd_class pcls, int all_pairs, int64_t *cycle, gd_timing *t)
{
    const gd_class cls = sizeof(T) == 4 ? GD_SINGLE : GD_DOUBLE;
    sssp_edges<T> g;
    void *hw = NULL;
    gd_matrix Wh;
    gd_status s = W ? gd_operand_host(W, &Wh, &hw, "W") : GD_OK;
    if (!s) s = W ? g.from_dense(Wh) : g.from_sparse(*S);
    const int64_t n = g.n;
    const size_t cells = (size_t)(ns * n);
    char what[96];
    gd_describe(what, sizeof what, "D", ns, n, cls);
    void *dbuf = NULL, *pbuf = NULL;
    int32_t *p32 = NULL;
    if (!s) s = gd_host_result_begin(&D, cells * sizeof(T), what, &dbuf);
    if (!s && P && !(p32 = (int32_t *)malloc(cells * 4 + 4)))
        s = gd_fail(GD_ERR_MEMORY, "cannot allocate the predecessors (%.1f MiB) in host memory",
                    gd_mib(cells * 4));
    t->ops = (double)ns * (double)(g.cp ? g.cp[n] : 0);
    if (!s) {
        const double t0 = gd_now_ms();
        const int r = cls == GD_SINGLE
                          ? gd_cpu_sssp_f(n, g.cp, g.ri, (const float *)g.val, src, ns,
                                          (float *)dbuf, p32, cycle)
                          : gd_cpu_sssp_d(n, g.cp, g.ri, (const double *)g.val, src, ns,
                                          (double *)dbuf, p32, cycle);
        t->kernel_ms = gd_now_ms() - t0;
        if (r == 1)
            s = gd_fail(GD_ERR_NEGCYCLE, "a negative cycle is reachable from a source: vertex "
                        "%lld lies on it", (long long)*cycle);
        else if (r == -1)
            s = gd_fail(GD_ERR_MEMORY, "cannot allocate the sources' workspaces in host memory");
        else if (r == -2)
            s = gd_fail(GD_ERR_INTERRUPT, "interrupted");
    }
    if (dbuf || D.device) s = gd_host_result_end(&D, dbuf, cells * sizeof(T), s, t);
    if (!s && P) {
        gd_out po = *P;
        gd_describe(what, sizeof what, "P", ns, n, pcls);
        const size_t pb = cells * gd_class_bytes(pcls);
        s = gd_host_result_begin(&po, pb, what, &pbuf);
        if (!s && pcls == GD_INT32)
            for (size_t e = 0; e < cells; ++e)
                ((int32_t *)pbuf)[e] = p32[e] < 0 && all_pairs ? 0 : p32[e];
        else if (!s)
            for (size_t e = 0; e < cells; ++e)
                ((double *)pbuf)[e] = p32[e] >= 0 ? (double)p32[e] : all_pairs ? 0.0 : NAN;
        if (pbuf || po.device) s = gd_host_result_end(&po, pbuf, pb, s, t);
        if (s && D.device && *D.device) {
            gd_dev_free(*D.device);
            *D.device = NULL;
        }
    }
    free(p32);
    free(hw);
    snprintf(t->variant, sizeof t->variant, "cpu");
    snprintf(t->device, sizeof t->device, "cpu (OpenMP)");
    snprintf(t->kernel, sizeof t->kernel, "%lld source%s, %lld edges", (long long)ns,
             ns == 1 ? "" : "s", (long long)(g.cp ? g.cp[n] : 0));
    return s;
}

#include "ops/sssp/trees.cuh"
#include "ops/sssp/nearfar.cuh"
#include "ops/sssp/rows.cuh"
#include "ops/sssp/order.cuh"
#include "ops/sssp/gpu.cuh"

} // namespace

extern "C" int gd_sssp_variants(const gd_variant_info **list)
{
    *list = VARIANTS;
    return NVARIANTS;
}

extern "C" gd_status gd_sssp(const char *name, const gd_matrix *W, const gd_sparse *S,
                             const int64_t *sources, int64_t ns, gd_out D, const gd_out *P,
                             gd_class pcls, int all_pairs, int64_t *cycle, const gd_place *at,
                             gd_timing *t)
{
    gd_op_entry entry(at, t, &D, P);
    *cycle = 0;
    if (!W == !S) return gd_fail(GD_ERR_INPUT, "internal: gd_sssp takes W or S");
    const int64_t n = W ? W->rows : S->n;
    const gd_class cls = W ? W->cls : S->cls;
    if (W && W->cols != n)
        return gd_fail(GD_ERR_SIZE, "W must be square (the weights of a graph), not %lldx%lld",
                       (long long)W->rows, (long long)W->cols);
    if (cls != GD_SINGLE && cls != GD_DOUBLE)
        return gd_fail(GD_ERR_INPUT, "'Sources' takes single or double weights, not %s",
                       gd_class_name(cls));
    if (n >= INT32_MAX)
        return gd_fail(GD_ERR_SIZE, "W has %lld vertices: the predecessors are int32",
                       (long long)n);
    for (int64_t k = 0; k < ns; ++k)
        if (sources[k] < 0 || sources[k] >= n)
            return gd_fail(GD_ERR_INPUT, "source %lld is %lld: the vertices are 1 to %lld",
                           (long long)k + 1, (long long)sources[k] + 1, (long long)n);
    gd_status s;
    if ((s = gd_check_size("D", ns, n, gd_class_bytes(cls)))) return s;
    t->resident = W && W->where == GD_DEVICE ? 1u : 0u;
    const bool kept = t->resident || D.device; /* results wanted on the GPU */
    const double edges = S ? (double)S->colptr[n] : (double)n * (double)n;
    const gd_variant_info *v = gd_op_variant(VARIANTS, NVARIANTS, name, t, &s, [&](bool gpu) {
        return gpu && (kept || (double)ns * edges >= AUTO_GPU_FROM) ? "gpu" : "cpu";
    });
    if (!v) return s;
    if (v->gpu) {
        const sssp_method m = !strcmp(v->name, "nearfar") ? SSSP_NEARFAR
                              : !strcmp(v->name, "rounds") ? SSSP_ROUNDS : SSSP_CHOOSE;
        return cls == GD_SINGLE ? run_gpu<float>(W, S, sources, ns, D, P, pcls, all_pairs, cycle, m, t)
                                : run_gpu<double>(W, S, sources, ns, D, P, pcls, all_pairs, cycle, m, t);
    }
    return cls == GD_SINGLE ? run_cpu<float>(W, S, sources, ns, D, P, pcls, all_pairs, cycle, t)
                            : run_cpu<double>(W, S, sources, ns, D, P, pcls, all_pairs, cycle, t);
}

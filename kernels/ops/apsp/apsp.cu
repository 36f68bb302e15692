/* apsp.cu - all-pairs shortest paths: D and the predecessors P.
 *
 * 'fw': blocked Floyd-Warshall on the GPU, the three-phase formulation of
 * Katz and Kider ("All-pairs shortest-paths for large graphs on the GPU",
 * 2008) and Lund and Smith ("A multi-stage CUDA kernel for Floyd-Warshall",
 * 2010), with min-plus v5's tile doing the work. D lives on the device,
 * padded to np = n rounded up to FB (NaN outside n x n: a NaN term never
 * wins), and is updated in place; transfers happen only at the ends. A
 * round for the diagonal block K (FB vertices):
 *   1. close K itself: Floyd-Warshall on the FB x FB block in registers
 *      (fw_diag);
 *   2. the column panel D(:,K) = min (D(:,K), D(:,K) (x) D(K,K)): one
 *      product of np x FB x FB;
 *   3. every block: D = min (D, D(:,K) (x) D(K,:)), np x FB x np.
 * Step 3 reads the row panel before its update by D(K,K) (the classic
 * phase 2); its result is the same as with the panel updated first,
 * because the column panel is closed under D(K,K) already. Steps 2 and 3
 * read copies of the panels (the column panel, the row panel transposed
 * into the layout of min-plus's B), so no kernel reads what it writes.
 * Lookahead: step 3 of round K relaxes the next round's panels first;
 * steps 1 and 2 of the next round then run on a stream of the greatest
 * priority while the rest of step 3 runs (fw()). The tile's epilogue
 * (gd_tile::relax) writes D(i,j) only where the path through the round's
 * best k is strictly shorter.
 *
 * P, in fw: each round tags the lengths that fall with the round (in P's
 * array, beside the length: relax's tag), and after the last round the
 * chain finds P from the tags and the final lengths: where D(i,j) last
 * fell in round r, some k of round r still has D(i,k) + D(k,j) ==
 * D(i,j) (chain_search), and P(i,j) = P(k,j), the predecessor of j on
 * the path from k, which pointer jumping down column j resolves
 * (chain_jump); a length that never fell is the edge's, P(i,j) = i. In
 * squaring (and where the chain finds no k: rounding), from the final
 * lengths: P(i,j) = the first q of min_q D(i,q) + W(q,j), the last edge
 * of a shortest path (one witness product: last_edge_pass). Either is a
 * shortest-path tree unless the graph has a cycle of weight 0; then a
 * second run tracks P and breaks ties by the paths' edge counts.
 *
 * 'squaring': D = min (D, D (x) D) with the witness, until nothing
 * changes (at most ceil(log2 n) + 1 products), from one buffer into the
 * other: each product reads D and its transpose.
 *
 * Single inputs without a negative (or -0) weight take min-plus's integer
 * min (minplus_nonneg, minplus_first_stage), as v5 does: the sums of such
 * weights stay non-negative. A negative cycle shows as a negative diagonal
 * entry at the end (or in W); the call then fails with GD_ERR_NEGCYCLE.
 */
#include "runtime/op.h"
#include "runtime/call.h"
#include "tiles/route.h"
#include "tiles/tile.cuh"

#include <float.h>
#include <math.h>
#include <new>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <type_traits>

namespace {

// The Floyd-Warshall block: a round's depth, the diagonal block's side.
enum { FB = 128 };

// flags[0] bits: 1 NaN in W, 2 a negative diagonal entry, 4 a weight
// with its sign bit set (not NaN), 8 a negative diagonal entry of D at the
// end; flags[1]: the smallest such vertex (1-based), from 2 or 8.
enum { F_NAN = 1, F_NEGDIAG = 2, F_SIGN = 4, F_NEGCYCLE = 8 };

#include "ops/apsp/kernels.cuh"
#include "ops/apsp/last_edges.cuh"
#include "ops/apsp/trees.cuh"
#include "ops/apsp/chain.cuh"
#include "ops/apsp/rounds.cuh"
#include "ops/apsp/prepare.cuh"
#include "ops/apsp/run_rounds.cuh"
#include "ops/apsp/paths.cuh"
#include "ops/apsp/run.cuh"


// The variants: a row each, what it is said by its fields
struct apsp_variant {
    gd_variant_info info;
    bool fw; /* Floyd-Warshall's rounds: D divides by rows of blocks, and
                the integer classes run where the weights prove them exact */
};
const apsp_variant VARIANTS[] = {
    {{"fw", "blocked Floyd-Warshall on the GPU: rounds of 128 vertices, the closure of the "
            "diagonal block in registers, then min-plus v5's tile relaxing the column panel "
            "and every block in place, the next round's panels first (lookahead)",
      1},
     true},
    {{"squaring", "repeated min-plus squaring with the witness, D = min (D, D (x) D) until "
                  "nothing changes",
      1},
     false},
    {{"cpu", "blocked Floyd-Warshall on the host, OpenMP, 64-vertex blocks", 0}, false},
};
const int NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0];

// 'auto' below this n runs on the host (a GPU call costs more than the
// whole job there)
enum { AUTO_CPU_BELOW = 128 };
// 'all' devices divide Floyd-Warshall from 2^36 steps (n^3) a device: n =
// 4096 on one, 5160 on two (two H200s gain 1.19x at n = 8192 single;
// below 5160 not measured)
const double SPLIT_MIN = 68719476736.0;

#include "ops/apsp/host.cuh"
#include "ops/apsp/one_device.cuh"
#include "ops/apsp/devices.cuh"
#include "ops/apsp/ranks.cuh"

} // namespace

/* gd_apsp on another device than this thread's: one part */
struct apsp_one {
    bool fw;
    const gd_matrix *W;
    gd_out D;
    const gd_out *P;
    gd_class pcls;
    int64_t *cycle_vertex;
};

static gd_status apsp_part(void *c, int, int, gd_timing *t)
{
    apsp_one &x = *(apsp_one *)c;
    return run_gpu(x.fw, *x.W, x.D, x.P, x.pcls, x.cycle_vertex, t);
}

/* W square, of a size memory can address */
static gd_status weight_sizes(const gd_matrix &W)
{
    if (W.rows != W.cols)
        return gd_fail(GD_ERR_SIZE, "W must be square (the weights of a graph), not %lldx%lld",
                       (long long)W.rows, (long long)W.cols);
    return gd_check_size("W", W.rows, W.cols, gd_class_bytes(W.cls));
}

/* Whether variant v computes W's class (ints: an integer class; wide: 64
 * bits) */
static gd_status int_variant(const apsp_variant &v, bool ints, bool wide)
{
    if (ints && v.info.gpu && !v.fw)
        return gd_fail(GD_ERR_VARIANT, "variant '%s' computes single and double; the integer "
                       "classes run on 'fw' (the GPU) and 'cpu' ('auto' chooses)", v.info.name);
    if (wide && v.fw)
        return gd_fail(GD_ERR_VARIANT, "'fw' computes the integer classes in single or double "
                       "where the weights prove every sum exact: int64 and uint64 never");
    return GD_OK;
}

/* The host's variant, in W's class */
static gd_status apsp_cpu(const apsp_one &x, bool ints, gd_timing *t)
{
    return ints ? run_cpu_int(*x.W, x.D, x.P, x.pcls, x.cycle_vertex, t)
                : run_cpu(*x.W, x.D, x.P, x.pcls, x.cycle_vertex, t);
}

/* The host's variant for an integer graph after the GPU's has found it
 * cannot compute it exactly: the report begun again, its steps and
 * operands' place kept */
static gd_status host_again(const apsp_one &x, gd_timing *t)
{
    const gd_timing kept = *t;
    gd_timing_reset(t);
    t->ops = kept.ops;
    t->resident = kept.resident;
    return run_cpu_int(*x.W, x.D, x.P, x.pcls, x.cycle_vertex, t);
}

/* Across devices idx[0, nd): D (and P) by rows of blocks where rows;
 * else, or where a cycle of weight 0 is found across devices (P then
 * needs the edge counts), on the first device of the selection alone */
static gd_status split_apsp(apsp_one &x, bool rows, int nd, const int *idx, gd_timing *t)
{
    bool redo = false;
    if (rows && nd > 1) {
        const gd_status s = fw_devices(*x.W, x.D, x.P, x.pcls, x.cycle_vertex, nd, idx, t, &redo);
        if (!redo) return s;
    }
    return gd_run_parts(1, idx, apsp_part, &x, t);
}

extern "C" int gd_apsp_variants(const gd_variant_info **list)
{
    static gd_variant_info infos[NVARIANTS];
    return gd_variant_infos(VARIANTS, NVARIANTS, infos, list);
}

extern "C" gd_status gd_apsp(const char *name, const gd_matrix *W, gd_out D, const gd_out *P,
                             gd_class pcls, int64_t *cycle_vertex, const gd_place *at, gd_timing *t)
{
    gd_op_entry entry(at, t, &D, P);
    *cycle_vertex = 0;
    const int64_t n = W->rows;
    const bool ints = gd_class_is_int(W->cls), wide = ints && gd_class_bytes(W->cls) > 4;
    const bool automatic = strcmp(name, "auto") == 0;
    gd_op_operands o;
    gd_status s;
    if ((s = weight_sizes(*W)) || (s = o.take(t, (double)n * (double)n * (double)n, W, "W")))
        return s;
    W = &o.a;
    /* the integer classes: 'fw' in single or double where the weights
     * prove it exact (apsp_run::exact_class; int64 and uint64 never),
     * else the host in the class; 'auto' tries the GPU where it may */
    const apsp_variant *v = gd_op_variant(VARIANTS, NVARIANTS, automatic && wide ? "cpu" : name,
                                          t, &s, [&](bool gpu) {
        return gpu && (n >= AUTO_CPU_BELOW || W->where == GD_DEVICE || D.device) ? "fw" : "cpu";
    });
    if (!v || (s = int_variant(*v, ints, wide))) return s;
    /* D divides (rows of blocks), and in single and double P with it (the
     * slabs' tags, the chain on the first device); an integer class's P,
     * squaring and resident data on one device, the first of the
     * selection */
    const bool rows = v->fw && (!P || !ints);
    gd_out po = P ? *P : gd_out{};
    gd_op_call oc(v->info, n == 0, &D, "D", P ? &po : NULL, "P");
    oc.resident = W->where == GD_DEVICE || D.device || (P && P->device);
    oc.split_min = SPLIT_MIN;
    oc.units = rows ? (n + FB - 1) / FB : 1;
    apsp_one x = {v->fw, W, D, P, pcls, cycle_vertex};
    s = gd_run_op(oc, at, t, [&] { return apsp_cpu(x, ints, t); },
        [&] { return run_gpu(v->fw, *W, D, P, pcls, cycle_vertex, t); },
        [&](int nd, const int *idx) { return split_apsp(x, rows, nd, idx, t); });
    /* an integer graph the GPU cannot compute exactly: the host's */
    if (s == GD_ERR_VARIANT && ints && automatic && v->info.gpu) s = host_again(x, t);
    return s;
}

extern "C" gd_status gd_apsp_ranks(const gd_matrix *W, const gd_grid *g, gd_out D, gd_out *T,
                                   int64_t *cycle_vertex, const gd_place *at, gd_timing *t)
{
    gd_op_entry entry(at, t, &D, T);
    *cycle_vertex = 0;
    t->ops = (double)g->n * (double)g->n * (double)g->n;
    t->resident = 1;
    gd_call c(t, "fw");
    const gd_status bad = ranks_args(*W, *g);
    return W->cls == GD_DOUBLE ? ranks_run<double>(c, *W, *g, D, T, cycle_vertex, bad)
                               : ranks_run<float>(c, *W, *g, D, T, cycle_vertex, bad);
}

extern "C" gd_status gd_apsp_chain(const gd_matrix *D, const gd_matrix *Tg, const int64_t *src,
                                   gd_out P, int *broken, const gd_place *at, gd_timing *t)
{
    gd_op_entry entry(at, t, &P);
    *broken = 0;
    t->resident = 1;
    gd_call c(t, "fw");
    const int64_t rows = Tg->rows, n = Tg->cols;
    if (Tg->cls != GD_INT32 || Tg->ld != rows || n >= INT32_MAX ||
        (src && ((D->cls != GD_SINGLE && D->cls != GD_DOUBLE) || D->rows != n || D->cols != n ||
                 D->ld != n)) ||
        (!src && rows != n))
        return gd_fail(GD_ERR_INPUT, "the chain takes D whole (single or double, n x n) and the "
                       "tags' rows (int32, rows x n), or P whole (int32, n x n), tight");
    for (int64_t i = 0; src && i < rows; ++i)
        if (src[i] < 0 || src[i] >= n)
            return gd_fail(GD_ERR_INPUT, "the chain's sources must be vertices of D");
    return src && D->cls == GD_DOUBLE ? chain_of_rows<double>(c, *D, *Tg, src, P, broken)
                                      : chain_of_rows<float>(c, *D, *Tg, src, P, broken);
}

extern "C" gd_status gd_apsp_trees(const gd_matrix *D, const gd_matrix *W, const gd_matrix *P,
                                   const int64_t *src, gd_out Pout, int64_t *repaired,
                                   const gd_place *at, gd_timing *t)
{
    gd_op_entry entry(at, t, &Pout);
    *repaired = 0;
    t->resident = 1;
    gd_call c(t, "fw");
    const int64_t rows = D->rows, n = D->cols;
    if ((D->cls != GD_SINGLE && D->cls != GD_DOUBLE) || W->cls != D->cls || P->cls != GD_INT32 ||
        W->rows != n || W->cols != n || P->rows != rows || P->cols != n || W->ld != n ||
        D->ld != rows || P->ld != rows || n >= INT32_MAX)
        return gd_fail(GD_ERR_INPUT, "the trees take D's rows (single or double, rows x n), W "
                       "(n x n, D's class) and P's rows (int32, rows x n), tight");
    for (int64_t i = 0; i < rows; ++i)
        if (src[i] < 0 || src[i] >= n)
            return gd_fail(GD_ERR_INPUT, "the trees' sources must be vertices of W");
    return trees_of_rows(c, *D, *W, *P, src, Pout, repaired);
}

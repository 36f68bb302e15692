/* ops/pdist/gpu.cuh - pdist's GPU side: the kernels of the three variants,
 * the panel driver and run_gpu, one GPU call of pdist. Included by
 * pdist.cu, which runs single, and pdist_d.cu, which runs double, so that
 * the two classes' tiles (a set a metric each) compile side by side. Each
 * file gets its own copy (an anonymous namespace), the kernels' constant
 * memory (minkowski's p, metric.cuh) and the rescue flag (pdist.h)
 * included: a call sets and reads those of the file that runs it. C++,
 * internal. */
#ifndef GD_PDIST_GPU_CUH
#define GD_PDIST_GPU_CUH

#include "ops/pdist/pdist.h"
#include "runtime/call.h"
#include "tiles/dmma.cuh"

namespace {

// One panel: columns [j0, j1) of the triangle; D points at start(j0).

// naive: one thread per pair of the panel.
template <class T, bool SQRT>
__global__ void pdist_naive(const T *__restrict__ X, T *__restrict__ D,
                            int64_t n, int64_t d, int64_t t0, int64_t t1)
{
    for (int64_t t = t0 + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < t1;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t j = tri_column(t, n), i = t - tri_start(j, n) + j + 1;
        T acc = 0;
        for (int64_t k = 0; k < d; ++k) {
            const T diff = X[i + n * k] - X[j + n * k];
            acc += diff * diff;
        }
        D[t - t0] = finish<T, SQRT>()(acc);
    }
}

// tiled: block (32 x 32 threads) per subset pair (a >= b) of the panel;
// thread (ti, tj) owns pair (32a + ti, 32b + tj). Each round stages 32
// features of both subsets: xa[k][ti] is feature k of observation 32a+ti.
template <class T, bool SQRT>
__global__ void __launch_bounds__(1024)
pdist_tiled(const T *__restrict__ X, T *__restrict__ D, int64_t n, int64_t d,
            int64_t b0, int64_t nb, int64_t S, int64_t base)
{
    __shared__ T xa[SUB][SUB], xb[SUB][SUB];
    const int ti = threadIdx.x, tj = threadIdx.y;
    const int64_t L = S - b0, count = diag_start(nb, L);
    for (int64_t p = blockIdx.x; p < count; p += gridDim.x) {
        const int64_t c = diag_column(p, L), b = b0 + c, a = b + (p - diag_start(c, L));
        const int64_t ia = a * SUB + ti, ib = b * SUB + ti; // rows this thread loads
        T acc = 0;
        for (int64_t k0 = 0; k0 < d; k0 += SUB) {
            const int64_t k = k0 + tj;
            xa[tj][ti] = (ia < n && k < d) ? X[ia + n * k] : (T)0;
            xb[tj][ti] = (ib < n && k < d) ? X[ib + n * k] : (T)0;
            __syncthreads();
#pragma unroll 8
            for (int kk = 0; kk < SUB; ++kk) {
                const T diff = xa[kk][ti] - xb[kk][tj];
                acc += diff * diff;
            }
            __syncthreads();
        }
        const int64_t i = a * SUB + ti, j = b * SUB + tj;
        if (i < n && i > j) D[tri_start(j, n) + i - j - 1 - base] = finish<T, SQRT>()(acc);
    }
}

// Stores the thread's pairs of the tile at rows ic*128..., columns j0...
// (a 128 x 8TY part of tile (ic, jc); v in the layout of big_offset) into
// the condensed D (base: the index of D's first element), each as st
// (sum, i, j); TEST: skip pairs above the diagonal and past n.
//
// Double stores them from the registers. Single goes through shared
// memory (sh: the block's 8TY columns of 128): its registers hold every
// fourth row of a column, so each store instruction would write a quarter
// of every sector it touches, while from shared memory a warp writes 32
// consecutive pairs of one column (whole 128-byte runs of the condensed
// order). At d = 64 that took the tile from 55% to 61% of its ceiling
// (NOTES.md). Double keeps its direct stores: staged, it measured slower.
// single: the thread's pairs into the block's columns in shared memory,
// before store_triangle (after it, with a barrier between)
template <class T, int TY>
__device__ __forceinline__ void stage_tile(const T (&v)[8][8], T (*sh)[BIG])
{
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
    for (int jb = 0; jb < 8; ++jb)
#pragma unroll
        for (int ib = 0; ib < 8; ++ib)
            // volatile: one element a store (ptxas would merge them into
            // 16-byte stores, whose aligned register quads cost the tile
            // spills)
            reinterpret_cast<volatile T *>(sh[gd_tile::big_offset<T, TY>(ty, jb)])
                [gd_tile::big_offset<T, 16>(tx, ib)] = v[ib][jb];
}

template <class T, bool TEST, int TY, class St>
__device__ __forceinline__ void store_triangle(T *__restrict__ D, int64_t n, int64_t base,
                                               int64_t ic, int64_t j0, const T (&v)[8][8],
                                               const St &st, T (*sh)[BIG])
{
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    if constexpr (sizeof(T) == 8) {
#pragma unroll
        for (int jb = 0; jb < 8; ++jb) {
            const int64_t j = j0 + gd_tile::big_offset<T, TY>(ty, jb);
            T *col = D + (tri_start(j, n) - j - 1 - base);
            const typename St::side cj = st.col(j);
#pragma unroll
            for (int ib = 0; ib < 8; ++ib) {
                const int64_t i = ic * BIG + gd_tile::big_offset<T, 16>(tx, ib);
                if (!TEST || (i < n && i > j)) col[i] = st(v[ib][jb], i, j, st.row(i), cj);
            }
        }
    } else {
        enum { NW = 16 * TY / 32, R = BIG / 32 };
        const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
        // the warp's rows lane + 32r, the same in every column
        int64_t i[R];
        typename St::side ci[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
            i[r] = ic * BIG + lane + 32 * r;
            ci[r] = st.row(!TEST || i[r] < n ? i[r] : n - 1);
        }
#pragma unroll 1
        for (int c = warp; c < 8 * TY; c += NW) {
            const int64_t j = j0 + c;
            if (TEST && j >= n - 1) break; // no pair below the diagonal
            T *col = D + (tri_start(j, n) - j - 1 - base);
            const typename St::side cj = st.col(j);
#pragma unroll
            for (int r = 0; r < R; ++r)
                if (!TEST || (i[r] < n && i[r] > j)) col[i[r]] = st(sh[c][lane + 32 * r], i[r], j, ci[r], cj);
        }
    }
}

// The stores: the Euclidean root (with the rescue flag) or the sum itself;
// or a metric's distance from its sum and the rows (metric.cuh: cosine,
// hamming and jaccard from the rows' norms and NaN flags, minkowski's
// root, or its scaled form from the rows where the sum left the range),
// in the store itself rather than in a pass over D after it.
template <class T, bool SQRT> struct store_sum {
    struct side {};
    __device__ store_sum(const metric_data<T> &, const T *, int64_t) {}
    __device__ side row(int64_t) const { return {}; }
    __device__ side col(int64_t) const { return {}; }
    __device__ T operator()(T v, int64_t, int64_t, side, side) const { return finish<T, SQRT>()(v); }
};
// what a store reads of a row, read once for all the pairs it is in:
// nothing, or (cosine, hamming, jaccard) its norm and NaN flag
template <class T, class M> struct row_side {
    struct side {};
    static __device__ side x(const metric_data<T> &, int64_t) { return {}; }
    static __device__ T value(const M &m, T v, int64_t i, int64_t j, side, side) { return m.value(v, i, j); }
};
template <class T, class S> struct row_side<T, m_rows<T, S>> {
    struct side {
        T norm;
        bool nan;
    };
    static __device__ side x(const metric_data<T> &md, int64_t i) { return {md.nx[i], (bool)md.fx[i]}; }
    static __device__ T value(const m_rows<T, S> &m, T v, int64_t, int64_t, side a, side b)
    {
        return epilogue(m.md.metric, v, a.norm, b.norm, a.nan, b.nan, m.md.d);
    }
};
template <class T, class M> struct store_metric {
    typedef row_side<T, M> R;
    typedef typename R::side side;
    M m;
    metric_data<T> md;
    const T *X; // tight, n x d
    int64_t n;
    __device__ store_metric(const metric_data<T> &md_, const T *X_, int64_t n_)
        : m(md_), md(md_), X(X_), n(n_) {}
    // pdist's rows are X's on both sides (nx = ny)
    __device__ side row(int64_t i) const { return R::x(md, i); }
    __device__ side col(int64_t j) const { return R::x(md, j); }
    __device__ T operator()(T v, int64_t i, int64_t j, side a, side b) const
    {
        return m.slow(v) ? m.slow_value(X + i, n, X + j, n) : R::value(m, v, i, j, a, b);
    }
};

// The store's shared memory: in single the block's 64 columns of 128 (32
// KiB, four blocks an SM with their 18 KiB of stages); none in double
template <class T> constexpr int tri_store_bytes()
{
    return sizeof(T) == 4 ? 8 * gd_tile::dist_shape<T>::TY * BIG * (int)sizeof(T) : 0;
}

// The tile of block q0 + blockIdx.x: part q % PARTS of the p = q / PARTS-th
// tile (ic, jc) of the panel's triangle (tile columns c0 ... of NT), its
// first column j0.
template <int TY> struct tri_tile {
    enum { PARTS = BIG / (8 * TY) };
    int64_t ic, jc, j0;
    __device__ __forceinline__ tri_tile(int64_t q0, int64_t c0, int64_t NT, unsigned b = blockIdx.x)
    {
        const int64_t q = q0 + b, p = q / PARTS, L = NT - c0, c = diag_column(p, L);
        jc = c0 + c;
        ic = jc + (p - diag_start(c, L));
        j0 = jc * BIG + (q % PARTS) * 8 * TY;
    }
};

// tuned: the big tile of tile.cuh (min-plus v5, sgemm tuned: 8x8 pairs per
// thread, stages of 8 features: in single three, filled by cp.async as in
// v5; in double two, through registers) over the triangle, with the
// metric's step (Op: (x - y)^2 summed, |x - y| summed or maximised) in
// place of min(x + y). Xp is X padded with zeros to
// np x da (np a multiple of 128, da of 8) and computed over dp features
// (dp a multiple of 4, so the last stage may be a half one): padded
// features add (0 - 0)^2 = 0. Tiles (ic, jc), ic >= jc, of 128 x 128 of
// the panel's tile columns, each computed by 128/(8TY) blocks (two of
// 128 x 64: gd_tile::dist_shape); one block a tile and no loop around
// it, which at 128 registers a thread would spill (launch_panel covers
// the panel); pairs
// above the diagonal and past n are not written.
template <class T, class Op, class St>
__global__ void __launch_bounds__(16 * gd_tile::dist_shape<T>::TY, gd_tile::dist_shape<T>::MINB)
pdist_tuned(const T *__restrict__ Xp, T *__restrict__ D, int64_t n, int64_t np,
            int64_t dp, int64_t c0, int64_t NT, int64_t base, int64_t q0, const T *__restrict__ X,
            const metric_data<T> md)
{
    enum { TY = gd_tile::dist_shape<T>::TY };
    T v[8][8];
    {
        const tri_tile<TY> t(q0, c0, NT);
        gd_tile::accumulate_big<Op, T, BIG_BK, 16, TY, sizeof(T) == 4, true>(Xp, np, Xp, np, 0, dp,
                                                                           t.ic * BIG, t.j0, v);
    }
    extern __shared__ __align__(16) unsigned char dyn[]; // tri_store_bytes<T>
    T(*sh)[BIG] = reinterpret_cast<T(*)[BIG]>(dyn);
    if constexpr (sizeof(T) == 4) {
        stage_tile<T, TY>(v, sh);
        __syncthreads();
    }
    // the tile's place again, from the block index read anew: kept from
    // before the loop, its six registers cost single's tile spills
    unsigned b = blockIdx.x;
#ifdef __CUDA_ARCH__
    asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(b));
#endif
    const tri_tile<TY> t(q0, c0, NT, b);
    const St st(md, X, n);
    // Tiles below the diagonal one and wholly inside the n rows (all but
    // about 2n/128 of them) store every pair without a test.
    if (t.ic > t.jc && (t.ic + 1) * BIG <= n)
        store_triangle<T, false, TY>(D, n, base, t.ic, t.j0, v, st, sh);
    else
        store_triangle<T, true, TY>(D, n, base, t.ic, t.j0, v, st, sh);
}

// dmma's tiles (tiles/dmma.cuh): BM rows of 128 x 128 tiles (ic, jc),
// ic >= jc, of the panel's tile columns c0 ... (of NT), 128 / BM blocks a
// tile, block q0 + blockIdx.x; pairs below the diagonal and inside n
// stored in the condensed D (base: the index of its first element).
enum { DM_BM = 128, DM_BK = 16 };
template <int BM> struct dmma_tri {
    enum { PARTS = BIG / BM };
    float *D;
    int64_t n, base, c0, NT, q0;
    __device__ bool place(int64_t &i0, int64_t &j0) const
    {
        const int64_t q = q0 + blockIdx.x, p = q / PARTS, L = NT - c0, c = diag_column(p, L);
        const int64_t jc = c0 + c, ic = jc + (p - diag_start(c, L));
        i0 = ic * BIG + (q % PARTS) * BM;
        j0 = jc * BIG;
        return i0 < n;
    }
    __device__ bool wanted(int64_t i, int64_t j) const { return i > j && i < n; }
    __device__ bool stored(int64_t i, int64_t j) const { return i > j && i < n; }
    __device__ float *column(int64_t j) const
    {
        return j < n - 1 ? D + (tri_start(j, n) - j - 1 - base) : NULL;
    }
};

// ---------------------------------------------------------------------------
// pdist: variants and the panel driver

enum kind { NAIVE, TILED, TUNED, DMMA };

struct pdist_variant {
    gd_variant_info info;
    kind k;
};


const pdist_variant VARIANTS[] = {
    {.info = {.name = "naive",
              .note = "one thread per pair through the triangular index map (64-bit, exact)",
              .gpu = 1},
     .k = NAIVE},
    {.info = {.name = "tiled",
              .note = "32x32 threads per pair of 32-observation subsets, features staged in "
                      "shared memory",
              .gpu = 1},
     .k = TILED},
    {.info = {.name = "tuned",
              .note = "128x128 tiles of the triangle, two blocks of 128x64 each, 8x8 pairs per "
                      "thread in registers, 16-byte loads, three shared stages filled by "
                      "cp.async (double: two, through registers)",
              .gpu = 1},
     .k = TUNED},
    {.info = {.name = "dmma",
              .note = "single: |x|^2 + |y|^2 - 2x.y in double on the FP64 tensor cores (sm_90), "
                      "each pair certified correctly rounded, the rest summed in double",
              .gpu = 1},
     .k = DMMA},
    {.info = {.name = "cpu", .note = "OpenMP on the host, a column of the triangle at a time", .gpu = 0},
     .k = NAIVE},
};
const int NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0];

// a panel of the triangle; Op: the tuned kernel's step, St its store
// (naive and tiled compute the Euclidean two alone)
template <class T, bool SQRT, class Op = gd_tile::sqdist, class St = store_sum<T, SQRT>>
void launch_panel(kind k, const T *X, const T *Xp, T *Dd, int64_t n, int64_t d,
                  int64_t np, int64_t dp, int64_t j0, int64_t j1, cudaStream_t st,
                  const metric_data<T> &md)
{
    const int64_t base = tri_start(j0, n);
    if (k == NAIVE) {
        const int64_t t1 = tri_start(j1, n), threads = 256;
        const int64_t blocks = (t1 - base + threads - 1) / threads;
        pdist_naive<T, SQRT><<<(unsigned)(blocks < (1 << 22) ? blocks : (1 << 22)), threads, 0, st>>>(
            X, Dd, n, d, base, t1);
    } else if (k == TILED) {
        const int64_t S = (n + SUB - 1) / SUB, b0 = j0 / SUB, nb = (j1 + SUB - 1) / SUB - b0;
        const int64_t L = S - b0, count = nb * (2 * L - nb + 1) / 2;
        pdist_tiled<T, SQRT><<<(unsigned)(count < (1 << 22) ? count : (1 << 22)), dim3(SUB, SUB), 0, st>>>(
            X, Dd, n, d, b0, nb, S, base);
    } else {
        const int64_t NT = np / BIG, c0 = j0 / BIG, nc = (j1 + BIG - 1) / BIG - c0;
        typedef gd_tile::dist_shape<T> S;
        const int64_t L = NT - c0, parts = BIG / (8 * S::TY),
                      count = nc * (2 * L - nc + 1) / 2 * parts;
        for (int64_t q0 = 0; q0 < count; q0 += INT32_MAX) {
            const int64_t blocks = count - q0 < INT32_MAX ? count - q0 : INT32_MAX;
            // the store's shared memory (above the default 48 KB with the
            // stages'), once a device: a failure here fails the launch,
            // which the caller checks
            if (tri_store_bytes<T>() > 0) (void)gd_dynamic_smem<pdist_tuned<T, Op, St>>(tri_store_bytes<T>());
            pdist_tuned<T, Op, St><<<(unsigned)blocks, 16 * S::TY, tri_store_bytes<T>(), st>>>(
                Xp, Dd, n, np, dp, c0, NT, base, q0, X, md);
        }
    }
    if (SQRT) {
        const int64_t t1 = tri_start(j1, n);
        rescue_triangle<T><<<rescue_blocks(t1 - base), 256, 0, st>>>(X, n, Dd, n, d, base, t1);
    }
}

/* a panel of the triangle in the given metric (with_metric's policy M:
 * the tuned kernel's step and store for each; naive and tiled compute the
 * Euclidean two alone) */
template <class T> struct panel_in_metric {
    gd_metric metric;
    kind k;
    const T *X, *Xp;
    T *Dd;
    int64_t n, d, np, dp, j0, j1;
    cudaStream_t ps;
    const metric_data<T> &md;
    template <class M> void run() const
    {
        if constexpr (M::FINISH == FINISH_ROOT) {
            if (metric == GD_EUCLIDEAN)
                launch_panel<T, true>(k, X, Xp, Dd, n, d, np, dp, j0, j1, ps, md);
            else
                launch_panel<T, false>(k, X, Xp, Dd, n, d, np, dp, j0, j1, ps, md);
        } else if constexpr (M::FINISH == FINISH_NONE) {
            launch_panel<T, false, typename M::Step>(k, X, Xp, Dd, n, d, np, dp, j0, j1, ps, md);
        } else {
            launch_panel<T, false, typename M::Step, store_metric<T, M>>(k, X, Xp, Dd, n, d, np,
                                                                        dp, j0, j1, ps, md);
        }
    }
};

/* One GPU call of pdist: columns [jlo, jhi) of the triangle (a device's
 * part: D's elements from start(jlo) on, written in their place in out).
 * D on the device is the whole part when it fits, else as much as the
 * memory left allows, used again from its start once the panels in it are
 * down; a kept D is the whole triangle. */
template <class T> struct pdist_gpu {
    gd_call &c;
    const pdist_variant &v;
    const gd_matrix &Xm;
    gd_metric metric;
    gd_out &out;
    int64_t n, d, jlo, jhi, P, Pj, np, dp, da;
    bool keep;
    cudaStream_t st, st2;
    const T *dX = NULL;
    T *dXp = NULL, *dD = NULL;
    void *dInfo = NULL;
    int64_t buf = 0, target = 0;
    metric_data<T> md;
    static constexpr size_t es = sizeof(T);
    static constexpr gd_class cls = sizeof(T) == 4 ? GD_SINGLE : GD_DOUBLE;

    pdist_gpu(gd_call &c_, const pdist_variant &v_, const gd_matrix &X, gd_metric m, gd_out &o,
              int64_t lo, int64_t hi)
        : c(c_), v(v_), Xm(X), metric(m), out(o), n(X.rows), d(X.cols), jlo(lo),
          jhi(hi < 0 ? X.rows - 1 : hi), keep(o.device != NULL), st(gd_stream()),
          st2(gd_stream2())
    {
        P = tri_start(n - 1, n); // n(n-1)/2
        Pj = tri_start(jhi, n) - tri_start(jlo, n);
        // tuned computes dp features (a multiple of 4: its last stage may
        // be a half one) of Xp, which holds da (whole stages of 8)
        np = gd_round_up(n, BIG);
        dp = gd_round_up(d > 0 ? d : 1, BIG_BK / 2);
        da = gd_round_up(dp, BIG_BK);
        if (v.k == DMMA) da = dp = gd_round_up(d > 0 ? d : 1, DM_BK);
    }

    bool rows_info() const
    {
        return metric == GD_COSINE || metric == GD_HAMMING || metric == GD_JACCARD;
    }

    /* the rows of the norms and NaN flags: X's, padded as the tiles read */
    int64_t info_rows() const { return v.k == TUNED && np > n ? np : n; }

    /* the operands and D's buffer on the device */
    bool allocate()
    {
        char what[128];
        dX = (const T *)c.on_device(Xm, c.event(), st, "X");
        if (v.k == DMMA)
            dDm = (double *)c.alloc((size_t)(da + np + 1) * 8, "the centre, the rows' norms");
        if (v.k == TUNED || v.k == DMMA) {
            gd_describe(what, sizeof what, "padded X", np, da, cls);
            dXp = (T *)c.alloc((size_t)(np * da) * es, what);
        }
        /* every row the tiles read, the padding's too (np: the tuned
         * kernel's padded rows, whose outputs are never stored) */
        if (rows_info()) dInfo = c.alloc((size_t)info_rows() * (es + 1), "the rows' norms and NaN flags");
        int64_t room = c.free_bytes() / 10 * 9;
        if (c.cap_left() < room) room = c.cap_left();
        const int64_t first = tri_start(n - 1 < BIG ? n - 1 : BIG, n) * (int64_t)es;
        buf = room / (int64_t)es;
        if (buf > Pj || keep) buf = Pj;
        if (room < first) buf = first / (int64_t)es; // let the allocation say why
        if (keep) {
            // (a device's part of a distributed D: its columns' pairs)
            gd_describe(what, sizeof what, "D", 1, Pj, cls);
            dD = (T *)c.alloc_kept(out, (size_t)Pj * es, what);
        } else {
            gd_describe(what, sizeof what, "a panel of D", buf, 1, cls);
            dD = (T *)c.alloc((size_t)buf * es, what);
        }
        // panels of 128-column steps: eight or more where D is 32 MiB or
        // more, so that each one's download overlaps the next kernels; and
        // in a long call (a slow metric on many pairs) of some 2^40 single
        // euclidean steps, 100 ms on an H100, so that Ctrl-C, which waits
        // for the panels queued, stops it in a fraction of a second
        target = (size_t)Pj * es >= ((size_t)32 << 20) ? (Pj + 7) / 8 : Pj;
        const double steps = 0x1p40 / ((double)(d > 0 ? d : 1) * metric_step_cost(metric, mp, es == 8));
        if ((double)target > steps) target = (int64_t)steps;
        if (target > buf) target = buf;
        return c.ok();
    }

    /* X's padded layout, minkowski's p, the rows' norms */
    void prepare()
    {
        c.begin(GD_PHASE_PREP, st);
        if (v.k == TUNED || v.k == DMMA) {
            dim3 grid((unsigned)((np + 255) / 256), gd_grid_y(da));
            gd_tile::pad_rows<T><<<grid, 256, 0, st>>>(dX, dXp, n, d, np, da);
            c.launched("layout preparation kernel");
        }
        if constexpr (sizeof(T) == 4)
            if (v.k == DMMA) {
                c.cuda(gd_dmma::prepare(dXp, np, n, d, da, NULL, 0, dDm, dDm + da, NULL,
                                        metric == GD_COSINE, st), "the centre and the rows' norms");
                c.cuda(cudaMemsetAsync(dDm + da + np, 0, 8, st), "clearing the count");
                c.launched("the centre and the rows' norms");
            }
        if (metric == GD_MINKOWSKI) c.check(set_minkowski_p(mp, st));
        md.metric = metric;
        md.d = d;
        const int64_t ri = info_rows();
        md.nx = md.ny = dInfo ? (const T *)dInfo : NULL;
        md.fx = md.fy = dInfo ? (const unsigned char *)((const T *)dInfo + ri) : NULL;
        if (dInfo) {
            /* the padding's entries zero (read by the tiles, never stored) */
            c.cuda(cudaMemsetAsync(dInfo, 0, (size_t)ri * (es + 1), st), "clearing the rows' norms");
            row_info<T><<<gd_blocks_for(n, 256), 256, 0, st>>>(dX, n, n, d, (T *)dInfo,
                                                              (unsigned char *)((T *)dInfo + ri));
            c.launched("the rows' norms");
        }
        c.end(GD_PHASE_PREP, st);
    }

    /* One batch from column j0: the panels that fit in the buffer
     * together, all of their kernels queued before their downloads.
     * The panels are a pipeline's units: they alternate between the two
     * streams, so that one panel's last, partly filled wave overlaps the
     * next one's first (in one stream eight panels cost 3.06 ms against
     * 2.90 for the whole triangle at 16384 x 300), and each one goes down
     * once its kernel is done. Returns the column after the batch. */
    int64_t batch(int64_t j0)
    {
        enum { MAX_BATCH = 64 };
        c.reuse_events();
        c.poison(dD, (size_t)buf * es, st, "poisoning D");
        gd_pipeline pl(c, st, st2);
        pl.units_begin(GD_PHASE_KERNEL);
        int64_t used = 0, pj[MAX_BATCH + 1];
        cudaEvent_t done[MAX_BATCH];
        int qn = 0;
        pj[0] = j0;
        while (j0 < jhi && qn < MAX_BATCH &&
               c.go_on(pl, "column", (double)(j0 - jlo), (double)(jhi - jlo))) {
            int64_t j1 = j0;
            while (j1 < jhi) {
                const int64_t next = j1 + BIG < jhi ? j1 + BIG : jhi;
                const int64_t len = tri_start(next, n) - tri_start(j0, n);
                if (len > buf - used || (j1 > j0 && len > target)) break;
                j1 = next;
            }
            if (j1 == j0) break; // the buffer is full: download, then reuse it
            if (v.k == DMMA)
                dmma_panel(dD + used, j0, j1, pl.stream());
            else
                with_metric<T>(metric, mp, panel_in_metric<T>{metric, v.k, dX, dXp, dD + used, n,
                                                          d, np, dp, j0, j1, pl.stream(), md});
            done[qn] = pl.unit_done("pdist kernel launch");
            used += tri_start(j1, n) - tri_start(j0, n);
            pj[++qn] = j0 = j1;
        }
        if (qn == 0) c.fail(GD_ERR_MEMORY, "GPU memory too small for 128 columns of D");
        pl.units_end();
        if (!keep) { /* the host result is made while the first kernels run */
            char what[96];
            gd_describe(what, sizeof what, "D", 1, P, cls);
            T *h = (T *)c.host_result(out, (size_t)P * es, what);
            for (int64_t i = 0, off = 0; i < qn && h; ++i) {
                const int64_t a = tri_start(pj[i], n), len = tri_start(pj[i + 1], n) - a;
                const size_t bytes = (size_t)len * es;
                pl.download(h + a, bytes, dD + off, bytes, bytes, 1, done[i],
                            "copy of D from the GPU");
                off += len;
            }
        }
        pl.end();
        /* the buffer is free for the next batch once the copies are down */
        c.wait(st, "pdist kernel");
        return j0;
    }

    /* dmma: a panel's tiles (single) */
    template <int BM, int F> void dmma_launch(T *Dp, int64_t j0, int64_t j1, cudaStream_t ps)
    {
        if constexpr (sizeof(T) == 4) {
            typedef gd_dmma::shape<BM, DM_BK> S;
            typedef dmma_tri<BM> O;
            const int64_t NT = np / BIG, c0 = j0 / BIG, nc = (j1 + BIG - 1) / BIG - c0,
                          L = NT - c0, count = nc * (2 * L - nc + 1) / 2 * O::PARTS;
            const gd_dmma::args a = {dXp, dXp, np, np, d, da, dDm, dDm + da, dDm + da,
                                     gd_dmma::kappa(d, F), (unsigned long long *)(dDm + da + np)};
            (void)gd_dynamic_smem<gd_dmma::dist<BM, DM_BK, F, O>>(S::smem);
            for (int64_t q0 = 0; q0 < count; q0 += INT32_MAX) {
                const int64_t blocks = count - q0 < INT32_MAX ? count - q0 : INT32_MAX;
                const O o = {Dp, n, tri_start(j0, n), c0, NT, q0};
                gd_dmma::dist<BM, DM_BK, F, O><<<(unsigned)blocks, gd_dmma::THREADS, S::smem, ps>>>(a, o);
            }
        }
    }
    void dmma_panel(T *Dp, int64_t j0, int64_t j1, cudaStream_t ps)
    {
        const int f = dmma_form(metric);
        if (f == gd_dmma::ROOT)
            dmma_launch<DM_BM, gd_dmma::ROOT>(Dp, j0, j1, ps);
        else if (f == gd_dmma::COS)
            dmma_launch<DM_BM, gd_dmma::COS>(Dp, j0, j1, ps);
        else
            dmma_launch<DM_BM, gd_dmma::SQ>(Dp, j0, j1, ps);
    }

    /* dmma: the pairs the certificate left, in info.kernel */
    void dmma_count(gd_timing *t)
    {
        if (v.k != DMMA || !c.ok()) return;
        unsigned long long k = 0;
        if (c.cuda(cudaMemcpy(&k, dDm + da + np, 8, cudaMemcpyDeviceToHost), "the count"))
            snprintf(t->kernel, sizeof t->kernel,
                     "%llu of %lld pairs summed in double (not certified)", k, (long long)Pj);
    }

    double *dDm = NULL; // dmma: the centre (da), the norms (np), the count
    double mp = 0;      // minkowski's p
};

template <class T>
gd_status run_gpu(const pdist_variant &v, const gd_matrix &Xm, gd_metric metric, double mp,
                  gd_out out, gd_timing *t, int64_t jlo = 0, int64_t jhi = -1)
{
    gd_call c(t, v.info.name);
    if (!c.ok()) return c.finish();
    /* (double is refused before: pdist_metric_variant) */
    if (v.k == DMMA && (sizeof(T) != 4 || gd_cc_major() < 9)) {
        c.fail(GD_ERR_VARIANT, "variant 'dmma' needs the FP64 tensor cores' m16n8k16 (sm_90 or "
               "later)");
        return c.finish();
    }
    pdist_gpu<T> g(c, v, Xm, metric, out, jlo, jhi);
    g.mp = mp;
    if (g.allocate()) {
        g.prepare();
        for (int64_t j0 = g.jlo; j0 < g.jhi && c.ok();) j0 = g.batch(j0);
        c.check(rescue_lower(g.st));
        if (c.wait(g.st, "pdist kernel")) g.dmma_count(t);
    }
    return c.finish();
}

} // namespace

#endif

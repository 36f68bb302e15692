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
 * fell in round r, some k of r's block still has D(i,k) + D(k,j) ==
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
#include "ops/product.h"
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

template <class T> __device__ __forceinline__ T pad_nan();
template <> __device__ __forceinline__ float pad_nan<float>() { return __int_as_float(0x7fffffff); }
template <> __device__ __forceinline__ double pad_nan<double>()
{
    return __longlong_as_double(0x7fffffffffffffffLL);
}

// A weight of W's element type I as T: itself in single and double; an
// integer class's value exactly (T holds it: exact_class), its largest
// value (no edge) as Inf.
template <class T, class I> __device__ __forceinline__ T weight_as(I w)
{
    if constexpr (std::is_floating_point<I>::value)
        return (T)w;
    else
        return w == gd_limits<I>::hi ? (T)INFINITY : (T)w;
}

// An integer W's range for exact_class, over rows x cols of ld ldw (all
// of W, or a device's slab of rows): r[0] = the largest |w| of its edges
// (every element but intmax), r[1] = 1 where one is negative.
template <class I>
__global__ void weight_range(const I *__restrict__ W, int64_t ldw, int64_t rows, int64_t cols,
                             unsigned long long *r)
{
    unsigned long long m = 0, neg = 0;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < rows * cols;
         e += (int64_t)gridDim.x * blockDim.x) {
        const I w = ldw == rows ? W[e] : W[e % rows + ldw * (e / rows)];
        if (w == gd_limits<I>::hi) continue;
        const long long v = (long long)w;
        const unsigned long long a = v < 0 ? (unsigned long long)-v : (unsigned long long)v;
        m = a > m ? a : m;
        neg |= v < 0;
    }
    for (int o = 16; o > 0; o /= 2) {
        const unsigned long long x = __shfl_xor_sync(0xffffffffu, m, o);
        m = x > m ? x : m;
        neg |= __shfl_xor_sync(0xffffffffu, neg, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (m) atomicMax(r, m);
        if (neg) atomicMax(r + 1, 1ull);
    }
}

// D (rows x cols of ld ldd) into an integer class at out (ld ldo), as
// Octave's saturating sums give it: Inf and lengths past intmax are
// intmax, lengths below intmin intmin; where a length is intmax (no path
// the class can say), P's element (ld ldp, NULL: none) becomes 0.
template <class T, class I>
__global__ void to_class(const T *__restrict__ D, int64_t ldd, I *__restrict__ out, int64_t ldo,
                         int64_t rows, int64_t cols, int *__restrict__ P, int64_t ldp)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < rows * cols;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e % rows, j = e / rows;
        const T v = D[i + ldd * j];
        const I x = v >= (T)gd_limits<I>::hi   ? gd_limits<I>::hi
                    : v <= (T)gd_limits<I>::lo ? gd_limits<I>::lo
                                               : (I)v;
        out[i + ldo * j] = x;
        if (P && x == gd_limits<I>::hi) P[i + ldp * j] = 0;
    }
}

// Rows [r0, r0 + rows) of D (np columns) from W's (n columns): the
// weights, 0 on the diagonal, NaN padding; P(i,j) = i + 1 where there is
// an edge i -> j (W(i,j) < Inf, i != j), else 0; H(i,j), the edges of the
// path, 1 there, else 0. Row i of D (and P, H) is row i - d0 of an array of
// leading dimension ldd, row i of W row i - w0 of one of ldw: one device
// fills all np rows of whole arrays (d0 = w0 = 0); across devices each its
// slab, kept as an array of the slab's rows (d0 its first row, and W's
// rows of it alone where P is not asked).
template <class T, class I>
__global__ void apsp_init(const I *__restrict__ W, int64_t ldw, int64_t w0, T *__restrict__ D,
                          int64_t ldd, int64_t d0, int *__restrict__ P, int *__restrict__ H,
                          int64_t n, int64_t np, int64_t r0, int64_t rows, int *flags)
{
    int f = 0, v = 0x7fffffff;
    for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < rows * np;
         q += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = r0 + q % rows, j = q / rows, e = (i - d0) + ldd * j;
        T d = pad_nan<T>();
        int p = 0;
        if (i < n && j < n) {
            const T w = weight_as<T>(W[(i - w0) + ldw * j]);
            if (w != w) f |= F_NAN;
            else if (signbit(w)) f |= F_SIGN;
            if (i == j) {
                if (w < 0) {
                    f |= F_NEGDIAG;
                    v = min(v, (int)i + 1);
                }
                d = 0;
            } else {
                d = w;
                p = w < (T)INFINITY ? (int)i + 1 : 0;
            }
        }
        D[e] = d;
        if (P) P[e] = p;
        if (H) H[e] = p ? 1 : 0;
    }
    if (f) atomicOr(flags, f);
    if (v != 0x7fffffff) atomicMin(flags + 1, v);
}

// a negative cycle: a negative diagonal entry of D
template <class T> __global__ void apsp_diag(const T *__restrict__ D, int64_t n, int64_t np, int *flags)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        if (D[i + np * i] < 0) {
            atomicOr(flags, F_NEGCYCLE);
            atomicMin(flags + 1, (int)i + 1);
        }
}

// a cycle of weight 0 through i != j: D(i,j) + D(j,i) == 0 (bit 16)
template <class T> __global__ void apsp_zero_cycle(const T *__restrict__ D, int64_t n, int64_t np,
                                                   int *flags)
{
    bool z = false;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n * n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e % n, j = e / n;
        z |= i < j && D[i + np * j] + D[j + np * i] == 0;
    }
    if (__syncthreads_or(z) && threadIdx.x == 0) atomicOr(flags, 16);
}

// Wt[j + np q] = W(q, j) with +Inf on the diagonal (a self-loop is never
// the last edge of a shortest path), NaN padding: W's transpose in the
// layout of min-plus's B
template <class T, class I>
__global__ void last_edges(const I *__restrict__ W, T *__restrict__ Wt, int64_t n, int64_t np)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < np * np;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t j = e % np, q = e / np;
        Wt[e] = q < n && j < n ? (q == j ? (T)INFINITY : weight_as<T>(W[q + n * j])) : pad_nan<T>();
    }
}

// P from the lengths: P(i,j) = the first q of min_q D(i,q) + W(q,j) (the
// last edge of a shortest path), 0 on the diagonal and where j is
// unreachable. Where no cycle has weight 0, following these goes from j
// back to i (a circle of them would be a cycle of weight 0).
// The product's row i is the graph's row i0 + i (a slab of rows, across
// devices; 0 on one), and row i of D and P (leading dimension ld), which
// start at the slab's first row.
template <class T> struct last_edge_out {
    enum { TILE = 0 };
    const T *D;
    int *P;
    int64_t ld, n, i0;
    template <int G>
    __device__ void witness(int64_t i, int64_t j, T v, int w, const T *__restrict__ Ap,
                            int64_t lda, const T *__restrict__ Bt, int64_t ldb) const
    {
        const int64_t gi = i + i0;
        if (gi >= n || j >= n) return;
        int p = 0;
        if (gi != j && D[i + ld * j] < (T)INFINITY) {
            T s;
            p = (int)gd_tile::first_k<G>(Ap, lda, Bt, ldb, i, j, v, w, &s) + 1;
        }
        P[i + ld * j] = p;
    }
};

// last_edge_out for minplus_first_stage (single, non-negative): the
// stage's sums from k-major copies (Dk: D's rows, Wk: W's transpose, both
// np wide), every P found before any is stored (store_first_kmajor's
// order)
struct last_edge_kmajor {
    enum { TILE = 1 };
    const float *D;
    int *P;
    int64_t ld, n, i0;
    const float *Dk, *Wk;
    int64_t np;
    template <int G, int TX, int TY, class Wit>
    __device__ void tile(int64_t r0, int64_t j0, int tx, int ty, const float (&acc)[8][8], Wit wit,
                         const float *, int64_t, const float *, int64_t, int64_t) const
    {
        using gd_tile::each_output;
        each_output<float, TX, TY>(r0, j0, tx, ty, [&](int r, int c, int64_t i, int64_t j) {
            const int64_t gi = i + i0;
            int p = 0;
            if (gi < n && j < n && gi != j && D[i + ld * j] < INFINITY)
                p = (int)gd_tile::first_k_kmajor<G>(Dk, np, Wk, np, np, i, j, acc[r][c], wit[r][c]) + 1;
            wit[r][c] = p;
        });
        each_output<float, TX, TY>(r0, j0, tx, ty, [&](int r, int c, int64_t i, int64_t j) {
            if (i + i0 < n && j < n) P[i + ld * j] = wit[r][c];
        });
    }
};

// P's rows as shortest-path trees whose routes sum to D. The first q of
// min_q D(i,q) + W(q,j) need not lead back to i: at D's magnitude
// rounding can make the sum through q tie with the direct edge (W = [0 1
// Inf; -1+2^-30 0 Inf; Inf 2^30 0]: P(3,2) = 1 and P(3,1) = 2, a circle,
// though the cycle 1 -> 2 -> 1 weighs 2^-30). Nor need its route's
// weights sum to D(i,j) within their own rounding: D(i,j) may have been
// summed through vertices of far larger lengths (vertex potentials of
// 1e6, a length of -2457 whose rounding is that of 1e6), and a
// predecessor that ties with it in single leads along light edges whose
// sum is 0.05 away. tree_check finds the rows with a circle or a route
// that strays past D's rounding (route.h: the strays D(i,q) + W(q,j) -
// D(i,j) of its steps summed beyond 4 n eps times its sum of |w|);
// tree_repair chooses those rows' P again (cpu.c's gd_cpu_apsp_trees does
// the same on the host): M(j) = min_q D(i,q) + W(q,j) over q != j (the
// sum the witness took), then by levels from i: P(i,j) = the smallest q
// attached at the level before whose sum is M(j) (a tight edge) and
// through which j's route is within D's rounding, every j that has one
// taking the next level. A level that attaches nothing while reachable
// vertices are left attaches the one whose route from an attached q
// strays least past its bound (or most within it; the first j, then the
// first q), and the levels go on from it: the route through heavier
// vertices that D(i,j) was summed over, where the tight edges' routes
// stray. Each vertex points
// at one attached before it: a tree, always.

// Row i0 + r of P (rows of ld ld) for each r < rows, one block a row:
// whether following P from every j with P(i,j) != 0 reaches i, each
// route's strays and |w| summed on the way. Pointer jumping on the row in
// two buffers (shared memory, or the block's tree_check_work of scratch):
// each round reads one and writes the other, anc'(j) = anc(anc(j)) and
// E'(j) = E(j) + E(anc(j)) (A likewise), until nothing changes or a chain
// of n would have reached its end, the reachable bit (31) kept. No thread
// reads what another writes in the same round (compute-sanitizer's
// racecheck finds no hazard). A row that fails goes into bad[1 + ...],
// bad[0] counting. D's rows as P's, Wt[j + ldt q] = W(q,j) with Inf on
// the diagonal (last_edges). The sums are in double in any order: the
// host's walk may differ from them in the last bit of a sum (a row at its
// bound to that bit).
__host__ __device__ inline size_t tree_check_work(int64_t n)
{
    return (size_t)n * (4 * sizeof(double) + 2 * sizeof(int));
}
template <class T> __device__ __forceinline__ double stray(T dq, T w, T dj);
template <> __device__ __forceinline__ double stray<float>(float dq, float w, float dj)
{
    return gd_stray_f(dq, w, dj);
}
template <> __device__ __forceinline__ double stray<double>(double dq, double w, double dj)
{
    return gd_stray_d(dq, w, dj);
}
template <class T> __device__ __forceinline__ double class_eps()
{
    return sizeof(T) == 4 ? (double)FLT_EPSILON : DBL_EPSILON;
}
template <class T>
__global__ void tree_check(const int *__restrict__ P, const T *__restrict__ D, int64_t ld,
                           const T *__restrict__ Wt, int64_t ldt, int n, int64_t i0, int64_t rows,
                           char *scratch, int *bad)
{
    extern __shared__ double shd[];
    double *const buf = scratch ? (double *)(scratch + tree_check_work(n) * blockIdx.x) : shd;
    const int R = 0x80000000, V = 0x7fffffff;
    const double eps = class_eps<T>();
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const int i = (int)(i0 + r);
        double *E = buf, *E2 = buf + n, *A = buf + 2 * n, *A2 = buf + 3 * n;
        int *anc = (int *)(buf + 4 * n), *nxt = anc + n;
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            const int p = P[r + ld * j];
            if (j == i || p <= 0 || p > n) {
                anc[j] = j;
                E[j] = A[j] = 0;
            } else {
                const T w = Wt[j + ldt * (p - 1)];
                anc[j] = (p - 1) | R;
                E[j] = stray<T>(D[r + ld * (p - 1)], w, D[r + ld * j]);
                A[j] = fabs((double)w);
            }
        }
        __syncthreads();
        // a chain that reaches its end does so within ceil(log2 n) + 1
        // rounds; a circle's pointers go round for ever
        for (int round = 0; ((int64_t)1 << round) <= 2 * (int64_t)n && round < 40; ++round) {
            int moved = 0;
            for (int j = threadIdx.x; j < n; j += blockDim.x) {
                const int a = anc[j], b = anc[a & V] & V;
                nxt[j] = b | (a & R);
                E2[j] = E[j] + E[a & V];
                A2[j] = A[j] + A[a & V];
                moved |= b != (a & V);
            }
            int *t = anc;
            anc = nxt;
            nxt = t;
            double *u = E;
            E = E2;
            E2 = u;
            u = A;
            A = A2;
            A2 = u;
            if (!__syncthreads_or(moved)) break;
        }
        int wrong = 0;
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            const int a = anc[j];
            wrong |= (a & R) && ((a & V) != i || !gd_route_within(E[j], A[j], n, eps));
        }
        if (__syncthreads_or(wrong) && threadIdx.x == 0) bad[1 + atomicAdd(bad, 1)] = (int)r;
        __syncthreads();
    }
}

// A block's work space in tree_repair: the routes' strays and |w| (n
// doubles each), M (n of the class), then three arrays of n ints; 16-byte
// aligned
__host__ __device__ inline size_t tree_work(int64_t n, size_t es)
{
    return ((size_t)n * (2 * sizeof(double) + es + 3 * sizeof(int)) + 15) / 16 * 16;
}

// (x, j, q) with the least (x, j) of the block's threads into thread 0's;
// red: shared memory for a value, j and q per warp
template <class T> struct least_red {
    T x[32];
    int j[32], q[32];
};
template <class T> __device__ void block_least(T &x, int &j, int &q, least_red<T> &red)
{
    auto take = [&](T x2, int j2, int q2) {
        if (x2 < x || (x2 == x && j2 < j)) {
            x = x2;
            j = j2;
            q = q2;
        }
    };
    for (int o = 16; o > 0; o /= 2)
        take(__shfl_down_sync(0xffffffffu, x, o), __shfl_down_sync(0xffffffffu, j, o),
             __shfl_down_sync(0xffffffffu, q, o));
    const int w = threadIdx.x / 32, nw = (blockDim.x + 31) / 32;
    if (threadIdx.x % 32 == 0) {
        red.x[w] = x;
        red.j[w] = j;
        red.q[w] = q;
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int v = 1; v < nw; ++v) take(red.x[v], red.j[v], red.q[v]);
    __syncthreads();
}

// The rows bad names (tree_check's) chosen again as above; D, P and Wt as
// tree_check's. Each block's scratch: tree_work(n, sizeof(T)).
template <class T>
__global__ void tree_repair(const T *__restrict__ D, int *__restrict__ P, int64_t ld,
                            const T *__restrict__ Wt, int64_t ldt, int n, int64_t i0,
                            const int *__restrict__ bad, char *scratch)
{
    double *E = (double *)(scratch + tree_work(n, sizeof(T)) * blockIdx.x), *A = E + n;
    T *M = (T *)(A + n);
    int *lev = (int *)(M + n), *front = lev + n, *next = front + n;
    __shared__ int nf, nn;
    __shared__ least_red<double> red;
    const double eps = class_eps<T>(), b4 = 4.0 * (double)n * eps;
    for (int b = blockIdx.x; b < bad[0]; b += gridDim.x) {
        const int64_t r = bad[1 + b];
        const int i = (int)(i0 + r);
        const T *d = D + r;
        __syncthreads(); /* every thread past the last row's nf */
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            T m = (T)INFINITY;
            for (int q = 0; q < n; ++q) {
                const T s = d[ld * q] + Wt[j + ldt * q];
                m = s < m ? s : m;
            }
            M[j] = m;
            lev[j] = j == i ? 0 : -1;
            E[j] = A[j] = 0;
        }
        if (threadIdx.x == 0) {
            front[0] = i;
            nf = 1;
            nn = 0;
        }
        __syncthreads();
        for (int L = 0; nf > 0; ++L) {
            // j's tight edges from this level's vertices, its route
            // through them within D's rounding
            for (int j = threadIdx.x; j < n; j += blockDim.x) {
                if (lev[j] >= 0 || !(M[j] < (T)INFINITY) || !(d[ld * j] < (T)INFINITY)) continue;
                int best = n;
                double be = 0, ba = 0;
                for (int f = 0; f < nf; ++f) {
                    const int q = front[f];
                    const T w = Wt[j + ldt * q];
                    if (q >= best || q == j || (T)(d[ld * q] + w) != M[j]) continue;
                    const double e = E[q] + stray<T>(d[ld * q], w, d[ld * j]),
                                 a = A[q] + fabs((double)w);
                    if (gd_route_within(e, a, n, eps)) {
                        best = q;
                        be = e;
                        ba = a;
                    }
                }
                if (best < n) {
                    P[r + ld * j] = best + 1;
                    lev[j] = L + 1;
                    E[j] = be;
                    A[j] = ba;
                    next[atomicAdd(&nn, 1)] = j;
                }
            }
            __syncthreads();
            if (nn == 0) {
                // none: the one vertex whose route from an attached q
                // strays least past its bound, (excess, j) least over the
                // block, q the first of j's
                double bx = INFINITY;
                int bj = n, bq = n;
                for (int j = threadIdx.x; j < n; j += blockDim.x) {
                    if (lev[j] >= 0 || !(d[ld * j] < (T)INFINITY)) continue;
                    for (int q = 0; q < n; ++q) {
                        const T w = Wt[j + ldt * q];
                        if (lev[q] < 0 || q == j || !(w < (T)INFINITY)) continue;
                        const double e = E[q] + stray<T>(d[ld * q], w, d[ld * j]),
                                     x = fabs(e) - b4 * (A[q] + fabs((double)w));
                        if (x < bx) {
                            bx = x;
                            bj = j;
                            bq = q;
                        }
                    }
                }
                block_least(bx, bj, bq, red);
                if (threadIdx.x == 0 && bj < n) {
                    const T w = Wt[bj + ldt * bq];
                    P[r + ld * bj] = bq + 1;
                    lev[bj] = L + 1;
                    E[bj] = E[bq] + stray<T>(d[ld * bq], w, d[ld * bj]);
                    A[bj] = A[bq] + fabs((double)w);
                    next[0] = bj;
                    nn = 1;
                }
                __syncthreads();
            }
            for (int f = threadIdx.x; f < nn; f += blockDim.x) front[f] = next[f];
            __syncthreads();
            if (threadIdx.x == 0) {
                nf = nn;
                nn = 0;
            }
            __syncthreads();
        }
    }
}

// P from the rounds' tags (apsp_run::chain_pass). Where the length of
// i -> j last fell in round r (P(i,j) = ~r), it fell to D(i,k) + D(k,j)
// for a k of r's block, and the final lengths still say so: D(i,k) and
// D(k,j) can only have fallen since, and none of their sums is below a
// length (D(i,j) fell no more). chain_search makes P(i,j) = ~k for the
// first such k (k != i, j: not the path itself), reading row i of D from
// its transpose Dt and column j of D, 16 k at a time; where rounding
// leaves no such k it sets flags[0] (the caller then takes the last
// edges). P(i,j) >= 0 (a length that never fell: the edge's, i + 1, or
// none, 0) stays. Threads along i, each block a warp's rows and rows of j.
template <class T>
__global__ void chain_search(const T *__restrict__ D, const T *__restrict__ Dt,
                             int *__restrict__ P, int64_t ld, int n, int *flags)
{
    typedef typename gd_tile::vec16<T>::type V;
    enum { W = gd_tile::vec16<T>::N };
    const int64_t i = blockIdx.x * 32ll + threadIdx.x;
    bool bad = false;
    if (i < n)
        for (int64_t j = blockIdx.y * (int64_t)blockDim.y + threadIdx.y; j < n;
             j += (int64_t)gridDim.y * blockDim.y) {
            const int64_t e = i + ld * j;
            const int tag = P[e];
            if (tag >= 0) continue;
            const int64_t k0 = (int64_t)~tag * FB;
            const T v = D[e];
            const V *a = reinterpret_cast<const V *>(Dt + ld * i + k0);
            const V *b = reinterpret_cast<const V *>(D + ld * j + k0);
            int found = -1;
            /* 16 k at a time, their loads together: the first match ends
             * the search after a few rounds of memory latency */
            for (int q = 0; q < FB / W && found < 0; q += 16 / W) {
                T x[16], y[16];
#pragma unroll
                for (int u = 0; u < 16 / W; ++u) {
                    gd_tile::unpack(x + W * u, __ldg(a + q + u));
                    gd_tile::unpack(y + W * u, __ldg(b + q + u));
                }
#pragma unroll
                for (int w = 15; w >= 0; --w) {
                    const int64_t k = k0 + W * q + w;
                    if (x[w] + y[w] == v && k != i && k != j) found = (int)k;
                }
            }
            P[e] = found >= 0 ? ~found : 0;
            bad |= found < 0;
        }
    if (bad) atomicOr(flags, 1);
}

// P(i,j) = ~k (the path through k) becomes P(k,j) by pointer jumping down
// column j (one block a column) until every entry is a vertex or none (>=
// 0), in two buffers of n ints: shared memory where SH; else the column in
// P and the block's n ints of scratch, taken in turn. Each pass reads one
// buffer and writes the other (no thread reads what another writes in the
// same pass), and the column ends in P. Following them never comes back
// (a circle would be a closed walk of weight 0, and the caller has ruled
// out cycles of weight 0), so a chain of at most n ends within
// ceil(log2 n) + 1 jumps; one still going after that sets flags[0]
// (rounding: the caller then takes the last edges).
template <bool SH>
__global__ void chain_jump(int *__restrict__ P, int64_t ld, int n, int *scratch, int *flags)
{
    extern __shared__ int sh[];
    int most = 1;
    while ((1ll << most) < n) ++most;
    for (int64_t j = blockIdx.x; j < n; j += gridDim.x) {
        int *const pc = P + ld * j;
        int *a = SH ? sh : pc, *b = SH ? sh + n : scratch + (int64_t)n * blockIdx.x;
        if (SH) {
            for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] = pc[i];
            __syncthreads();
        }
        for (int pass = 0;; ++pass) {
            int more = 0;
            for (int i = threadIdx.x; i < n; i += blockDim.x) {
                const int q = a[i];
                const int t = q < 0 ? a[~q] : q;
                b[i] = t;
                more |= t < 0;
            }
            int *t = a;
            a = b;
            b = t;
            if (!__syncthreads_or(more)) break;
            if (pass > most) {
                if (threadIdx.x == 0) atomicOr(flags, 1);
                break;
            }
        }
        if (a != pc) {
            for (int i = threadIdx.x; i < n; i += blockDim.x) pc[i] = a[i];
        }
        __syncthreads();
    }
}

// Step 1: Floyd-Warshall on the diagonal block at (k0, k0): one block of
// 256 threads, each holding an R x R piece of the block's lengths in
// registers (rows R tx.., columns R ty..); a step k reads row k and column
// k from shared memory, where their owners put them at the end of step
// k - 1 (two buffers, one barrier a step). TRACK 1: P(i,j) = tag where
// any path through the block was shorter (the round, as relax tags; a bit
// an output in registers, P written at the end); TRACK 2: P and the edge
// counts H, P(i,j) = P(k,j) (fewer edges break a tie, as in
// gd_tile::relax), in shared memory (128 KiB), read and written only
// where a path changes or ties. Row k and column k change in step k only through
// D(k,k) < 0 (a negative cycle, reported at the end), so step k reads
// their P and H in place. NaN (the padding) never takes part: a sum is
// taken only where it is smaller.
enum { DIAG_R = 8, DIAG_NT = FB / DIAG_R, DIAG_THREADS = DIAG_NT * DIAG_NT };

template <class T, int TRACK>
__global__ void __launch_bounds__(DIAG_THREADS)
    fw_diag(T *__restrict__ D, int *__restrict__ P, int *__restrict__ H, int64_t ld, int64_t k0,
            int tag)
{
    enum { R = DIAG_R, NT = DIAG_NT };
    __shared__ T colk[2][FB], rowk[2][FB];
    extern __shared__ int ph[]; // P, then H, [i + FB j]
    int *ps = ph, *hs = ph + FB * FB;
    const int tx = threadIdx.x % NT, ty = threadIdx.x / NT;
    const int64_t base = k0 + ld * k0;
    T d[R][R];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) d[r][c] = D[base + R * tx + r + ld * (R * ty + c)];
    unsigned long long fell = 0; // TRACK 1: bit R r + c, output (r, c)
    static_assert(R * R <= 64, "a bit an output");
    if constexpr (TRACK == 2)
        for (int e = threadIdx.x; e < FB * FB; e += DIAG_THREADS) {
            ps[e] = P[base + e % FB + ld * (e / FB)];
            hs[e] = H[base + e % FB + ld * (e / FB)];
        }
    // row kn and column kn (its index q within the owners' pieces) into
    // buffer b
    auto publish = [&](int kn, int q, int b) {
        if (tx == kn / R)
#pragma unroll
            for (int c = 0; c < R; ++c) rowk[b][R * ty + c] = d[q][c];
        if (ty == kn / R)
#pragma unroll
            for (int r = 0; r < R; ++r) colk[b][R * tx + r] = d[r][q];
    };
    publish(0, 0, 0);
    __syncthreads();
    for (int kb = 0; kb < FB; kb += R) {
#pragma unroll
        for (int q = 0; q < R; ++q) {
            const int b = q & 1, k = kb + q; // R is even: k & 1 == q & 1
            T ci[R], rj[R];
#pragma unroll
            for (int r = 0; r < R; ++r) ci[r] = colk[b][R * tx + r];
#pragma unroll
            for (int c = 0; c < R; ++c) rj[c] = rowk[b][R * ty + c];
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int c = 0; c < R; ++c) {
                    const T s = ci[r] + rj[c];
                    if constexpr (TRACK == 0) {
                        d[r][c] = s < d[r][c] ? s : d[r][c];
                    } else if constexpr (TRACK == 1) {
                        if (s < d[r][c]) {
                            d[r][c] = s;
                            fell |= 1ull << (R * r + c);
                        }
                    } else if (s <= d[r][c] && s < (T)INFINITY) {
                        const int i = R * tx + r, j = R * ty + c;
                        const int e = hs[i + FB * k] + hs[k + FB * j];
                        if (s < d[r][c] || e < hs[i + FB * j]) {
                            d[r][c] = s;
                            ps[i + FB * j] = ps[k + FB * j];
                            hs[i + FB * j] = e;
                        }
                    }
                }
            if (k + 1 < FB) publish(k + 1, (q + 1) % R, b ^ 1);
            __syncthreads();
        }
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) D[base + R * tx + r + ld * (R * ty + c)] = d[r][c];
    if constexpr (TRACK == 1)
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int c = 0; c < R; ++c)
                if (fell >> (R * r + c) & 1) P[base + R * tx + r + ld * (R * ty + c)] = tag;
    if constexpr (TRACK == 2)
        for (int e = threadIdx.x; e < FB * FB; e += DIAG_THREADS) {
            P[base + e % FB + ld * (e / FB)] = ps[e];
            H[base + e % FB + ld * (e / FB)] = hs[e];
        }
}

template <class T, int TRACK>
gd_status launch_fw_diag_(T *D, int *P, int *H, int64_t ld, int64_t k0, int tag, cudaStream_t st)
{
    const int bytes = TRACK == 2 ? 2 * FB * FB * (int)sizeof(int) : 0;
    if (TRACK == 2) {
        gd_status s = gd_cuda(gd_dynamic_smem<fw_diag<T, TRACK>>(bytes),
                              "the diagonal block's shared memory");
        if (s) return s;
    }
    fw_diag<T, TRACK><<<1, DIAG_THREADS, bytes, st>>>(D, P, H, ld, k0, tag);
    return GD_OK;
}

// the closure with P where P is set (tags, or with H where H is: the
// predecessors and edge counts)
template <class T>
gd_status launch_fw_diag(T *D, int *P, int *H, int64_t ld, int64_t k0, int tag, cudaStream_t st)
{
    return H ? launch_fw_diag_<T, 2>(D, P, H, ld, k0, tag, st)
             : P ? launch_fw_diag_<T, 1>(D, P, H, ld, k0, tag, st)
                 : launch_fw_diag_<T, 0>(D, P, H, ld, k0, tag, st);
}

/* One product of a round (or of squaring) with the relaxing epilogue:
 * out = min (out, A (x) B) over mp x np x kp but the hole, A (lda) and Bt
 * (ldb) in min-plus v5's layouts and kernels (the integer min for single
 * without negative weights). Predecessors as out asks (gd_tile::relax):
 * with edge counts (out.Hout), else the round's tag where out has P. */
template <class T>
void relax_product(const T *A, int64_t lda, const T *Bt, int64_t ldb, int64_t mp, int64_t np,
                   int64_t kp, const gd_tile::relax<T> &out, bool nonneg, cudaStream_t st, gd_tile::hole h = gd_tile::hole{0, 0, 0, 0})
{
    using namespace gd_tile;
    typedef relax<T, RELAX_HOPS> RH;
    if constexpr (sizeof(T) == 8) {
        if (out.Hout)
            launch_each<minplus, T, 8, shape<T>, RH>(A, lda, Bt, ldb, mp, np, kp,
                                                     out.template as<RELAX_HOPS>(), st, nullptr, h);
        else /* the compare and select (1.5 times fmin's rate): an output
              * whose every term is NaN stays +Inf, which no length is
              * above, as fmin's NaN is not below one: the same relaxation */
            launch_each<minplus_sel, T, 8, shape<T>, relax<T>>(A, lda, Bt, ldb, mp, np, kp, out,
                                                               st, nullptr, h);
    } else {
        /* the edge counts' run is rare: the fminf kernel, right for any
         * weights */
        typedef layout<16, 8, 4, true> L; // min-plus v5's
        if (out.Hout)
            launch_each<minplus, T, 8, L, RH>(A, lda, Bt, ldb, mp, np, kp,
                                              out.template as<RELAX_HOPS>(), st, nullptr, h);
        else if (nonneg)
            launch_each<minplus_nonneg, T, 16, L, relax<T>>(A, lda, Bt, ldb, mp, np, kp, out, st,
                                                            nullptr, h);
        else
            launch_each<minplus, T, 8, L, relax<T>>(A, lda, Bt, ldb, mp, np, kp, out, st,
                                                    nullptr, h);
    }
}

/* fn.template operator()<I>() for W's element type: T itself, or an
 * integer class's (whose graph runs in T) */
template <class T, class Fn> void with_weights(gd_class wcls, Fn &&fn)
{
    if (gd_class_is_int(wcls))
        gd_with_int_class(wcls, fn);
    else
        fn.template operator()<T>();
}

/* The GPU variants' common run: D (and P) on the device from W, the
 * variant's rounds, the negative-cycle check, the results. */
/* After the launches queued on st: their error, then bytes of the device's
 * src (flags, a count) into the host's dst, waited for; what names the
 * work */
static gd_status read_back(void *dst, const void *src, size_t bytes, cudaStream_t st,
                           const char *what)
{
    gd_status s;
    if ((s = gd_cuda(cudaGetLastError(), what)) ||
        (s = gd_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, st), what)))
        return s;
    return gd_cuda(cudaStreamSynchronize(st), what);
}

struct apsp_run {
    /* cls: the class of D and of the rounds; wcls: W's (and the results'):
     * cls itself, or an integer class whose graph runs in single or double
     * (exact_class) */
    gd_class cls, wcls;
    size_t es;
    int64_t n, np;
    bool wp, nonneg;
    /* hops: the edge counts break ties (gd_tile::relax); taken when the
     * graph has a cycle of weight 0, found after a run without them */
    bool hops;
    /* P tracked through the rounds with the edge counts; chain: fw's
     * rounds tag the lengths that fall, and P comes from the tags after
     * the last (chain_pass); else P comes from the final lengths
     * (last_edge_pass) */
    bool track, chain;
    /* chain_pass followed the chains in global memory (n > 20480, or
     * GD_CHAIN=global): said in the kernel's name */
    bool chain_global;
    /* the call's allocations: its gd_call's (one device), or the device's
     * own (fw_devices) */
    gd_allocs *al;
    /* the call (one device; NULL across devices): its phases and events */
    gd_call *call;
    cudaStream_t st;
    void *D, *P, *H;
    const void *w; /* W on the device */
    /* Which rows of D (P, H) and W this device holds: row i of D is row
     * i - d0 of an array of leading dimension ldd, W's row i - w0 of one of
     * ldw. 0 (one device): the whole arrays, np and n. Across devices D
     * is the slab's rows (d0 its first, ldd their count), and W too
     * where P is not asked. */
    int64_t d0, ldd, w0, ldw;
    int64_t ld_d() const { return ldd ? ldd : np; }
    int64_t ld_w() const { return ldw ? ldw : n; }
    int *flags;
    /* fw: the rounds' panels, one allocation (panel_set); squaring: the
     * second buffers and D's transpose */
    void *arena, *D2, *P2, *H2, *Dt;
    /* the last edges' k-major operands (single, non-negative): D's rows
     * and W's transpose, for the witness's epilogue */
    void *Dk, *Wk;
    /* the host results' pages being touched (host_results; settle) */
    gd_prefault *touching[2];
    char what[128];

    gd_status alloc(void **ptr, int64_t rows, int64_t cols, gd_class c, const char *label)
    {
        if (*ptr) return GD_OK; /* made by an earlier run of this call */
        gd_describe(what, sizeof what, label, rows, cols, c);
        return gd_alloc(al, ptr, (size_t)rows * (size_t)cols * gd_class_bytes(c), what);
    }

    /* W on the device (an integer W: the class of the rounds from its
     * range), D, P and the flags */
    gd_status prepare(const gd_matrix &W)
    {
        gd_status s;
        if ((s = gd_alloc(al, (void **)&flags, 2 * sizeof(unsigned long long), "the flags")))
            return s;
        if (!(w = call->on_device(W, call->event(), st, "W")))
            return call->ok() ? gd_fail(GD_ERR_INPUT, "internal: W not on the device")
                              : call->status();
        if ((s = exact_class())) return s;
        if ((s = alloc(&D, np, np, cls, "D"))) return s;
        return wp ? alloc(&P, np, np, GD_INT32, "P") : GD_OK;
    }

    /* An integer W (on the device, tight): the class whose sums are all
     * exact. Floyd-Warshall's every operand is the length of a shortest
     * path through some set of vertices (a simple path where no cycle is
     * negative), so with m = max |w| over the edges every sum it takes
     * lies within 2 (n - 1) m of 0: single where that is at most 2^24,
     * else double. Negative weights must also keep (n - 1) m inside the
     * class, where Octave's saturating sums never saturate (non-negative
     * ones saturate alike in any order: min(exact, intmax)). Else
     * GD_ERR_VARIANT: the graph is the host's ('auto' runs it there). */
    struct range_fn {
        const void *w;
        int64_t ld, rows, cols;
        unsigned long long *r;
        cudaStream_t st;
        template <class I> void operator()() const
        {
            weight_range<I><<<gd_blocks_for(rows * cols, 256), 256, 0, st>>>(
                (const I *)w, ld, rows, cols, r);
        }
    };
    struct class_range_fn {
        template <class I> double operator()() const { return (double)gd_limits<I>::hi; }
    };
    /* r (r[0], r[1] as weight_range gives them) of W's rows [r0, r0 +
     * rows) on this device (all of W on one device; its slab across
     * several, whose ranges exact_class_of then takes together) */
    gd_status weight_range_of(int64_t r0, int64_t rows, unsigned long long r[2])
    {
        gd_status s;
        r[0] = r[1] = 0;
        if ((s = gd_cuda(cudaMemsetAsync(flags, 0, 2 * sizeof r[0], st), "clearing the flags")))
            return s;
        if (rows > 0 && n > 0)
            gd_with_int_class(wcls, range_fn{(const char *)w + (size_t)(r0 - w0) * gd_class_bytes(wcls),
                                             ld_w(), rows, n, (unsigned long long *)flags, st});
        return read_back(r, flags, 2 * sizeof r[0], st, "the weights' range");
    }
    /* the class of the rounds from the whole W's range */
    gd_status exact_class_of(const unsigned long long r[2])
    {
        const double most = (double)(n > 1 ? n - 1 : 1) * (double)r[0];
        /* intmin = -intmax - 1 in the signed classes: most <= intmax is
         * the bound both ways */
        const double hi = gd_with_int_class(wcls, class_range_fn());
        if ((r[1] && most > hi) || 2 * most > 9007199254740992.0)
            return gd_fail(GD_ERR_VARIANT,
                           "'fw' computes the integer classes in single or double where the "
                           "weights prove every sum exact: int64 and uint64 never, negative "
                           "weights while (n - 1) max |w| stays inside the class; this graph "
                           "runs on 'cpu'");
        cls = 2 * most <= 16777216.0 ? GD_SINGLE : GD_DOUBLE;
        es = gd_class_bytes(cls);
        return GD_OK;
    }
    gd_status exact_class()
    {
        if (!gd_class_is_int(wcls)) return GD_OK;
        unsigned long long r[2];
        gd_status s = weight_range_of(0, n, r);
        return s ? s : exact_class_of(r);
    }

    /* apsp_init and last_edges for W's element type I */
    template <class T> struct init_fn {
        const apsp_run &r;
        int64_t r0, rows;
        template <class I> void operator()() const
        {
            apsp_init<T, I><<<gd_blocks_for(rows * r.np, 256), 256, 0, r.st>>>(
                (const I *)r.w, r.ld_w(), r.w0, (T *)r.D, r.ld_d(), r.d0,
                r.track || r.chain ? (int *)r.P : NULL, r.hops ? (int *)r.H : NULL, r.n, r.np, r0, rows,
                r.flags);
        }
    };
    template <class T> struct last_edges_fn {
        const apsp_run &r;
        template <class I> void operator()() const
        {
            last_edges<T, I><<<gd_blocks_for(r.np * r.np, 256), 256, 0, r.st>>>(
                (const I *)r.w, (T *)r.Dt, r.n, r.np);
        }
    };

    /* rows [r0, r0 + rows) of D, P (and H) from W's, on st; the flags
     * then into f (fill_read) */
    gd_status fill_launch(int64_t r0, int64_t rows)
    {
        gd_status s;
        if (hops && (s = alloc(&H, np, np, GD_INT32, "the paths' edge counts"))) return s;
        const int start[2] = {0, 0x7fffffff};
        if ((s = gd_cuda(cudaMemcpyAsync(flags, start, sizeof start, cudaMemcpyHostToDevice, st),
                         "clearing the flags")))
            return s;
        if (cls == GD_SINGLE)
            with_weights<float>(wcls, init_fn<float>{*this, r0, rows});
        else
            with_weights<double>(wcls, init_fn<double>{*this, r0, rows});
        return gd_cuda(cudaGetLastError(), "the initialisation kernel");
    }
    gd_status fill_read(int f[2])
    {
        return read_back(f, flags, 2 * sizeof(int), st, "the initialisation kernel");
    }
    /* the verdict of the flags (every device's together): a NaN or a
     * negative diagonal fails; else whether every weight is non-negative */
    gd_status fill_verdict(const int f[2], int64_t *cycle_vertex)
    {
        if (f[0] & F_NAN) return gd_fail(GD_ERR_INPUT, "W has a NaN: a weight must be a number");
        if (f[0] & F_NEGDIAG) {
            *cycle_vertex = f[1];
            return gd_fail(GD_ERR_NEGCYCLE,
                           "the graph has a negative cycle: W(%d,%d) < 0 (a negative self-loop)",
                           f[1], f[1]);
        }
        nonneg = cls == GD_SINGLE && !(f[0] & F_SIGN);
        return GD_OK;
    }
    /* D, P (and H) from W; fails for NaN or a negative diagonal */
    gd_status fill(int64_t *cycle_vertex)
    {
        int f[2] = {0, 0x7fffffff};
        gd_status s;
        if ((s = fill_launch(0, np)) || (s = fill_read(f))) return s;
        return fill_verdict(f, cycle_vertex);
    }

    /* Floyd-Warshall's panels, carved from one allocation: for the round
     * being relaxed and the next (two of each): copies of the column panel
     * (Ac, np x FB), of the row panel transposed (Bt, np x FB), with P
     * its predecessors (Prow, FB x np), with H the edge counts of both
     * (Hcol, Hrow); for closing the column panel: a copy of it (Acol, and
     * its edge counts Hcol2) and of the diagonal block transposed (Dkt,
     * with P and H: Pkk, Hkk, FB x FB). */
    struct panel_set {
        void *Ac[2], *Bt[2], *Acol, *Dkt;
        int *Prow[2], *Hcol[2], *Hrow[2], *Pkk, *Hkk, *Hcol2;
    };

    gd_status panels(panel_set *ps)
    {
        const size_t big = (size_t)(np * FB), small = (size_t)FB * FB;
        size_t at = 0;
        char *base = NULL;
        /* two passes: the size, then the pieces */
        for (int pass = 0; pass < 2; ++pass) {
            at = 0;
            auto take = [&](size_t bytes) -> void * {
                void *q = base ? base + at : NULL;
                at += (bytes + 255) / 256 * 256;
                return q;
            };
            for (int b = 0; b < 2; ++b) {
                ps->Ac[b] = take(big * es);
                ps->Bt[b] = take(big * es);
                ps->Prow[b] = (int *)(track ? take(big * 4) : NULL);
                ps->Hcol[b] = (int *)(hops ? take(big * 4) : NULL);
                ps->Hrow[b] = (int *)(hops ? take(big * 4) : NULL);
            }
            ps->Acol = take(big * es);
            ps->Dkt = take(small * es);
            ps->Pkk = (int *)(track ? take(small * 4) : NULL);
            ps->Hkk = (int *)(hops ? take(small * 4) : NULL);
            ps->Hcol2 = (int *)(hops ? take(big * 4) : NULL);
            if (pass == 0) {
                gd_status s;
                arena = NULL; /* a run with edge counts needs more */
                snprintf(what, sizeof what, "Floyd-Warshall's panels (%.1f MiB)",
                         (double)at / 1048576.0);
                if ((s = gd_alloc(al, &arena, at, what))) return s;
                base = (char *)arena;
            }
        }
        return GD_OK;
    }

    /* Round K = [k0, k0 + FB)'s operands, on stream L: the diagonal block
     * closed (1.), the column panel relaxed against it (2.), then the
     * copies step 3 reads, into buffers b. */
    template <class T>
    gd_status close_panels(const panel_set &ps, int64_t k0, int b, cudaStream_t L)
    {
        T *d = (T *)D;
        int *p = track || chain ? (int *)P : NULL, *h = hops ? (int *)H : NULL;
        const size_t panel = (size_t)(np * FB) * es, ipanel = (size_t)(np * FB) * sizeof(int);
        const size_t ib = sizeof(int);
        const int tag = ~(int)(k0 / FB);
        gd_status s = launch_fw_diag<T>(d, p, h, np, k0, tag, L);
        if (s) return s;
        cudaMemcpyAsync(ps.Acol, d + np * k0, panel, cudaMemcpyDeviceToDevice, L);
        gd_launch_transpose(cls, d + k0 + np * k0, np, ps.Dkt, FB, FB, L);
        if (track)
            cudaMemcpy2DAsync(ps.Pkk, FB * ib, p + k0 + np * k0, np * ib, FB * ib, FB,
                              cudaMemcpyDeviceToDevice, L);
        if (h) {
            cudaMemcpy2DAsync(ps.Hkk, FB * ib, h + k0 + np * k0, np * ib, FB * ib, FB,
                              cudaMemcpyDeviceToDevice, L);
            cudaMemcpyAsync(ps.Hcol2, h + np * k0, ipanel, cudaMemcpyDeviceToDevice, L);
        }
        const gd_tile::relax<T> col = {d + np * k0, d + np * k0, np,
                                       p ? p + np * k0 : NULL, p ? p + np * k0 : NULL,
                                       ps.Pkk, FB, NULL,
                                       h ? h + np * k0 : NULL, h ? h + np * k0 : NULL,
                                       ps.Hkk, ps.Hcol2, np, tag};
        relax_product<T>((const T *)ps.Acol, np, (const T *)ps.Dkt, FB, np, FB, FB, col, nonneg, L);
        cudaMemcpyAsync(ps.Ac[b], d + np * k0, panel, cudaMemcpyDeviceToDevice, L);
        gd_launch_transpose(cls, d + k0, np, ps.Bt[b], FB, np, L);
        if (track)
            cudaMemcpy2DAsync(ps.Prow[b], FB * ib, p + k0, np * ib, FB * ib, np,
                              cudaMemcpyDeviceToDevice, L);
        if (h) {
            cudaMemcpy2DAsync(ps.Hrow[b], FB * ib, h + k0, np * ib, FB * ib, np,
                              cudaMemcpyDeviceToDevice, L);
            cudaMemcpyAsync(ps.Hcol[b], h + np * k0, ipanel, cudaMemcpyDeviceToDevice, L);
        }
        return GD_OK;
    }

    /* The rounds, with lookahead: round r's step 3 first relaxes the next
     * round's column and row panels (the cross), then everything else on
     * gd_stream; meanwhile the stream of the greatest priority closes the
     * next round's diagonal block and column panel (steps 1 and 2) and
     * copies its operands, so that the SMs the big product frees take
     * that short chain of small kernels first and the chain is off the
     * critical path. The cross and the rest write disjoint parts of D. */
    template <class T> gd_status fw()
    {
        gd_status s;
        panel_set ps;
        if ((s = panels(&ps))) return s;
        T *d = (T *)D;
        int *p = track || chain ? (int *)P : NULL, *h = hops ? (int *)H : NULL;
        cudaStream_t L = gd_stream_hi();
        const cudaEvent_t go = call->event(), cross = call->event(), ready = call->event(),
                          joined = call->event();
        if (!call->ok()) return call->status();
        const int64_t rounds = np / FB;
        cudaEventRecord(go, st);
        cudaStreamWaitEvent(L, go, 0);
        s = close_panels<T>(ps, 0, 0, L);
        cudaEventRecord(ready, L);
        for (int64_t r = 0; r < rounds && !s; ++r) {
            if (!call->go_on(st, "round", (double)r, (double)rounds)) return call->status();
            const int b = (int)(r & 1);
            const int64_t kn = (r + 1) * FB;
            const bool next = r + 1 < rounds;
            const T *A = (const T *)ps.Ac[b], *B = (const T *)ps.Bt[b];
            const int tag = ~(int)r;
            cudaStreamWaitEvent(st, ready, 0);
            if (next) {
                /* the next round's column panel (all rows), then its row
                 * panel but the diagonal block */
                const gd_tile::relax<T> col = {d + np * kn, d + np * kn, np,
                                               p ? p + np * kn : NULL, p ? p + np * kn : NULL,
                                               track ? ps.Prow[b] + FB * kn : NULL, FB, NULL,
                                               h ? h + np * kn : NULL, h ? h + np * kn : NULL,
                                               h ? ps.Hrow[b] + FB * kn : NULL, ps.Hcol[b], np,
                                               tag};
                relax_product<T>(A, np, B + kn, np, np, FB, FB, col, nonneg, st);
                const gd_tile::relax<T> row = {d + kn, d + kn, np, p ? p + kn : NULL,
                                               p ? p + kn : NULL, ps.Prow[b], FB, NULL,
                                               h ? h + kn : NULL, h ? h + kn : NULL, ps.Hrow[b],
                                               h ? ps.Hcol[b] + kn : NULL, np, tag};
                relax_product<T>(A + kn, np, B, np, FB, np, FB, row, nonneg, st,
                                 gd_tile::hole{0, 0, kn, FB});
                cudaEventRecord(cross, st);
                cudaStreamWaitEvent(L, cross, 0);
                if ((s = close_panels<T>(ps, kn, b ^ 1, L))) break;
                cudaEventRecord(ready, L);
            }
            /* every other block */
            const gd_tile::relax<T> all = {d, d, np, p, p, ps.Prow[b], FB, NULL,
                                           h, h, ps.Hrow[b], ps.Hcol[b], np, tag};
            relax_product<T>(A, np, B, np, np, np, FB, all, nonneg, st,
                             next ? gd_tile::hole{kn, FB, kn, FB} : gd_tile::hole{0, 0, 0, 0});
            if ((s = gd_cuda(cudaGetLastError(), "a Floyd-Warshall round"))) break;
        }
        /* gd_stream goes on after everything on L */
        cudaEventRecord(joined, L);
        cudaStreamWaitEvent(st, joined, 0);
        return s;
    }

    template <class T> gd_status squaring()
    {
        gd_status s;
        int *changed = flags; /* reused: the flags were read */
        if ((s = alloc(&D2, np, np, cls, "D")) || (s = alloc(&Dt, np, np, cls, "D transposed")) ||
            (track && (s = alloc(&P2, np, np, GD_INT32, "P"))) ||
            (hops && (s = alloc(&H2, np, np, GD_INT32, "the paths' edge counts"))))
            return s;
        int steps = 1;
        while (((int64_t)1 << steps) < n) ++steps;
        for (int it = 0; it <= steps; ++it) {
            if (!call->go_on(st, "squaring", it, steps + 1)) return call->status();
            gd_launch_transpose(cls, D, np, Dt, np, np, st);
            if ((s = gd_cuda(cudaMemsetAsync(changed, 0, sizeof(int), st), "clearing a flag")))
                return s;
            gd_tile::relax<T> out = {(const T *)D, (T *)D2, np, track ? (const int *)P : NULL,
                                     track ? (int *)P2 : NULL, (const int *)P, np, changed,
                                     hops ? (const int *)H : NULL, hops ? (int *)H2 : NULL,
                                     (const int *)H, (const int *)H, np};
            relax_product<T>((const T *)D, np, (const T *)Dt, np, np, np, np, out, nonneg, st);
            int c = 0;
            if ((s = read_back(&c, changed, sizeof c, st, "a squaring"))) return s;
            void *x = D;
            D = D2;
            D2 = x;
            if (track) {
                x = P;
                P = P2;
                P2 = x;
                x = H;
                H = H2;
                H2 = x;
            }
            if (!c) break;
        }
        return GD_OK;
    }

    /* P from the final D: the witness of D (x) W with W's diagonal Inf
     * (one min-plus product); its rows [row0, row0 + rows) alone where
     * rows >= 0 (fw across devices: each device its slab; each element
     * is the same product's, bit for bit) */
    template <class T> gd_status last_edge_pass(int64_t row0 = 0, int64_t rows = -1)
    {
        gd_status s;
        if (rows < 0) rows = np;
        if ((s = alloc(&Dt, np, np, cls, "W transposed"))) return s;
        with_weights<T>(wcls, last_edges_fn<T>{*this});
        const int64_t ld = ld_d();
        const T *A = (const T *)D + (row0 - d0), *B = (const T *)Dt;
        const last_edge_out<T> out = {A, (int *)P + (row0 - d0), ld, n, row0};
        using namespace gd_tile;
        if constexpr (sizeof(T) == 8)
            launch_each<minplus_first<1>, T, 4, layout<16, 8, 1>, last_edge_out<T>, -1, true>(
                A, ld, B, np, rows, np, np, out, st);
        else if (nonneg) {
            // a stage a group (minplus_first_stage), the epilogue from
            // k-major copies of the operands
            if ((s = alloc(&Dk, rows, np, cls, "D's rows k-major")) ||
                (s = alloc(&Wk, np, np, cls, "W k-major")))
                return s;
            launch_kmajor(A, ld, rows, np, (T *)Dk, st);
            launch_kmajor(B, np, np, np, (T *)Wk, st);
            const last_edge_kmajor kout = {A, (int *)P + (row0 - d0), ld, n, row0,
                                           (const T *)Dk, (const T *)Wk, np};
            launch_each<minplus_first_stage<16>, T, 16, layout<16, 8, 2, true>, last_edge_kmajor>(
                A, ld, B, np, rows, np, np, kout, st);
        }
        else
            launch_each<minplus_first<4>, T, 8, layout<16, 8, 2, true>, last_edge_out<T>>(
                A, ld, B, np, rows, np, np, out, st);
        return gd_cuda(cudaGetLastError(), "the predecessors' product");
    }

    /* P from the rounds' tags (chain, all of D and P on this device):
     * chain_search, then chain_jump; where rounding breaks a chain
     * (*fallback), P from the last edges instead */
    template <class T> gd_status chain_pass(bool *fallback)
    {
        gd_status s;
        *fallback = false;
        if (n == 0) return GD_OK;
        if ((s = alloc(&Dt, np, np, cls, "D transposed"))) return s;
        gd_launch_transpose(cls, D, np, Dt, np, np, st);
        if ((s = gd_cuda(cudaMemsetAsync(flags, 0, sizeof(int), st), "clearing a flag"))) return s;
        const int64_t gy = (n + 7) / 8 < 65535 ? (n + 7) / 8 : 65535;
        chain_search<T><<<dim3((unsigned)((n + 31) / 32), (unsigned)gy), dim3(32, 8), 0, st>>>(
            (const T *)D, (const T *)Dt, (int *)P, np, (int)n, flags);
        const size_t sh = 2 * (size_t)n * sizeof(int);
        if (sh <= 160 * 1024 && !gd_setting_is(GD_SET_CHAIN, "global")) {
            /* (the most any n asks: set once a device) */
            if ((s = gd_cuda(gd_dynamic_smem<chain_jump<true>>(160 * 1024),
                             "the chain's shared memory")))
                return s;
            const unsigned cols = (unsigned)(n < 65535 ? n : 65535);
            chain_jump<true><<<cols, 512, sh, st>>>((int *)P, np, (int)n, NULL, flags);
        } else {
            /* the second buffer of each block's column in global memory */
            chain_global = true;
            const int64_t cols = n < 4 * (int64_t)gd_sm_count() ? n : 4 * (int64_t)gd_sm_count();
            int *scratch = NULL;
            if ((s = alloc((void **)&scratch, n, cols, GD_INT32, "the chain's second buffer")))
                return s;
            chain_jump<false><<<(unsigned)cols, 512, 0, st>>>((int *)P, np, (int)n, scratch, flags);
        }
        int f = 0;
        if ((s = read_back(&f, flags, sizeof f, st, "the predecessors' chain"))) return s;
        *fallback = f != 0;
        return f ? last_edge_pass<T>() : GD_OK;
    }

    /* P's rows [row0, row0 + rows) (all of them: rows < 0) made
     * shortest-path trees whose routes sum to D: the rows tree_check
     * finds circling or straying are chosen again by tree_repair;
     * *repaired counts them */
    gd_status trees(int64_t row0, int64_t rows, int *repaired)
    {
        gd_status s;
        if (rows < 0) rows = n;
        *repaired = 0;
        if (rows <= 0) return GD_OK;
        int *bad = NULL;
        char *scratch = NULL;
        const int threads = 512;
        const int64_t ld = ld_d(), at = row0 - d0;
        const size_t sh = tree_check_work(n);
        /* the row's two buffers in shared memory where they fit, else in
         * the blocks' scratch */
        const bool in_shared = sh <= 160 * 1024;
        /* (in global memory two blocks an SM: 40 bytes a vertex each) */
        const int64_t most = (in_shared ? 4 : 2) * (int64_t)gd_sm_count();
        const int64_t grid = rows < most ? rows : most;
        if ((s = alloc((void **)&bad, rows + 1, 1, GD_INT32, "the rows P circles in")) ||
            (!in_shared &&
             (s = alloc((void **)&scratch, (int64_t)tree_check_work(n), grid, GD_UINT8, "P's rows' check"))))
            return s;
        /* W transposed, Inf on the diagonal, into Dt (which the last edges'
         * product may have made already: the same values) */
        if ((s = alloc(&Dt, np, np, cls, "W transposed"))) return s;
        if (cls == GD_SINGLE)
            with_weights<float>(wcls, last_edges_fn<float>{*this});
        else
            with_weights<double>(wcls, last_edges_fn<double>{*this});
        if ((s = gd_cuda(cudaMemsetAsync(bad, 0, sizeof(int), st), "clearing a count"))) return s;
        if (cls == GD_SINGLE) {
            /* (the most any n asks: the attribute is set once a device) */
            if (in_shared && (s = gd_cuda(gd_dynamic_smem<tree_check<float>>(160 * 1024),
                                          "the predecessors' check")))
                return s;
            tree_check<float><<<(unsigned)grid, threads, in_shared ? sh : 0, st>>>(
                (const int *)P + at, (const float *)D + at, ld, (const float *)Dt, np, (int)n, row0,
                rows, scratch, bad);
        } else {
            if (in_shared && (s = gd_cuda(gd_dynamic_smem<tree_check<double>>(160 * 1024),
                                          "the predecessors' check")))
                return s;
            tree_check<double><<<(unsigned)grid, threads, in_shared ? sh : 0, st>>>(
                (const int *)P + at, (const double *)D + at, ld, (const double *)Dt, np, (int)n,
                row0, rows, scratch, bad);
        }
        if ((s = read_back(repaired, bad, sizeof(int), st, "the predecessors' check"))) return s;
        if (!*repaired) return GD_OK;
        const int64_t rg = *repaired < grid ? *repaired : grid;
        char *work = NULL;
        snprintf(what, sizeof what, "the work space of P's rows chosen again (%.1f MiB)",
                 (double)tree_work(n, es) * (double)rg / 1048576.0);
        if ((s = gd_alloc(al, (void **)&work, tree_work(n, es) * (size_t)rg, what)))
            return s;
        if (cls == GD_SINGLE)
            tree_repair<float><<<(unsigned)rg, threads, 0, st>>>(
                (const float *)D + at, (int *)P + at, ld, (const float *)Dt, np, (int)n, row0, bad,
                work);
        else
            tree_repair<double><<<(unsigned)rg, threads, 0, st>>>(
                (const double *)D + at, (int *)P + at, ld, (const double *)Dt, np, (int)n, row0,
                bad, work);
        if ((s = gd_cuda(cudaGetLastError(), "choosing P's rows again"))) return s;
        return gd_cuda(cudaStreamSynchronize(st), "choosing P's rows again");
    }

    /* whether the graph has a cycle of weight 0 (predecessors chosen
     * without edge counts may then go round it); whole: D gathered from
     * devices' slabs */
    gd_status zero_cycle(bool *found, const void *whole = NULL)
    {
        gd_status s;
        int f = 0;
        if ((s = gd_cuda(cudaMemsetAsync(flags, 0, sizeof(int), st), "clearing a flag")))
            return s;
        /* the whole np x np D: this device's, or one gathered (whole) */
        const void *d = whole ? whole : D;
        const unsigned blocks = gd_blocks_for(n * n, 256);
        if (cls == GD_SINGLE)
            apsp_zero_cycle<float><<<blocks, 256, 0, st>>>((const float *)d, n, np, flags);
        else
            apsp_zero_cycle<double><<<blocks, 256, 0, st>>>((const double *)d, n, np, flags);
        if ((s = read_back(&f, flags, sizeof f, st, "the zero-cycle check"))) return s;
        *found = f != 0;
        return GD_OK;
    }

    /* a negative diagonal entry of D: a negative cycle */
    gd_status check(int64_t *cycle_vertex)
    {
        const int start[2] = {0, 0x7fffffff};
        int f[2];
        gd_status s;
        if ((s = gd_cuda(cudaMemcpyAsync(flags, start, sizeof start, cudaMemcpyHostToDevice, st),
                         "clearing the flags")))
            return s;
        const unsigned blocks = gd_blocks_for(n, 256);
        if (cls == GD_SINGLE)
            apsp_diag<float><<<blocks, 256, 0, st>>>((const float *)D, n, np, flags);
        else
            apsp_diag<double><<<blocks, 256, 0, st>>>((const double *)D, n, np, flags);
        if ((s = read_back(f, flags, sizeof f, st, "the diagonal check"))) return s;
        if (f[0] & F_NEGCYCLE) {
            *cycle_vertex = f[1];
            return gd_fail(GD_ERR_NEGCYCLE,
                           "the graph has a negative cycle: a closed path through vertex %d "
                           "has negative length",
                           f[1]);
        }
        return GD_OK;
    }

    /* info.kernel: the rounds' kind ("integer min" or "fminf" in
     * single), for an integer W the class they ran in, then more (edge
     * counts, ...; "": none) */
    void kernel_name(char *buf, size_t len, const char *more) const
    {
        const char *kind = cls == GD_DOUBLE ? "" : nonneg ? "integer min" : "fminf";
        char head[40]; /* "single, exact, integer min" at most */
        if (wcls != cls)
            snprintf(head, sizeof head, "%s, exact%s%s", cls == GD_DOUBLE ? "double" : "single",
                     *kind ? ", " : "", kind);
        else
            snprintf(head, sizeof head, "%s", kind);
        const int at = snprintf(buf, len, "%s%s%s", head, *head && *more ? ", " : "", more);
        if (chain_global && at >= 0 && (size_t)at < len)
            snprintf(buf + at, len - (size_t)at, "%s", at ? ", chains in global memory"
                                                          : "chains in global memory");
    }

    /* D in W's class, tight, at dst (ld ldo): its rows [row0, row0 +
     * rows); an integer class's P (else NULL) loses its predecessors
     * where the length is intmax */
    struct to_class_fn {
        const apsp_run &r;
        void *dst;
        int64_t ldo, row0, rows;
        int *P;
        cudaStream_t on; /* NULL: r.st */
        template <class I> void operator()() const
        {
            const unsigned blocks = gd_blocks_for(rows * r.n, 256);
            const int64_t ld = r.ld_d(), at = row0 - r.d0;
            const cudaStream_t s = on ? on : r.st;
            if (r.cls == GD_SINGLE)
                to_class<float, I><<<blocks, 256, 0, s>>>((const float *)r.D + at, ld,
                                                          (I *)dst, ldo, rows, r.n, P, ld);
            else
                to_class<double, I><<<blocks, 256, 0, s>>>((const double *)r.D + at, ld,
                                                           (I *)dst, ldo, rows, r.n, P, ld);
        }
    };

    /* The host's D (and P), ahead of results: made, and every page
     * touched by threads of their own while the kernels run
     * (gd_host_prefault; settle waits for them) */
    gd_status host_results(gd_out &Dout, gd_out *Pout, gd_class pcls)
    {
        gd_status s;
        const size_t db = (size_t)(n * n) * gd_class_bytes(wcls),
                     pb = (size_t)(n * n) * gd_class_bytes(pcls);
        if (!Dout.device) {
            gd_describe(what, sizeof what, "D", n, n, wcls);
            if ((s = gd_out_buffer(&Dout, db, what))) return s;
            touching[0] = gd_host_prefault(Dout.ptr, db);
        }
        if (Pout && !Pout->device) {
            gd_describe(what, sizeof what, "P", n, n, pcls);
            if ((s = gd_out_buffer(Pout, pb, what))) return s;
            touching[1] = gd_host_prefault(Pout->ptr, pb);
        }
        return GD_OK;
    }

    /* the host results' pages touched (before anything writes them, and
     * on every path before the call returns) */
    void settle()
    {
        for (gd_prefault *&f : touching) {
            gd_host_prefault_wait(f);
            f = NULL;
        }
    }

    /* D (ld np) and P into their outputs: kept (tight copies on the
     * device) or downloaded; an integer W's D in its class. Two units of
     * a pipeline: D's (its class, or its kept copy) on one stream, P's
     * widening on the other while D goes down. */
    gd_status results(gd_out &Dout, gd_out *Pout, gd_class pcls)
    {
        gd_status s;
        settle();
        void *tightP = NULL, *keptD = NULL, *down = NULL;
        const size_t wes = gd_class_bytes(wcls);
        size_t pitch = (size_t)np * es;
        gd_pipeline pl(*call, st, gd_stream2());
        gd_describe(what, sizeof what, "D", n, n, wcls);
        if (Dout.device && (s = gd_alloc_kept(al, &keptD, (size_t)(n * n) * wes, what))) return s;
        if (wcls != cls && !keptD && (s = alloc(&down, n, n, wcls, "D"))) return s;
        if (wp) {
            gd_describe(what, sizeof what, "P", n, n, pcls);
            if (Pout->device
                    ? (s = gd_alloc_kept(al, &tightP, (size_t)(n * n) * gd_class_bytes(pcls), what))
                    : (s = alloc(&tightP, n, n, pcls, "P")))
                return s;
        }
        pl.units_begin(GD_PHASE_PREP);
        if (wcls != cls) {
            /* the class's D: kept, or a tight copy to download */
            gd_with_int_class(wcls, to_class_fn{*this, keptD ? keptD : down, n, 0, n,
                                                wp ? (int *)P : NULL, pl.stream()});
            pitch = (size_t)n * wes;
        } else if (keptD) {
            if ((s = gd_copy_d2d(keptD, n * es, D, np * es, n * es, n, pl.stream()))) return s;
        } else {
            down = D;
        }
        const cudaEvent_t d_done = pl.unit_done("the results' layout");
        cudaEvent_t p_done = NULL;
        if (wp) {
            /* (after D's class, which clears P where the length is intmax) */
            if (wcls != cls && d_done)
                call->cuda(cudaStreamWaitEvent(pl.stream(), d_done, 0), "the results' layout");
            gd_launch_widen(pcls, (const int *)P, np, tightP, n, n, pl.stream());
            p_done = pl.unit_done("the predecessors' class");
        }
        pl.units_end();
        if (!call->ok()) return call->status();
        if (!Dout.device) {
            gd_describe(what, sizeof what, "D", n, n, wcls);
            if ((s = gd_out_buffer(&Dout, (size_t)(n * n) * wes, what))) return s;
            pl.download(Dout.ptr, n * wes, down, pitch, n * wes, n, d_done,
                        "copy of D from the GPU");
        }
        if (wp && !Pout->device) {
            const size_t pb = (size_t)(n * n) * gd_class_bytes(pcls);
            gd_describe(what, sizeof what, "P", n, n, pcls);
            if ((s = gd_out_buffer(Pout, pb, what))) return s;
            pl.download(Pout->ptr, pb, tightP, pb, pb, 1, p_done, "copy of P from the GPU");
        }
        pl.end();
        if (!call->ok()) return call->status();
        if ((s = gd_copies_finish())) return s;
        if (Dout.device) *Dout.device = keptD;
        if (wp && Pout->device) *Pout->device = tightP;
        return GD_OK;
    }
};

const gd_variant_info VARIANTS[] = {
    {"fw", "blocked Floyd-Warshall on the GPU: rounds of 128 vertices, the closure of the "
           "diagonal block in registers, then min-plus v5's tile relaxing the column panel "
           "and every block in place, the next round's panels first (lookahead)",
     1},
    {"squaring", "repeated min-plus squaring with the witness, D = min (D, D (x) D) until "
                 "nothing changes",
     1},
    {"cpu", "blocked Floyd-Warshall on the host, OpenMP, 64-vertex blocks", 0},
};
const int NVARIANTS = sizeof VARIANTS / sizeof VARIANTS[0];

// 'auto' below this n runs on the host (a GPU call costs more than the
// whole job there)
enum { AUTO_CPU_BELOW = 128 };
// 'all' devices divide Floyd-Warshall from 2^36 steps (n^3) a device: n =
// 4096 on one, 5160 on two (two H200s gain 1.19x at n = 8192 single;
// below 5160 not measured)
const double SPLIT_MIN = 68719476736.0;

/* P(i,j) = the first q + 1 of min_q D(i,q) + W(q,j) with W's diagonal
 * Inf (the cpu min-plus with its witness); D n x n, W (ldw) on the host.
 * Nonzero when its work space cannot be allocated. */
static int last_edges_host(gd_class cls, const void *W, int64_t ldw, const void *D, int32_t *P,
                           int64_t n)
{
    const size_t es = gd_class_bytes(cls), bytes = (size_t)(n * n) * es + 1;
    void *Wb = malloc(bytes), *R = malloc(bytes);
    if (!Wb || !R) {
        free(Wb);
        free(R);
        return -1;
    }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t q = 0; q < n; ++q) {
            if (cls == GD_SINGLE)
                ((float *)Wb)[q + n * j] = q == j ? INFINITY : ((const float *)W)[q + ldw * j];
            else
                ((double *)Wb)[q + n * j] = q == j ? INFINITY : ((const double *)W)[q + ldw * j];
        }
    if (cls == GD_SINGLE)
        gd_cpu_minplus_f((const float *)D, (const float *)Wb, (float *)R, P, n, n, n);
    else
        gd_cpu_minplus_d((const double *)D, (const double *)Wb, (double *)R, P, n, n, n);
    free(Wb);
    free(R);
    return 0;
}

/* The cpu variants' frame: W on the host (Wh), P's int32 scratch (with
 * P0), D's buffer; compute(Wh, buf, P) fills them (timed as the kernel);
 * then the results where they go, on every path. */
template <class Fn>
gd_status host_run(const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                   gd_timing *t, Fn &&compute)
{
    const int64_t n = W.rows;
    const size_t bytes = (size_t)(n * n) * gd_class_bytes(W.cls);
    gd_matrix Wh;
    void *hw = NULL, *buf = NULL;
    int32_t *P = NULL;
    gd_out Pout = {};
    char what[96];
    gd_status s = gd_operand_host(&W, &Wh, &hw, "W");
    gd_describe(what, sizeof what, "D", n, n, W.cls);
    if (!s && P0) {
        Pout = *P0;
        if (!(P = (int32_t *)malloc((size_t)(n * n) * 4 + 1)))
            s = gd_fail(GD_ERR_MEMORY, "cannot allocate P (%lld x %lld int32) in host memory",
                        (long long)n, (long long)n);
    }
    if (!s) s = gd_host_result_begin(&Dout, bytes, what, &buf);
    if (!s) {
        const double t0 = gd_now_ms();
        s = compute(Wh, buf, P);
        t->kernel_ms = gd_now_ms() - t0;
    }
    if (buf || Dout.device) s = gd_host_result_end(&Dout, buf, bytes, s, t);
    if (P && !s) s = gd_host_index_result(&Pout, P, n, n, pcls, &Dout, "P", t);
    free(P);
    free(hw);
    if (!s) {
        snprintf(t->variant, sizeof t->variant, "cpu");
        snprintf(t->device, sizeof t->device, "cpu (OpenMP)");
    }
    return s;
}

/* the cpu variant in single and double */
gd_status run_cpu(const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                  int64_t *cycle_vertex, gd_timing *t)
{
    const int64_t n = W.rows;
    return host_run(W, Dout, P0, pcls, t, [&](const gd_matrix &Wh, void *buf, int32_t *P) {
        gd_status s = GD_OK;
        const bool single = W.cls == GD_SINGLE;
        auto wat = [&](int64_t i, int64_t j) -> double {
            return single ? ((const float *)Wh.ptr)[i + Wh.ld * j]
                          : ((const double *)Wh.ptr)[i + Wh.ld * j];
        };
        auto dat = [&](int64_t i, int64_t j) -> double {
            return single ? ((float *)buf)[i + n * j] : ((double *)buf)[i + n * j];
        };
        /* D (and with track, P) from W: the weights, 0 on the diagonal */
        auto init = [&](bool track) {
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < n; ++i) {
                    if (single)
                        ((float *)buf)[i + n * j] =
                            i == j ? 0.0f : ((const float *)Wh.ptr)[i + Wh.ld * j];
                    else
                        ((double *)buf)[i + n * j] = i == j ? 0.0 : wat(i, j);
                    if (track) P[i + n * j] = (i != j && wat(i, j) < INFINITY) ? (int32_t)i + 1 : 0;
                }
        };
        int negdiag = 0, nan = 0;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i) {
                const double w = wat(i, j);
                if (w != w) nan = 1;
                if (i == j && w < 0 && !negdiag) negdiag = (int)i + 1;
            }
        if (nan) {
            s = gd_fail(GD_ERR_INPUT, "W has a NaN: a weight must be a number");
        } else if (negdiag) {
            *cycle_vertex = negdiag;
            s = gd_fail(GD_ERR_NEGCYCLE,
                        "the graph has a negative cycle: W(%d,%d) < 0 (a negative self-loop)",
                        negdiag, negdiag);
        } else {
            /* the lengths first (register tiles: cpu.c) */
            init(false);
            if (single)
                gd_cpu_fw_f((float *)buf, NULL, n);
            else
                gd_cpu_fw_d((double *)buf, NULL, n);
            for (int64_t i = 0; i < n && !s; ++i)
                if (dat(i, i) < 0) {
                    *cycle_vertex = i + 1;
                    s = gd_fail(GD_ERR_NEGCYCLE,
                                "the graph has a negative cycle: a closed path through vertex "
                                "%lld has negative length",
                                (long long)(i + 1));
                }
        }
        if (!s && P) {
            /* P as on the GPU: the last edges from the lengths where no
             * cycle has weight 0, else tracked with the edge counts */
            bool zero = false;
            for (int64_t j = 0; j < n && !zero; ++j)
                for (int64_t i = 0; i < j; ++i)
                    if (dat(i, j) + dat(j, i) == 0) {
                        zero = true;
                        break;
                    }
            int rc = 0;
            if (zero) {
                init(true);
                rc = single ? gd_cpu_fw_f((float *)buf, P, n) : gd_cpu_fw_d((double *)buf, P, n);
            } else if (!(rc = last_edges_host(W.cls, Wh.ptr, Wh.ld, buf, P, n))) {
                for (int64_t j = 0; j < n; ++j)
                    for (int64_t i = 0; i < n; ++i)
                        if (i == j || !(dat(i, j) < INFINITY)) P[i + n * j] = 0;
            }
            /* rows whose predecessors circle chosen again (gd_cpu_apsp_trees) */
            int64_t repaired = 0;
            if (!rc)
                rc = single ? gd_cpu_apsp_trees_f((const float *)buf, n, (const float *)Wh.ptr,
                                                  Wh.ld, P, n, &repaired)
                            : gd_cpu_apsp_trees_d((const double *)buf, n, (const double *)Wh.ptr,
                                                  Wh.ld, P, n, &repaired);
            if (rc)
                s = gd_fail(GD_ERR_MEMORY, "cannot allocate the predecessors' work space (%lld "
                            "x %lld, twice) in host memory", (long long)n, (long long)n);
        }
        return s;
    });
}

/* the cpu variant on an integer class: Floyd-Warshall in the class,
 * saturating (cpu.c) */
gd_status run_cpu_int(const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                      int64_t *cycle_vertex, gd_timing *t)
{
    return host_run(W, Dout, P0, pcls, t, [&](const gd_matrix &Wh, void *buf, int32_t *P) {
        int64_t cycle = 0;
        const int rc = gd_cpu_apsp_int(W.cls, Wh.ptr, Wh.ld, buf, P, W.rows, &cycle);
        if (rc == 2 || rc == 1) *cycle_vertex = cycle;
        if (rc == 2)
            return gd_fail(GD_ERR_NEGCYCLE, "the graph has a negative cycle: W(%lld,%lld) < 0 (a "
                           "negative self-loop)", (long long)cycle, (long long)cycle);
        if (rc == 1)
            return gd_fail(GD_ERR_NEGCYCLE, "the graph has a negative cycle: a closed path "
                           "through vertex %lld has negative length", (long long)cycle);
        if (rc)
            return gd_fail(GD_ERR_MEMORY, "cannot allocate the edge counts (%lld x %lld int32) "
                           "in host memory", (long long)W.rows, (long long)W.rows);
        return GD_OK;
    });
}

/* The one-device run's rounds: the lengths (with fw, P's tags); without a
 * cycle of weight 0, then P from them (the chain; squaring: one witness
 * product); with one (P may go round it), a second run that tracks P and
 * breaks ties by the paths' edge counts. *fallback: the chain gave way to
 * the last edges. */
static void gpu_rounds(gd_call &c, apsp_run &r, bool fw, const gd_matrix &W, gd_out &Dout,
                       gd_out *Pout, gd_class pcls, int64_t *cycle_vertex, bool *fallback)
{
    for (int run = 0; run < 2 && c.ok(); ++run) {
        c.begin(GD_PHASE_PREP, r.st);
        if (run == 0) {
            c.check(r.prepare(W));
            r.chain = r.wp && fw;
        }
        if (c.ok()) c.check(r.fill(cycle_vertex));
        c.end(GD_PHASE_PREP, r.st);
        c.begin(GD_PHASE_KERNEL, r.st);
        if (c.ok() && fw) c.check(r.cls == GD_SINGLE ? r.fw<float>() : r.fw<double>());
        if (c.ok() && !fw)
            c.check(r.cls == GD_SINGLE ? r.squaring<float>() : r.squaring<double>());
        c.end(GD_PHASE_KERNEL, r.st);
        /* the host results made, and their pages touched, while the
         * rounds run (a second run keeps them) */
        if (c.ok() && run == 0) c.check(r.host_results(Dout, Pout, pcls));
        if (c.ok()) c.check(r.check(cycle_vertex));
        bool zero = false;
        if (!c.ok() || !r.wp || r.hops || !c.check(r.zero_cycle(&zero))) break;
        if (!zero) {
            c.begin(GD_PHASE_KERNEL, r.st);
            if (r.chain)
                c.check(r.cls == GD_SINGLE ? r.chain_pass<float>(fallback)
                                           : r.chain_pass<double>(fallback));
            else
                c.check(r.cls == GD_SINGLE ? r.last_edge_pass<float>() : r.last_edge_pass<double>());
            c.end(GD_PHASE_KERNEL, r.st);
            break;
        }
        r.hops = r.track = true;
        r.chain = false;
    }
}

gd_status run_gpu(bool fw, const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                  int64_t *cycle_vertex, gd_timing *t)
{
    gd_call c(t, fw ? "fw" : "squaring");
    if (!c.ok()) return c.finish();
    apsp_run r;
    memset(&r, 0, sizeof r);
    r.al = c.allocs();
    r.call = &c;
    r.cls = r.wcls = W.cls; /* an integer W: its rounds' class from prepare */
    r.es = gd_class_bytes(W.cls);
    r.n = W.rows;
    r.np = gd_round_up(W.rows, FB);
    r.wp = P0 != NULL;
    r.st = gd_stream();
    gd_out Pout = {};
    if (P0) Pout = *P0;
    bool fallback = false;
    gpu_rounds(c, r, fw, W, Dout, P0 ? &Pout : NULL, pcls, cycle_vertex, &fallback);
    int repaired = 0;
    if (c.ok() && r.wp) {
        c.begin(GD_PHASE_KERNEL, r.st);
        c.check(r.trees(0, -1, &repaired));
        c.end(GD_PHASE_KERNEL, r.st);
    }
    if (c.ok()) c.check(r.results(Dout, P0 ? &Pout : NULL, pcls));
    if (c.wait(r.st, "the shortest paths"))
        r.kernel_name(t->kernel, sizeof t->kernel,
                      r.hops       ? (repaired ? "edge counts, P repaired" : "edge counts")
                      : fallback   ? (repaired ? "P from the last edges, repaired"
                                               : "P from the last edges")
                      : repaired   ? "P repaired"
                                   : "");
    if (!c.ok()) {
        /* a kept result made before the failure goes with the call */
        if (Dout.device) *Dout.device = NULL;
        if (P0 && P0->device) *P0->device = NULL;
    }
    r.settle();
    const gd_status s = c.finish();
    if (!s) t->kept = Dout.device != NULL;
    return s;
}

/* ---------------------------------------------------------------------
 * Floyd-Warshall across devices (D, and P after): device e owns the rows
 * of a slab of blocks [row0, row1) of D (all columns) and holds them
 * alone, an array of the slab's rows (rows x np, leading dimension rows =
 * row1 - row0; apsp_run's d0 and ldd), as it holds W's rows of its slab
 * and, with P, the tags of its rows: the memory of the rounds divides
 * with the devices (with P the first device then gathers all of D and the
 * tags, and holds all of W, for the chain: fw_chain). Round K:
 *   the owner of K's rows closes D(K,K) (fw_diag), relaxes its rows of
 *   the column panel against it (step 2) and publishes the closed block
 *   transposed and the row panel transposed, as the one-device rounds
 *   copy them;
 *   every other device pulls both (peer copies, on its own stream after
 *   the owner's event) and relaxes its rows of the column panel;
 *   every device relaxes its slab against the column panel's rows it owns
 *   and the row panel (step 3).
 * Each element goes through the kernels and operands of the one-device
 * rounds in their order (the lookahead there only reorders disjoint
 * elements), so D is the one-device D bit for bit. One host thread queues
 * the rounds on every device (all of it is queued work), which also
 * serves devices simulated on one GPU; the copies between the host and
 * the devices run on the devices' own threads (gd_run_parts), each
 * device uploading its slab's rows of W and downloading its slab's rows
 * of D, beside the others. */
struct fw_device {
    apsp_run r;
    /* the device's call (r.call): its memory, events and timed phases;
     * made by its first part (fw_upload_part, on its thread), ended by
     * fw_end on every path */
    gd_call *call;
    alignas(gd_call) unsigned char call_mem[sizeof(gd_call)];
    int index, ord;
    int64_t row0, row1; /* the slab, multiples of FB */
    cudaStream_t L;     /* steps 1 and 2 of the next round (lookahead) */
    void *Acol, *Ac[2], *Dkt[2], *Bt[2];
    cudaEvent_t published, pulled, cross, ready;
    bool pulled_once;
    unsigned long long range[2]; /* an integer W: its slab's (weight_range) */
    int repaired;                /* its rows of P chosen again (apsp_run::trees) */
    gd_timing t;
};

static void on_device(const fw_device &f)
{
    gd_use_device_index(f.index);
    cudaSetDevice(f.ord);
}

/* Round R's steps 1 and 2 on each device's lookahead stream L, after its
 * event cross (the part of round R - 1's step 3 they read): the owner of
 * R's rows closes the diagonal block, relaxes its rows of the column
 * panel and publishes the copies of buffers R & 1; the others pull them
 * and relax their rows of the column panel. Each records ready. */
template <class T>
static gd_status fw_close(fw_device *dv, int nd, int64_t R, bool nonneg)
{
    const int64_t k0 = R * FB, np = dv[0].r.np;
    const size_t es = sizeof(T);
    const int b = (int)(R & 1), tag = ~(int)R;
    int o = 0;
    while (!(dv[o].row0 <= k0 && k0 < dv[o].row1)) ++o;
    gd_status s;
    for (int pass = 0; pass < 2; ++pass) /* the owner first: its event is waited for */
        for (int e = 0; e < nd; ++e) {
            if ((e == o) != (pass == 0)) continue;
            fw_device &f = dv[e];
            on_device(f);
            cudaStream_t L = f.L;
            const int64_t rows = f.row1 - f.row0;
            /* the slab's rows of D: row i, column j at d[i - row0 + rows j]
             * (and of P's tags, p, alike) */
            T *d = (T *)f.r.D;
            int *p = f.r.chain ? (int *)f.r.P : NULL;
            if ((s = gd_cuda(cudaStreamWaitEvent(L, f.cross, 0), "a Floyd-Warshall round")))
                return s;
            if (e == o) {
                /* the others took the copies of two rounds ago */
                for (int x = 0; x < nd; ++x)
                    if (x != o && dv[x].pulled_once) cudaStreamWaitEvent(L, dv[x].pulled, 0);
                T *dkk = d + (k0 - f.row0) + rows * k0;
                if ((s = launch_fw_diag<T>(dkk, p ? p + (k0 - f.row0) + rows * k0 : NULL, NULL,
                                           rows, 0, tag, L)))
                    return s;
                gd_launch_transpose(f.r.cls, dkk, rows, f.Dkt[b], FB, FB, L);
            } else {
                if ((s = gd_cuda(cudaStreamWaitEvent(L, dv[o].published, 0), "a Floyd-Warshall round")) ||
                    (s = gd_peer_copy(f.Dkt[b], f.ord, dv[o].Dkt[b], dv[o].ord, FB * FB * es, L,
                                      "the diagonal block's copy between devices")))
                    return s;
            }
            /* its rows of the column panel: one contiguous piece */
            T *dcol = d + rows * k0;
            cudaMemcpyAsync(f.Acol, dcol, (size_t)(rows * FB) * es, cudaMemcpyDeviceToDevice, L);
            int *pcol = p ? p + rows * k0 : NULL;
            const gd_tile::relax<T> col = {dcol, dcol, rows, pcol, pcol, NULL, FB,
                                           NULL, NULL, NULL, NULL, NULL, np, tag};
            relax_product<T>((const T *)f.Acol, rows, (const T *)f.Dkt[b], FB, rows, FB, FB, col,
                             nonneg, L);
            cudaMemcpyAsync(f.Ac[b], dcol, (size_t)(rows * FB) * es, cudaMemcpyDeviceToDevice, L);
            if (e == o) {
                gd_launch_transpose(f.r.cls, d + (k0 - f.row0), rows, f.Bt[b], FB, np, L);
                s = gd_cuda(cudaEventRecord(f.published, L), "a Floyd-Warshall round");
            } else {
                s = gd_peer_copy(f.Bt[b], f.ord, dv[o].Bt[b], dv[o].ord, (size_t)(np * FB) * es, L,
                                 "the row panel's copy between devices");
                if (!s) s = gd_cuda(cudaEventRecord(f.pulled, L), "a Floyd-Warshall round");
                f.pulled_once = true;
            }
            if (!s) s = gd_cuda(cudaEventRecord(f.ready, L), "a Floyd-Warshall round");
            if (!s) s = gd_cuda(cudaGetLastError(), "a Floyd-Warshall round");
            if (s) return s;
        }
    return GD_OK;
}

/* Round r's step 3 on each device's stream, after its ready: first the
 * next round's column panel (its rows) and, on the next round's owner,
 * its row panel (the cross), recording cross; then fw_close of the next
 * round; then the rest of the slab, without the cross. */
template <class T>
static gd_status fw_round(fw_device *dv, int nd, int64_t r, int64_t rounds, bool nonneg)
{
    const int64_t np = dv[0].r.np, kn = (r + 1) * FB;
    const bool next = r + 1 < rounds;
    const int b = (int)(r & 1), tag = ~(int)r;
    gd_status s;
    for (int e = 0; e < nd; ++e) {
        fw_device &f = dv[e];
        on_device(f);
        cudaStream_t st = f.r.st;
        const int64_t rows = f.row1 - f.row0;
        T *d = (T *)f.r.D;
        int *p = f.r.chain ? (int *)f.r.P : NULL;
        const T *A = (const T *)f.Ac[b], *B = (const T *)f.Bt[b];
        if ((s = gd_cuda(cudaStreamWaitEvent(st, f.ready, 0), "a Floyd-Warshall round"))) return s;
        if (next) {
            int *pc = p ? p + rows * kn : NULL;
            const gd_tile::relax<T> col = {d + rows * kn, d + rows * kn, rows, pc,
                                           pc, NULL, FB, NULL, NULL, NULL, NULL, NULL, np, tag};
            relax_product<T>(A, rows, B + kn, np, rows, FB, FB, col, nonneg, st);
            if (f.row0 <= kn && kn < f.row1) {
                T *dk = d + (kn - f.row0);
                int *pk = p ? p + (kn - f.row0) : NULL;
                const gd_tile::relax<T> row = {dk, dk, rows, pk, pk, NULL, FB, NULL,
                                               NULL, NULL, NULL, NULL, np, tag};
                relax_product<T>(A + (kn - f.row0), rows, B, np, FB, np, FB, row, nonneg, st,
                                 gd_tile::hole{0, 0, kn, FB});
            }
        }
        if ((s = gd_cuda(cudaEventRecord(f.cross, st), "a Floyd-Warshall round"))) return s;
    }
    if (next && (s = fw_close<T>(dv, nd, r + 1, nonneg))) return s;
    for (int e = 0; e < nd; ++e) {
        fw_device &f = dv[e];
        on_device(f);
        const int64_t rows = f.row1 - f.row0;
        T *d = (T *)f.r.D;
        int *p = f.r.chain ? (int *)f.r.P : NULL;
        const bool mine = f.row0 <= kn && kn < f.row1;
        const gd_tile::hole h = !next ? gd_tile::hole{0, 0, 0, 0}
                                      : gd_tile::hole{mine ? kn - f.row0 : 0, mine ? FB : 0, kn, FB};
        const gd_tile::relax<T> all = {d, d, rows, p, p, NULL, FB, NULL,
                                       NULL, NULL, NULL, NULL, np, tag};
        relax_product<T>((const T *)f.Ac[b], rows, (const T *)f.Bt[b], np, rows, np, FB, all,
                         nonneg, f.r.st, h);
        if ((s = gd_cuda(cudaGetLastError(), "a Floyd-Warshall round"))) return s;
    }
    return GD_OK;
}

/* The call across devices; what the devices' threads share: the call's
 * W, its host results, the devices. */
struct fw_call {
    fw_device *dv;
    const gd_matrix *W;
    gd_out *D, *P; /* host results (P: NULL where not asked) */
    gd_class pcls;
    int nd;
    int64_t n, np, blocks;
    gd_class cls;     /* the rounds' (an integer W's from its range) */
    size_t es;
    int at;           /* the device where the call failed (-1: the parts name theirs) */
    gd_timing parts;  /* gd_run_parts's; each device's times are in its t */
    /* with P, on the first device: all of D (gathered for the zero-cycle
     * check) and all of P (from the slabs' tags by the chain) */
    void *whole, *wholeP;
    bool fallback;    /* the chain gave way to the last edges */
};

/* Part e (on device e's thread): W's rows of its slab uploaded, an array
 * of those rows alone (all of W where P is asked: the predecessors'
 * product reads it whole), and an integer W's range over the slab. */
static gd_status fw_upload_part(void *c, int e, int, gd_timing *)
{
    fw_call &x = *(fw_call *)c;
    fw_device &f = x.dv[e];
    const gd_matrix &W = *x.W;
    gd_status s;
    f.call = new (f.call_mem) gd_call(&f.t, "fw");
    if ((s = f.call->status())) return s;
    f.r.call = f.call;
    f.r.al = f.call->allocs();
    f.r.st = gd_stream();
    const int64_t n = f.r.n, last = f.row1 < n ? f.row1 : n, rows = last - f.row0;
    const size_t wes = gd_class_bytes(W.cls);
    void *w = NULL;
    char what[96];
    /* the rows held: the slab's (w0 its first, ldw their count), or, on
     * the first device with P, all of W (the chain's fallback and P's
     * repair read it whole there) */
    const bool all = x.P && e == 0;
    const int64_t u0 = all ? 0 : f.row0, un = all ? n : rows;
    f.r.w0 = u0;
    f.r.ldw = un;
    gd_describe(what, sizeof what, all ? "W" : "W's rows", un, n, W.cls);
    gd_call &k = *f.call;
    f.r.flags = (int *)k.alloc(2 * sizeof(unsigned long long), "the flags");
    if ((w = k.alloc((size_t)(un * n) * wes, what))) {
        f.r.w = w;
        gd_pipeline pl(k, f.r.st, gd_stream2());
        pl.upload(w, (size_t)un * wes, (const char *)W.ptr + (size_t)u0 * wes,
                  (size_t)W.ld * wes, (size_t)un * wes, (size_t)n, "W");
        pl.end();
    }
    if (k.ok()) k.check(gd_copies_finish());
    if (k.ok() && gd_class_is_int(W.cls)) k.check(f.r.weight_range_of(f.row0, rows, f.range));
    gd_copies_end();
    return k.status();
}

/* Rows [row0, row0 + rows) of an n-column host result (ld n elements of
 * es bytes) from src (their first column; pitch sp bytes), an output of
 * the pipeline's unit that ends with done, downloaded from column c0
 * round to c0 - 1: devices downloading beside one another start on
 * different columns, so their threads first touch (and the kernel clears)
 * different pages of the fresh result. */
static void download_rows(gd_pipeline &pl, void *dst, size_t es, int64_t n, int64_t row0,
                          int64_t rows, const void *src, size_t sp, int64_t c0, cudaEvent_t done,
                          const char *what)
{
    const int64_t from[2] = {c0, 0}, to[2] = {n, c0};
    for (int q = 0; q < 2; ++q)
        if (to[q] > from[q])
            pl.download((char *)dst + (size_t)(row0 + from[q] * n) * es, (size_t)n * es,
                        (const char *)src + (size_t)from[q] * sp, sp, (size_t)rows * es,
                        (size_t)(to[q] - from[q]), done, what);
}

/* Part e (on device e's thread): its slab's rows of D (an integer W's in
 * its class) into the host result, and on the first device all of P
 * (fw_chain's, in its class): two units of a pipeline, D's going down
 * while P's class is made. */
static gd_status fw_results_part(void *c, int e, int nd, gd_timing *)
{
    fw_call &x = *(fw_call *)c;
    fw_device &f = x.dv[e];
    on_device(f);
    gd_copies_begin(&f.t);
    gd_call &k = *f.call;
    const int64_t n = f.r.n, np = f.r.np, last = f.row1 < n ? f.row1 : n, rows = last - f.row0;
    const int64_t c0 = n * e / nd, held = f.row1 - f.row0;
    const gd_class wcls = x.W->cls, cls = f.r.cls;
    const size_t es = f.r.es, wes = gd_class_bytes(wcls), pes = gd_class_bytes(x.pcls);
    void *tightD = NULL, *tightP = NULL;
    const bool p_here = x.P && e == 0 && n > 0;
    if (rows > 0 && wcls != cls) tightD = k.alloc((size_t)(rows * n) * wes, "D's rows");
    if (p_here) tightP = k.alloc((size_t)(n * n) * pes, "P");
    if (rows > 0 && k.ok()) {
        gd_pipeline pl(k, f.r.st, gd_stream2());
        /* D's rows: in W's class (a tight copy), or as they are */
        pl.units_begin(GD_PHASE_PREP);
        if (tightD)
            gd_with_int_class(wcls, apsp_run::to_class_fn{f.r, tightD, rows, f.row0, rows, NULL,
                                                          pl.stream()});
        const cudaEvent_t d_done = pl.unit_done("the results' layout");
        pl.units_end();
        if (tightD)
            download_rows(pl, x.D->ptr, wes, n, f.row0, rows, tightD, (size_t)rows * wes, c0,
                          d_done, "copy of D from the GPU");
        else
            download_rows(pl, x.D->ptr, wes, n, f.row0, rows, f.r.D, (size_t)held * es, c0,
                          d_done, "copy of D from the GPU");
        pl.flush(); /* no inputs to come: D goes down while P's class is made */
        if (p_here) {
            pl.units_begin(GD_PHASE_PREP);
            gd_launch_widen(x.pcls, (const int *)x.wholeP, np, tightP, n, n, f.r.st);
            const cudaEvent_t p_done = pl.unit_done("the predecessors' class");
            pl.units_end();
            pl.download(x.P->ptr, (size_t)(n * n) * pes, tightP, (size_t)(n * n) * pes,
                        (size_t)(n * n) * pes, 1, p_done, "copy of P from the GPU");
        }
        pl.end();
    }
    if (k.ok()) k.check(gd_copies_finish());
    if (k.ok()) k.cuda(cudaStreamSynchronize(f.r.st), "the shortest paths");
    gd_copies_end();
    return k.status();
}

/* The devices' slabs (rows of blocks) and their apsp_runs, before the
 * upload */
static void fw_begin(fw_call &x, fw_device *dv, int nd, const int *idx)
{
    const gd_matrix &W = *x.W;
    x.dv = dv;
    x.nd = nd;
    x.n = W.rows;
    x.np = gd_round_up(x.n, FB);
    x.blocks = x.np / FB;
    x.cls = W.cls;
    x.es = gd_class_bytes(W.cls);
    x.at = -1;
    for (int e = 0; e < nd; ++e) {
        fw_device &f = dv[e];
        f.index = idx[e];
        f.ord = gd_device_ordinal(idx[e]);
        f.row0 = x.blocks * e / nd * FB;
        f.row1 = x.blocks * (e + 1) / nd * FB;
        f.r.cls = f.r.wcls = W.cls;
        f.r.es = x.es;
        f.r.n = x.n;
        f.r.np = x.np;
    }
}

/* an integer W: the rounds' class from every slab's range */
static gd_status fw_class(fw_call &x)
{
    fw_device *dv = x.dv;
    unsigned long long r[2] = {0, 0};
    for (int e = 0; e < x.nd; ++e) {
        r[0] = dv[e].range[0] > r[0] ? dv[e].range[0] : r[0];
        r[1] |= dv[e].range[1];
    }
    on_device(dv[0]);
    gd_status s = dv[0].r.exact_class_of(r);
    if (s) return s;
    x.cls = dv[0].r.cls;
    x.es = gd_class_bytes(x.cls);
    for (int q = 0; q < x.nd; ++q) {
        dv[q].r.cls = x.cls;
        dv[q].r.es = x.es;
    }
    return GD_OK;
}

/* Each device's slab of D, its panels and events, D filled from W; then
 * the flags of every slab together: a NaN anywhere, the first negative
 * self-loop, whether every weight is non-negative */
static gd_status fw_prepare(fw_call &x, int64_t *cycle_vertex)
{
    const gd_class cls = x.cls;
    const int64_t np = x.np;
    gd_status s = GD_OK;
    for (int e = 0; e < x.nd && !s; ++e) {
        fw_device &f = x.dv[e];
        on_device(f);
        x.at = e;
        const int64_t rows = f.row1 - f.row0;
        /* its slab's rows of D alone */
        f.r.d0 = f.row0;
        f.r.ldd = rows;
        if ((s = f.r.alloc(&f.r.D, rows, np, cls, "D's rows"))) break;
        /* with P, its rows' tags (the chain's, after the rounds) */
        f.r.wp = f.r.chain = x.P != NULL;
        if (x.P && (s = f.r.alloc(&f.r.P, rows, np, GD_INT32, "P's rows"))) break;
        f.L = gd_stream_hi();
        if ((s = f.r.alloc(&f.Acol, rows, FB, cls, "the column panel")) ||
            (s = f.r.alloc(&f.Ac[0], rows, FB, cls, "the column panel")) ||
            (s = f.r.alloc(&f.Ac[1], rows, FB, cls, "the column panel")) ||
            (s = f.r.alloc(&f.Dkt[0], FB, FB, cls, "the diagonal block")) ||
            (s = f.r.alloc(&f.Dkt[1], FB, FB, cls, "the diagonal block")) ||
            (s = f.r.alloc(&f.Bt[0], np, FB, cls, "the row panel")) ||
            (s = f.r.alloc(&f.Bt[1], np, FB, cls, "the row panel")))
            break;
        cudaEvent_t *evs[4] = {&f.published, &f.pulled, &f.cross, &f.ready};
        for (int q = 0; q < 4 && !s; ++q)
            s = gd_cuda(cudaEventCreateWithFlags(evs[q], cudaEventDisableTiming),
                        "cudaEventCreate");
        if (s) break;
        /* its slab of D (and the flags of its rows of W) */
        f.call->begin(GD_PHASE_PREP, f.r.st);
        if ((s = f.r.fill_launch(f.row0, rows))) break;
        f.call->end(GD_PHASE_PREP, f.r.st);
    }
    int fl[2] = {0, 0x7fffffff};
    for (int e = 0; e < x.nd && !s; ++e) {
        on_device(x.dv[e]);
        x.at = e;
        int f[2] = {0, 0x7fffffff};
        if ((s = x.dv[e].r.fill_read(f))) break;
        fl[0] |= f[0];
        if ((f[0] & F_NEGDIAG) && f[1] < fl[1]) fl[1] = f[1];
    }
    if (s) return s;
    x.at = 0;
    if ((s = x.dv[0].r.fill_verdict(fl, cycle_vertex))) return s;
    for (int e = 1; e < x.nd; ++e) x.dv[e].r.nonneg = x.dv[0].r.nonneg;
    return GD_OK;
}

/* every round on every device, timed from the fill to the last */
template <class T> static gd_status fw_all_rounds(fw_call &x)
{
    fw_device *dv = x.dv;
    const bool nonneg = dv[0].r.nonneg;
    for (int e = 0; e < x.nd; ++e) {
        on_device(dv[e]);
        dv[e].call->begin(GD_PHASE_KERNEL, dv[e].r.st);
        cudaEventRecord(dv[e].cross, dv[e].r.st); /* round 0's panels follow the fill */
    }
    gd_status s = fw_close<T>(dv, x.nd, 0, nonneg);
    for (int64_t r = 0; r < x.blocks && !s; ++r) {
        /* Ctrl-C and the pace on the first device (the others go with it) */
        on_device(dv[0]);
        if (!dv[0].call->go_on(dv[0].r.st, "round", (double)r, (double)x.blocks)) {
            x.at = -1;
            s = dv[0].call->status();
            break;
        }
        s = fw_round<T>(dv, x.nd, r, x.blocks, nonneg);
    }
    for (int e = 0; e < x.nd; ++e) {
        /* the stream goes on after everything on L */
        on_device(dv[e]);
        cudaEventRecord(dv[e].ready, dv[e].L);
        cudaStreamWaitEvent(dv[e].r.st, dv[e].ready, 0);
        dv[e].call->end(GD_PHASE_KERNEL, dv[e].r.st);
    }
    return s;
}

/* a negative cycle: the first vertex of any slab with a negative diagonal
 * entry (*cycle_vertex and GD_ERR_NEGCYCLE) */
static gd_status fw_negative(fw_call &x, int64_t *cycle_vertex)
{
    int64_t neg = 0;
    gd_status s = GD_OK;
    for (int e = 0; e < x.nd && !s; ++e) {
        fw_device &f = x.dv[e];
        on_device(f);
        x.at = e;
        const int64_t last = f.row1 < x.n ? f.row1 : x.n;
        if (last <= f.row0) continue;
        const int start[2] = {0, 0x7fffffff};
        int fl[2];
        cudaStream_t st = f.r.st;
        if ((s = gd_cuda(cudaMemcpyAsync(f.r.flags, start, sizeof start, cudaMemcpyHostToDevice, st),
                         "clearing the flags")))
            break;
        /* D(row0, row0) is the slab's element (0, row0); D(i, i) then
         * every rows + 1 */
        const unsigned bl = gd_blocks_for(last - f.row0, 256);
        const int64_t held = f.row1 - f.row0;
        if (x.cls == GD_SINGLE)
            apsp_diag<float><<<bl, 256, 0, st>>>((const float *)f.r.D + f.row0 * held,
                                                 last - f.row0, held, f.r.flags);
        else
            apsp_diag<double><<<bl, 256, 0, st>>>((const double *)f.r.D + f.row0 * held,
                                                  last - f.row0, held, f.r.flags);
        if ((s = read_back(fl, f.r.flags, sizeof fl, st, "the diagonal check"))) break;
        if ((fl[0] & F_NEGCYCLE) && !neg) neg = f.row0 + fl[1];
    }
    if (s || !neg) return s;
    *cycle_vertex = neg;
    return gd_fail(GD_ERR_NEGCYCLE, "the graph has a negative cycle: a closed path through "
                   "vertex %lld has negative length", (long long)neg);
}

/* P: a cycle of weight 0 is looked for in the whole D, gathered
 * on the first device (an np x np array made for it); *zero when found */
static gd_status fw_zero_cycle(fw_call &x, bool *zero)
{
    fw_device &f0 = x.dv[0];
    on_device(f0);
    x.at = 0;
    gd_status s = f0.r.alloc(&x.whole, x.np, x.np, x.cls, "D");
    for (int e = 0; e < x.nd && !s; ++e) {
        const fw_device &f = x.dv[e];
        const size_t held = (size_t)(f.row1 - f.row0) * x.es;
        s = gd_peer_copy_2d((char *)x.whole + (size_t)f.row0 * x.es, (size_t)x.np * x.es, f0.ord,
                            f.r.D, held, f.ord, held, (size_t)x.np, f0.r.st,
                            "D's rows between devices");
    }
    if (!s) s = f0.r.zero_cycle(zero, x.whole);
    return s;
}

/* P (no cycle of weight 0) on the first device: the slabs' tags
 * gathered beside all of D, the chain over the whole (the one-device
 * run's P, bit for bit), the trees checked and repaired */
static gd_status fw_chain(fw_call &x)
{
    fw_device &f0 = x.dv[0];
    on_device(f0);
    x.at = 0;
    gd_status s = f0.r.alloc(&x.wholeP, x.np, x.np, GD_INT32, "P");
    for (int e = 0; e < x.nd && !s; ++e) {
        const fw_device &f = x.dv[e];
        const size_t held = (size_t)(f.row1 - f.row0) * sizeof(int);
        s = gd_peer_copy_2d((char *)x.wholeP + (size_t)f.row0 * sizeof(int),
                            (size_t)x.np * sizeof(int), f0.ord, f.r.P, held, f.ord, held,
                            (size_t)x.np, f0.r.st, "P's rows between devices");
    }
    if (s) return s;
    /* the first device's run, over the whole arrays */
    apsp_run v = f0.r;
    v.D = x.whole;
    v.P = x.wholeP;
    v.d0 = v.ldd = 0;
    v.Dt = v.Dk = v.Wk = NULL;
    f0.call->begin(GD_PHASE_KERNEL, v.st);
    s = x.cls == GD_SINGLE ? v.chain_pass<float>(&x.fallback) : v.chain_pass<double>(&x.fallback);
    if (!s) s = v.trees(0, -1, &f0.repaired);
    f0.call->end(GD_PHASE_KERNEL, v.st);
    return s;
}

/* every device's end, on every path: its call ended (its memory freed,
 * its phases' times read), its events freed, its times folded into t
 * (each phase the longest device's), the failure named by its device;
 * this thread back on its device (mine) */
static gd_status fw_end(fw_call &x, gd_status s, int mine, gd_timing *t)
{
    if ((s == GD_ERR_MEMORY || s == GD_ERR_CUDA) && x.at >= 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", gd_last_error());
        on_device(x.dv[x.at]);
        s = gd_fail(s, "device %d (%s): %s", x.dv[x.at].index + 1, gd_device_name(), msg);
    }
    t->devices = x.nd;
    bool repaired = false;
    for (int e = 0; e < x.nd; ++e) {
        fw_device &f = x.dv[e];
        repaired |= f.repaired > 0;
        if (!f.call) continue; /* never started */
        on_device(f);
        f.call->check(s);
        gd_status se = f.call->finish();
        f.call->~gd_call();
        f.call = NULL;
        const cudaEvent_t evs[4] = {f.published, f.pulled, f.cross, f.ready};
        for (cudaEvent_t ev : evs)
            if (ev) cudaEventDestroy(ev);
        if (!s && se) s = se;
        t->device_idx[e] = f.index;
        t->upload_ms = f.t.upload_ms > t->upload_ms ? f.t.upload_ms : t->upload_ms;
        t->download_ms = f.t.download_ms > t->download_ms ? f.t.download_ms : t->download_ms;
        t->prep_ms = f.t.prep_ms > t->prep_ms ? f.t.prep_ms : t->prep_ms;
        t->kernel_ms = f.t.kernel_ms > t->kernel_ms ? f.t.kernel_ms : t->kernel_ms;
        t->gpu_bytes += f.t.gpu_bytes;
    }
    gd_use_device_index(mine);
    cudaSetDevice(gd_ordinal());
    snprintf(t->variant, sizeof t->variant, "fw");
    const char *more = !x.P         ? "rows of blocks"
                       : x.fallback ? (repaired ? "rows of blocks, P from the last edges, repaired"
                                                : "rows of blocks, P from the last edges")
                       : repaired   ? "rows of blocks, P from the tags, repaired"
                                    : "rows of blocks, P from the tags";
    if (x.W->cls == GD_DOUBLE)
        snprintf(t->kernel, sizeof t->kernel, "double, %s", more);
    else
        x.dv[0].r.kernel_name(t->kernel, sizeof t->kernel, more);
    snprintf(t->device, sizeof t->device, "%.200s x %d", x.nd ? gd_device_name() : "", x.nd);
    return s;
}

static gd_status fw_devices(const gd_matrix &W, gd_out Dout, const gd_out *P0, gd_class pcls,
                            int64_t *cycle_vertex, int nd, const int *idx, gd_timing *t,
                            bool *redo)
{
    *redo = false;
    fw_device dv[GD_MAX_DEVICES];
    memset(dv, 0, sizeof dv);
    const int mine = gd_device_index();
    gd_out Pout = {};
    if (P0) Pout = *P0;
    fw_call x = {};
    x.W = &W;
    x.D = &Dout;
    x.P = P0 ? &Pout : NULL;
    x.pcls = pcls;
    fw_begin(x, dv, nd, idx);
    /* W (a host matrix: resident data stays on one device): each device
     * uploads its slab's rows (all of W where P is asked), beside the
     * others */
    gd_status s = gd_run_parts(nd, idx, fw_upload_part, &x, &x.parts);
    if (!s && gd_class_is_int(W.cls)) s = fw_class(x);
    if (!s) s = fw_prepare(x, cycle_vertex);
    /* D's host result made, and its pages touched while the rounds run
     * (with P it waits: a cycle of weight 0 runs the call again
     * elsewhere) */
    if (!s && !P0) {
        x.at = -1;
        s = dv[0].r.host_results(Dout, NULL, pcls);
    }
    if (!s) s = x.cls == GD_SINGLE ? fw_all_rounds<float>(x) : fw_all_rounds<double>(x);
    if (!s) s = fw_negative(x, cycle_vertex);
    /* P without a cycle of weight 0: from the slabs' tags and all
     * of D on the first device (fw_chain), as one device's run finds it,
     * bit for bit. With one (P may go round it), nothing is kept: the
     * call runs again on one device, with the edge counts (*redo). */
    if (!s && P0) s = fw_zero_cycle(x, redo);
    if (!s && P0 && !*redo) s = fw_chain(x);
    /* the host results, then each device's rows of P and D into them, the
     * devices beside one another */
    char what[96];
    if (!s && !*redo) {
        x.at = -1;
        if (P0) {
            gd_describe(what, sizeof what, "P", x.n, x.n, pcls);
            s = gd_out_buffer(&Pout, (size_t)(x.n * x.n) * gd_class_bytes(pcls), what);
        }
        gd_describe(what, sizeof what, "D", x.n, x.n, W.cls);
        if (!s) s = gd_out_buffer(&Dout, (size_t)(x.n * x.n) * gd_class_bytes(W.cls), what);
        dv[0].r.settle();
        if (!s) s = gd_run_parts(nd, idx, fw_results_part, &x, &x.parts);
    }
    dv[0].r.settle();
    return fw_end(x, s, mine, t);
}

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

extern "C" int gd_apsp_variants(const gd_variant_info **list)
{
    *list = VARIANTS;
    return NVARIANTS;
}

extern "C" gd_status gd_apsp(const char *name, const gd_matrix *W, gd_out D, const gd_out *P,
                             gd_class pcls, int64_t *cycle_vertex, gd_timing *t)
{
    gd_entry entry(t);
    const double t0 = gd_now_ms();
    *cycle_vertex = 0;
    if (D.device) *D.device = NULL;
    if (P && P->device) *P->device = NULL;
    if (W->rows != W->cols)
        return gd_fail(GD_ERR_SIZE, "W must be square (the weights of a graph), not %lldx%lld",
                       (long long)W->rows, (long long)W->cols);
    const int64_t n = W->rows;
    const size_t es = gd_class_bytes(W->cls);
    gd_status s;
    if ((s = gd_check_size("W", n, n, es))) return s;
    t->ops = (double)n * (double)n * (double)n;
    t->resident = W->where == GD_DEVICE ? 1u : 0u;
    /* a resident W on another device: copied to this thread's */
    gd_local here;
    gd_matrix Wh;
    if ((s = here.take(W, &Wh, "W"))) return s;
    W = &Wh;
    /* the integer classes: 'fw' in single or double where the weights
     * prove it exact (apsp_run::exact_class; int64 and uint64 never),
     * else the host in the class; 'auto' tries the GPU where it may */
    const bool ints = gd_class_is_int(W->cls), wide = ints && es > 4;
    const bool automatic = strcmp(name, "auto") == 0;
    int v = -1;
    if (automatic && wide) {
        v = 2;
    } else if (automatic) {
        bool gpu;
        if ((s = gd_auto_device(t, &gpu))) return s;
        v = gpu && (n >= AUTO_CPU_BELOW || W->where == GD_DEVICE || D.device) ? 0 : 2;
    } else {
        for (int i = 0; i < NVARIANTS; ++i)
            if (strcmp(VARIANTS[i].name, name) == 0) v = i;
        if (v < 0) return gd_fail(GD_ERR_VARIANT, "unknown variant '%s'", name);
        if (ints && v == 1)
            return gd_fail(GD_ERR_VARIANT, "variant 'squaring' computes single and double; the "
                           "integer classes run on 'fw' (the GPU) and 'cpu' ('auto' chooses)");
        if (wide && v == 0)
            return gd_fail(GD_ERR_VARIANT, "'fw' computes the integer classes in single or double "
                           "where the weights prove every sum exact: int64 and uint64 never");
    }
    /* D divides (rows of blocks), and in single and double P with it (the
     * slabs' tags, the chain on the first device); an integer class's P,
     * squaring and resident data on one device, the first of the
     * selection */
    const bool rows = v == 0 && (!P || !ints);
    gd_out po = {};
    if (P) po = *P;
    gd_op_call oc = {};
    oc.variant = VARIANTS[v].name;
    oc.gpu = v != 2;
    oc.empty = n == 0;
    oc.outs[0] = &D;
    oc.outs[1] = P ? &po : NULL;
    oc.names[0] = "D";
    oc.names[1] = "P";
    oc.resident = W->where == GD_DEVICE || D.device || (P && P->device);
    oc.split_min = SPLIT_MIN;
    oc.units = rows ? (n + FB - 1) / FB : 1;
    auto cpu = [&] {
        return ints ? run_cpu_int(*W, D, P, pcls, cycle_vertex, t)
                    : run_cpu(*W, D, P, pcls, cycle_vertex, t);
    };
    s = gd_run_op(
        oc, t, cpu, [&] { return run_gpu(v == 0, *W, D, P, pcls, cycle_vertex, t); },
        [&](int nd, const int *idx) {
            bool redo = false;
            if (rows && nd > 1) {
                const gd_status sr = fw_devices(*W, D, P, pcls, cycle_vertex, nd, idx, t, &redo);
                if (!redo) return sr; /* done: D (and P) by rows of blocks */
            }
            /* on one device of the selection; or (redo) a cycle of weight
             * 0 found across devices: P with the edge counts, on the first
             * device alone */
            apsp_one x = {v == 0, W, D, P, pcls, cycle_vertex};
            return gd_run_parts(1, idx, apsp_part, &x, t);
        });
    /* an integer graph the GPU cannot compute exactly: the host's */
    if (s == GD_ERR_VARIANT && ints && automatic && v != 2) {
        const gd_timing kept = *t;
        gd_timing_reset(t);
        t->ops = kept.ops;
        t->resident = kept.resident;
        s = run_cpu_int(*W, D, P, pcls, cycle_vertex, t);
    }
    t->total_ms = gd_now_ms() - t0;
    return s;
}

/* ops/apsp/trees.cuh - P's rows as shortest-path trees whose routes sum to D: tree_check and tree_repair.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
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

// Row i0 + r of P (rows of ld ld), one block a row: whether following P
// from every j with P(i,j) != 0 reaches i and, with SUMS, each route's
// strays and |w| summed on the way. Pointer jumping on the row in two
// buffers (shared memory, or the block's tree_check_work of scratch): each
// round reads one and writes the other, anc'(j) = anc(anc(j)) and, with
// SUMS, E'(j) = E(j) + E(anc(j)) (A likewise), until nothing changes or a
// chain of n would have reached its end, the reachable bit (31) kept. No
// thread reads what another writes in the same round (compute-sanitizer's
// racecheck finds no hazard). A row that fails goes into bad[1 + ...],
// bad[0] counting. D's rows as P's, Wt[j + ldt q] = W(q,j) with Inf on the
// diagonal (last_edges). The sums are in double in any order: the host's
// walk may differ from them in the last bit of a sum (a row at its bound
// to that bit).
//
// Without SUMS (8 bytes a vertex where the sums take 40) each step q -> j
// is tested alone: a route whose every step strays by at most c eps
// (|D(i,j)| + n |W(q,j)|), c = 2 / (1 + 2 n eps), is within its bound.
// (Its strays' absolute sum T: each |D(i,j_k)| on the route is at most
// A + T, A its |w| summed, and the route has fewer than n steps, so T <= c
// n eps (2 A + T), T <= 2 c n eps A / (1 - c n eps) = 4 n eps A.) A
// step's own rounding is eps / 2 |D(i,j)|: nearly every row passes, and
// the rows with a step that does not go into maybe[1 + ...] (maybe[0]
// counting) for the check with SUMS, which takes its rows from that
// list.
__host__ __device__ inline size_t tree_check_work(int64_t n, bool sums)
{
    return (size_t)n * ((sums ? 4 * sizeof(double) : 0) + 2 * sizeof(int));
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
template <class T, bool SUMS>
__global__ void tree_check(const int *__restrict__ P, const T *__restrict__ D, int64_t ld,
                           const T *__restrict__ Wt, int64_t ldt, int n, int64_t i0, int64_t rows,
                           const int *__restrict__ list, char *scratch, int *bad, int *maybe)
{
    extern __shared__ double shd[];
    double *const buf = scratch ? (double *)(scratch + tree_check_work(n, SUMS) * blockIdx.x) : shd;
    const int R = 0x80000000, V = 0x7fffffff;
    const double eps = class_eps<T>(), c = 2.0 * eps / (1.0 + 2.0 * (double)n * eps);
    if (list) rows = list[0];
    for (int64_t b = blockIdx.x; b < rows; b += gridDim.x) {
        const int64_t r = list ? list[1 + b] : b;
        const int i = (int)(i0 + r);
        double *E = buf, *E2 = buf + n, *A = buf + 2 * n, *A2 = buf + 3 * n;
        int *anc = (int *)(SUMS ? buf + 4 * n : buf), *nxt = anc + n;
        int far = 0;
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            const int p = P[r + ld * j];
            if (j == i || p <= 0 || p > n) {
                anc[j] = j;
                if (SUMS) E[j] = A[j] = 0;
            } else {
                const T w = Wt[j + ldt * (p - 1)], dj = D[r + ld * j];
                const double e = stray<T>(D[r + ld * (p - 1)], w, dj), a = fabs((double)w);
                anc[j] = (p - 1) | R;
                if (SUMS) {
                    E[j] = e;
                    A[j] = a;
                } else {
                    far |= !(fabs(e) <= c * (fabs((double)dj) + (double)n * a));
                }
            }
        }
        if (!SUMS) far = __syncthreads_or(far);
        __syncthreads();
        // a chain that reaches its end does so within ceil(log2 n) + 1
        // rounds; a circle's pointers go round for ever
        for (int round = 0; ((int64_t)1 << round) <= 2 * (int64_t)n && round < 40; ++round) {
            int moved = 0;
            for (int j = threadIdx.x; j < n; j += blockDim.x) {
                const int a = anc[j], b = anc[a & V] & V;
                nxt[j] = b | (a & R);
                if (SUMS) {
                    E2[j] = E[j] + E[a & V];
                    A2[j] = A[j] + A[a & V];
                }
                moved |= b != (a & V);
            }
            int *t = anc;
            anc = nxt;
            nxt = t;
            if (SUMS) {
                double *u = E;
                E = E2;
                E2 = u;
                u = A;
                A = A2;
                A2 = u;
            }
            if (!__syncthreads_or(moved)) break;
        }
        int wrong = 0;
        for (int j = threadIdx.x; j < n; j += blockDim.x) {
            const int a = anc[j];
            wrong |= (a & R) && ((a & V) != i || (SUMS && !gd_route_within(E[j], A[j], n, eps)));
        }
        if (__syncthreads_or(wrong)) {
            if (threadIdx.x == 0) bad[1 + atomicAdd(bad, 1)] = (int)r;
        } else if (!SUMS && far && threadIdx.x == 0) {
            maybe[1 + atomicAdd(maybe, 1)] = (int)r;
        }
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


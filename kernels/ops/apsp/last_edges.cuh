/* ops/apsp/last_edges.cuh - P from the final lengths: W transposed for the product, and the witness epilogues that keep the first q of min_q D(i,q) + W(q,j).
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
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


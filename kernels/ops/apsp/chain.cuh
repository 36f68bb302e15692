/* ops/apsp/chain.cuh - P from the rounds' tags: chain_search and chain_jump.
 * Part of apsp.cu, which includes it inside its anonymous namespace, in
 * its place among the others (each part uses the ones before it). */
// P from the rounds' tags (apsp_run::chain_pass). Where the length of
// i -> j last fell in round r (P(i,j) = ~r), it fell to D(i,k) + D(k,j)
// for a k of round r, and the final lengths still say so: D(i,k) and
// D(k,j) can only have fallen since, and none of their sums is below a
// length (D(i,j) fell no more). chain_search makes P(i,j) = ~k for the
// first such k (k != i, j: not the path itself), reading row i of D from
// its transpose Dt and column j of D, 16 k at a time; where rounding
// leaves no such k it sets flags[0] (the caller then takes the last
// edges). P(i,j) >= 0 (a length that never fell: the edge's, i + 1, or
// none, 0) stays. Threads along i, each block a warp's rows and rows of j.
// Rows [i0, i0 + rows) alone, P holding just them (row i at i - i0, ld
// ldp): a rank's rows across ranks (all rows: i0 = 0, rows = n, ldp = ld).
template <class T>
__global__ void chain_search(const T *__restrict__ D, const T *__restrict__ Dt,
                             int *__restrict__ P, int64_t ld, int n, int *flags, int64_t i0,
                             int64_t rows, int64_t ldp)
{
    typedef typename gd_tile::vec16<T>::type V;
    enum { W = gd_tile::vec16<T>::N };
    const int64_t i = i0 + blockIdx.x * 32ll + threadIdx.x;
    bool bad = false;
    if (i < i0 + rows)
        for (int64_t j = blockIdx.y * (int64_t)blockDim.y + threadIdx.y; j < n;
             j += (int64_t)gridDim.y * blockDim.y) {
            const int64_t e = i + ld * j;
            int *const pe = P + (i - i0) + ldp * j;
            const int tag = *pe;
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
            *pe = found >= 0 ? ~found : 0;
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


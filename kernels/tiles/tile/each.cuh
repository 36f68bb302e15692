/* tiles/tile/each.cuh - 3. the big tile with an epilogue per element: the witness forms' kernel and launcher, their epilogues, the k-major copies, Floyd-Warshall's relaxation.
 * Part of tile.cuh, which includes it inside namespace gd_tile, in order. */
/* 3. The big tile with an epilogue per element: the witness forms
 * (minplus_first...) and results that are read before they are written
 * (C = min(C, A (x) B): shortest paths). Block (x, jt + y) computes the
 * tile at (x, jt + y) of Ap (lda) and Bt (ldb) over k < kp, then hands
 * each of the thread's 64 outputs: out.witness<K>(i, j, value, group, Ap,
 * lda, Bt, ldb) for a witness Op (the first k attaining the minimum is in
 * that group of K: first_k finds it, where out needs it), else out(i, j,
 * value, Ap, lda, Bt, ldb, kp); or, where Out::TILE, the thread's
 * outputs at once: out.tile<K, TX, TY>(i0, j0, tx, ty, acc, wit, ...) (K =
 * 0 without a witness), so that the policy can order its reads. GATE as
 * for big_tile_kernel. */
// Where the witnesses live: in registers (an int[8][8] of the thread),
// or, where the registers do not hold them beside the 64 accumulators
// (double), in shared memory: output (r, c) of thread tid at
// [(8r + c) NT + tid], so a warp's accesses take 32 banks.
struct shared_wit_row {
    int *p;
    int nt;
    __device__ int &operator[](int c) const { return p[c * nt]; }
};
struct shared_wit {
    int *base;
    int nt;
    __device__ shared_wit_row operator[](int r) const { return {base + r * 8 * nt, nt}; }
};

/* Tiles a launch_each leaves out: the band of rows [i0, i0 + ni) and the
 * band of columns [j0, j0 + nj) of the product (multiples of the tile's
 * sides; ni = 0 or nj = 0: no band). Floyd-Warshall's lookahead relaxes
 * the next round's panels first and everything else after them. */
struct hole {
    int64_t i0, ni, j0, nj;
};

template <class Op, class T, int BK, class L, class Out, int GATE, bool SHARED_WIT>
__global__ void __launch_bounds__(L::TX * L::TY, L::MINB)
each_tile_kernel(const T *__restrict__ Ap, int64_t lda, const T *__restrict__ Bt, int64_t ldb,
                 int64_t kp, int64_t jt, Out out, hole h, const int *__restrict__ gate)
{
    if (GATE >= 0 && *gate != GATE) return;
    enum { NT = L::TX * L::TY };
    int64_t i0 = blockIdx.x * (int64_t)(8 * L::TX), j0 = (jt + blockIdx.y) * (8 * L::TY);
    if (i0 >= h.i0) i0 += h.ni;
    if (j0 >= h.j0) j0 += h.nj;
    const int tid = threadIdx.x, tx = tid % L::TX, ty = tid / L::TX;
    T acc[8][8];
    int wreg[Op::WITNESS && !SHARED_WIT ? 8 : 1][8];
    __shared__ int wsh[Op::WITNESS && SHARED_WIT ? 64 * NT : 1];
    typedef typename std::conditional<SHARED_WIT, shared_wit, int (*)[8]>::type Wit;
    Wit wit;
    if constexpr (SHARED_WIT)
        wit = shared_wit{wsh + tid, NT};
    else
        wit = wreg;
    accumulate_big<Op, T, BK, L::TX, L::TY, L::ASYNC, false, Wit>(Ap, lda, Bt, ldb, 0, kp, i0,
                                                                  j0, acc, wit);
    if constexpr (Out::TILE) {
        out.template tile<Op::WITNESS ? Op::K : 0, L::TX, L::TY>(i0, j0, tx, ty, acc, wit, Ap, lda,
                                                                 Bt, ldb, kp);
    } else {
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const int64_t j = j0 + big_offset<T, L::TY>(ty, c);
#pragma unroll
            for (int r = 0; r < 8; ++r) {
                const int64_t i = i0 + big_offset<T, L::TX>(tx, r);
                if constexpr (Op::WITNESS) {
                    out.template witness<Op::K>(i, j, acc[r][c], wit[r][c], Ap, lda, Bt, ldb);
                } else {
                    out(i, j, acc[r][c], Ap, lda, Bt, ldb, kp);
                }
            }
        }
    }
}

// Launches each_tile_kernel over the mp x np product (mp a multiple of
// 8TX, np of 8TY) but the hole h, on st, several launches where the tile
// columns pass the grid's y limit.
template <class Op, class T, int BK, class L, class Out, int GATE = -1, bool SHARED_WIT = false>
void launch_each(const T *Ap, int64_t lda, const T *Bt, int64_t ldb, int64_t mp, int64_t np,
                 int64_t kp, const Out &out, cudaStream_t st, const int *gate = nullptr,
                 hole h = hole{0, 0, 0, 0})
{
    const int64_t tiles_i = (mp - h.ni) / (8 * L::TX), tiles_j = (np - h.nj) / (8 * L::TY);
    if (tiles_i <= 0) return;
    for (int64_t jt = 0; jt < tiles_j; jt += 65535) {
        const int64_t ny = tiles_j - jt < 65535 ? tiles_j - jt : 65535;
        dim3 grid((unsigned)tiles_i, (unsigned)ny);
        each_tile_kernel<Op, T, BK, L, Out, GATE, SHARED_WIT>
            <<<grid, L::TX * L::TY, 0, st>>>(Ap, lda, Bt, ldb, kp, jt, out, h, gate);
    }
}

// The epilogues. store_first: the minimum into C and its k + 1 into K
// (both ldc), as Octave's [R, K] = min (...) gives them.
template <class T> struct store_first {
    enum { TILE = 0 };
    T *C;
    int *K;
    int64_t ldc;
    template <int G>
    __device__ void witness(int64_t i, int64_t j, T v, int w, const T *__restrict__ Ap,
                            int64_t lda, const T *__restrict__ Bt, int64_t ldb) const
    {
        const int64_t k = first_k<G>(Ap, lda, Bt, ldb, i, j, v, w, &v);
        C[i + ldc * j] = v;
        K[i + ldc * j] = (int)(k + 1);
    }
};

/* The operands k-major: At[k + kp i] = Ap[i + lda k] for i < rows, k < kp
 * (a 32 x 32 square through shared memory a block of 32 x 8 threads), so
 * that a witness's group of sums is K contiguous elements of each (four
 * 16-byte loads a side for 16 k-steps, where the padded layouts take one
 * load a k-step). GATE >= 0: only where *gate == GATE, as the kernel that
 * reads them. */
template <int GATE>
__global__ void kmajor(const float *__restrict__ Ap, int64_t lda, int64_t rows, int64_t kp,
                       float *__restrict__ At, const int *__restrict__ gate)
{
    if (GATE >= 0 && *gate != GATE) return;
    __shared__ float sq[32][33];
    const int64_t k0 = blockIdx.x * 32ll, i0 = blockIdx.y * 32ll;
#pragma unroll
    for (int y = threadIdx.y; y < 32; y += 8) {
        const int64_t k = k0 + y, i = i0 + threadIdx.x;
        if (k < kp && i < rows) sq[y][threadIdx.x] = Ap[i + lda * k];
    }
    __syncthreads();
#pragma unroll
    for (int y = threadIdx.y; y < 32; y += 8) {
        const int64_t i = i0 + y, k = k0 + threadIdx.x;
        if (k < kp && i < rows) At[k + kp * i] = sq[threadIdx.x][y];
    }
}
template <int GATE = -1>
void launch_kmajor(const float *Ap, int64_t lda, int64_t rows, int64_t kp, float *At,
                   cudaStream_t st, const int *gate = nullptr)
{
    for (int64_t r = 0; r < rows; r += 65535 * 32ll) {
        const int64_t nr = rows - r < 65535 * 32ll ? rows - r : 65535 * 32ll;
        const dim3 grid((unsigned)((kp + 31) / 32), (unsigned)((nr + 31) / 32)), block(32, 8);
        kmajor<GATE><<<grid, block, 0, st>>>(Ap + r, lda, nr, kp, At + kp * r, gate);
    }
}

/* The first k of group w (of G) where At(k, i) + Bk(k, j) equals the
 * minimum v, from k-major copies (At[k + lat i], Bk[k + lbk j]; lat, lbk
 * and kend multiples of 4): the group's sums (k < kend), last to first, so that the
 * first equal one is the one kept, every load independent of the others.
 * NaN (every term was): 0. v is the sum itself: no operand has its sign
 * bit set, so there is no zero's sign to take. */
template <int G>
__device__ __forceinline__ int64_t first_k_kmajor(const float *__restrict__ At, int64_t lat,
                                                  const float *__restrict__ Bk, int64_t lbk,
                                                  int64_t kend, int64_t i, int64_t j, float v,
                                                  int w)
{
    static_assert(G % 4 == 0, "16-byte loads");
    if (v != v) return 0;
    const int64_t k0 = (int64_t)w * G;
    const int n = (int)(kend - k0 < G ? kend - k0 : G);
    const float4 *a = reinterpret_cast<const float4 *>(At + lat * i + k0);
    const float4 *b = reinterpret_cast<const float4 *>(Bk + lbk * j + k0);
    int h = 0;
#pragma unroll
    for (int q = G / 4 - 1; q >= 0; --q) {
        if (4 * q < n) {
            const float4 x = __ldg(a + q), y = __ldg(b + q);
            h = x.w + y.w == v ? 4 * q + 3 : h;
            h = x.z + y.z == v ? 4 * q + 2 : h;
            h = x.y + y.y == v ? 4 * q + 1 : h;
            h = x.x + y.x == v ? 4 * q : h;
        }
    }
    return k0 + h;
}

// store_first from the k-major copies (minplus_first_stage's epilogue),
// the thread's outputs at once: every output's k first, with no store
// between the loads (a store may alias a later load, which would keep
// each output's loads behind the previous output's stores: 64 rounds of
// memory latency a thread), then C and K in 16-byte stores.
struct store_first_kmajor {
    enum { TILE = 1 };
    float *C;
    int *K;
    int64_t ldc;
    const float *At, *Bk; // k-major A and B (first_k_kmajor)
    int64_t lat, lbk, k;
    template <int G, int TX, int TY, class Wit>
    __device__ void tile(int64_t i0, int64_t j0, int tx, int ty, const float (&acc)[8][8], Wit wit,
                         const float *, int64_t, const float *, int64_t, int64_t) const
    {
        each_output<float, TX, TY>(i0, j0, tx, ty, [&](int r, int c, int64_t i, int64_t j) {
            wit[r][c] = (int)first_k_kmajor<G>(At, lat, Bk, lbk, k, i, j, acc[r][c], wit[r][c]) + 1;
        });
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const int64_t e = ldc * (j0 + big_offset<float, TY>(ty, c)) + i0 + 4 * tx;
#pragma unroll
            for (int g = 0; g < 2; ++g) {
                *reinterpret_cast<float4 *>(C + e + g * 4 * TX) =
                    make_float4(acc[4 * g][c], acc[4 * g + 1][c], acc[4 * g + 2][c], acc[4 * g + 3][c]);
                *reinterpret_cast<int4 *>(K + e + g * 4 * TX) =
                    make_int4(wit[4 * g][c], wit[4 * g + 1][c], wit[4 * g + 2][c], wit[4 * g + 3][c]);
            }
        }
    }
};

/* relax: D(i,j) = v where v < D(i,j) (a shorter path; NaN never is). With
 * predecessors (Pout set) and MODE RELAX_TILE: tag beside each length that
 * fell (Floyd-Warshall's rounds: the round, from which apsp.cu's chain
 * finds P after the last round). With MODE RELAX_HOPS, P and the edge
 * counts: H(i,j) = Hc(i, k) + Hk(k, j), k the one with the fewest edges
 * among those whose sum is v, P(i,j) = Pk(k, j), the predecessor of j on
 * the path through k, and a path of the same length with fewer edges
 * replaces the old one. Lengths first, then edge counts: following P then
 * always goes to a path of fewer edges or a shorter one, never round a
 * cycle of weight 0 (NOTES.md). The k is found by reading the product's
 * operands again where the length fell or tied. In place (Dout == Din,
 * Pout == Pin, Hout == Hin: only changes are written), or from Din, Pin,
 * Hin into Dout, Pout, Hout (every element written). *changed is set when
 * a length fell (NULL: not asked). P and H are int32 (P 1-based, 0 for
 * none) with D's leading dimension; Pk and Hk have ldpk, Hc ldhc. */
// relax's epilogues: the thread's outputs at once (lengths, and tags), or
// an output at a time with the edge counts
enum { RELAX_TILE = 0, RELAX_HOPS = 1 };
template <class T, int MODE = RELAX_TILE> struct relax {
    enum { TILE = MODE != RELAX_HOPS };
    const T *Din;
    T *Dout;
    int64_t ldd;
    const int *Pin;
    int *Pout;
    const int *Pk;
    int64_t ldpk;
    int *changed;
    const int *Hin;
    int *Hout;
    const int *Hk;
    const int *Hc;
    int64_t ldhc;
    int tag; // RELAX_TILE with Pout: written where a length falls

    // the same outputs, with another of the epilogues
    template <int M> __host__ __device__ relax<T, M> as() const
    {
        return relax<T, M>{Din, Dout, ldd, Pin, Pout, Pk, ldpk, changed, Hin, Hout, Hk, Hc, ldhc, tag};
    }

    /* The thread's piece: each column's old lengths in 16-byte loads,
     * the lengths that fell written at once (and the tag with each). */
    template <int G, int TX, int TY, class Wit>
    __device__ void tile(int64_t i0, int64_t j0, int tx, int ty, const T (&acc)[8][8], Wit,
                         const T *__restrict__, int64_t, const T *__restrict__, int64_t,
                         int64_t) const
    {
        static_assert(G == 0, "relax takes the lengths' kernels");
        typedef typename vec16<T>::type V;
        enum { W = vec16<T>::N };
        bool fell = false;
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const int64_t j = j0 + big_offset<T, TY>(ty, c);
            T old[8];
            asm volatile("" ::: "memory"); // a column's loads no earlier (registers)
#pragma unroll
            for (int g = 0; g < 8 / W; ++g)
                unpack(old + g * W, *reinterpret_cast<const V *>(
                                        &Din[i0 + big_offset<T, TX>(tx, g * W) + ldd * j]));
#pragma unroll
            for (int r = 0; r < 8; ++r) {
                const int64_t e = i0 + big_offset<T, TX>(tx, r) + ldd * j;
                const T v = acc[r][c];
                if (v < old[r]) {
                    fell = true;
                    Dout[e] = v;
                    if (Pout) Pout[e] = tag;
                } else if (Dout != Din) {
                    Dout[e] = old[r];
                    if (Pout) Pout[e] = Pin[e];
                }
            }
        }
        if (fell && changed) *changed = 1;
    }

    // HOPS, an output at a time: the k with the fewest edges among those
    // that give v (every k read again where the length fell or tied)
    __device__ void operator()(int64_t i, int64_t j, T v, const T *__restrict__ Ap, int64_t lda,
                               const T *__restrict__ Bt, int64_t ldb, int64_t kp) const
    {
        const int64_t e = i + ldd * j;
        const T old = Din[e];
        if (v < old || (v == old && v < (T)INFINITY)) {
            int best = 0x7fffffff;
            int64_t kb = 0;
            for (int64_t k = 0; k < kp; ++k)
                if (Ap[i + lda * k] + Bt[j + ldb * k] == v) {
                    const int h = Hc[i + ldhc * k] + Hk[k + ldpk * j];
                    if (h < best) {
                        best = h;
                        kb = k;
                    }
                }
            if (v < old || best < Hin[e]) {
                Dout[e] = v;
                Pout[e] = Pk[kb + ldpk * j];
                Hout[e] = best;
                if (changed && v < old) *changed = 1;
                return;
            }
        }
        if (Dout != Din) {
            Dout[e] = old;
            Pout[e] = Pin[e];
            Hout[e] = Hin[e];
        }
    }
};


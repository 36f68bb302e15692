/* tiles/tile/small.cuh - 1. the small tile (64 x 64, min-plus v3 and v4): a stage's operands, the stage, the padded stores.
 * Part of tile.cuh, which includes it inside namespace gd_tile, in order. */
// The thread's operands of H k-steps from kk of a stage in shared memory
// (the layout stage() below describes): a[h][r] row r's, b[h][c] column c's.
template <int H, int LX, int LY, class T, int BK, int NA, int NB>
__device__ __forceinline__ void load_steps(const T (&As)[BK][NA], const T (&Bs)[BK][NB], int kk,
                                           int tx, int ty, T (&a)[H][8], T (&b)[H][8])
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N };
#pragma unroll
    for (int h = 0; h < H; ++h)
#pragma unroll
        for (int g = 0; g < 8 / W; ++g) {
            unpack(a[h] + g * W, *reinterpret_cast<const V *>(&As[kk + h][g * LX * W + W * tx]));
            unpack(b[h] + g * W, *reinterpret_cast<const V *>(&Bs[kk + h][g * LY * W + W * ty]));
        }
}

// One stage of minplus_first_stage: the stage's minima, then folded into
// acc (w: the stage g where they fell).
template <class Op, class T, int NK, int LX, int LY, int BK, int NA, int NB, class Wit>
__device__ __forceinline__ void stage_fold(const T (&As)[BK][NA], const T (&Bs)[BK][NB], int tx,
                                           int ty, T (&acc)[8][8], Wit wit, int g)
{
    static_assert(NK % 2 == 0, "pairs of k-steps");
    int m[8][8];
#pragma unroll
    for (int kk = 0; kk < NK; kk += 2) {
        T a[2][8], b[2][8];
        load_steps<2, LX, LY>(As, Bs, kk, tx, ty, a, b);
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int c = 0; c < 8; ++c)
                Op::pair(m[r][c], kk == 0, a[0][r], b[0][c], a[1][r], b[1][c]);
    }
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) Op::fold(acc[r][c], wit[r][c], g, m[r][c]);
}

// The first k of group w (of K) where A(i,k) + B(k,j) equals the minimum v
// (0 when v is NaN: every term was); *val receives that sum, which is the
// minimum with the sign of zero Octave's min gives (the first attaining
// term). Reads the operands in their padded layouts.
template <int K, class T>
__device__ __forceinline__ int64_t first_k(const T *__restrict__ Ap, int64_t lda,
                                           const T *__restrict__ Bt, int64_t ldb, int64_t i,
                                           int64_t j, T v, int w, T *val)
{
    *val = v;
    if (v != v) return 0;
    const int64_t k0 = (int64_t)w * K;
#pragma unroll
    for (int h = 0; h < K; ++h) {
        const T s = Ap[i + lda * (k0 + h)] + Bt[j + ldb * (k0 + h)];
        if (s == v) {
            *val = s;
            return k0 + h;
        }
    }
    return k0;
}

// The first NK k-steps of a stage held in shared memory, As and Bs
// ([k-step][row or column of the tile]), on thread (tx, ty) of an LX x LY
// layout: its rows are g*LX*W + W*tx + w (g < 8/W, w < W), its columns
// g*LY*W + W*ty + w, each W of them one 16-byte shared load.
// With a witness Op, wit holds each output's group (g0: the group of the
// stage's first k-step).
template <class Op, class T, int NK, int LX, int LY, int BK, int NA, int NB,
          class Wit = int (*)[8]>
__device__ __forceinline__ void stage(const T (&As)[BK][NA], const T (&Bs)[BK][NB], int tx, int ty,
                                      T (&acc)[8][8], Wit wit = nullptr, int g0 = 0)
{
    enum { K = Op::K };
    static_assert(NK % K == 0, "whole steps of the operation");
#pragma unroll
    for (int kk = 0; kk < NK; kk += K) {
        T a[K][8], b[K][8];
        load_steps<K, LX, LY>(As, Bs, kk, tx, ty, a, b);
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int c = 0; c < 8; ++c) {
                if constexpr (Op::WITNESS)
                    Op::stepw(acc[r][c], wit[r][c], g0 + kk / K, a, b, r, c);
                else if constexpr (K == 1)
                    Op::step(acc[r][c], a[0][r], b[0][c]);
                else
                    Op::step2(acc[r][c], a[0][r], b[0][c], a[1][r], b[1][c]);
            }
    }
}

// v = the 64x64 tile (ic, jc) of Op over k < kp. Called by all 64
// threads of the block (it synchronises).
template <class Op, class T>
__device__ __forceinline__ void accumulate(const T *__restrict__ Ap, int64_t lda,
                                           const T *__restrict__ Bt, int64_t ldb,
                                           int64_t kp, int64_t ic, int64_t jc, T (&v)[8][8])
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N, NV = TILE / W };
    __shared__ __align__(16) T xx[KS][TILE];
    __shared__ __align__(16) T yy[KS][TILE];
    const int ia = threadIdx.x, ja = threadIdx.y, tid = ja * 8 + ia;
#pragma unroll
    for (int ib = 0; ib < 8; ++ib)
#pragma unroll
        for (int jb = 0; jb < 8; ++jb) v[ib][jb] = Op::template init<T>();
    for (int64_t ks = 0; ks < kp; ks += KS) {
#pragma unroll
        for (int r = 0; r < KS * NV / 64; ++r) {
            const int e = tid + 64 * r, f = e / NV, q = e % NV;
            *reinterpret_cast<V *>(&xx[f][q * W]) =
                *reinterpret_cast<const V *>(&Ap[lda * (ks + f) + ic * TILE + q * W]);
            *reinterpret_cast<V *>(&yy[f][q * W]) =
                *reinterpret_cast<const V *>(&Bt[ldb * (ks + f) + jc * TILE + q * W]);
        }
        __syncthreads();
        stage<Op, T, KS, 8, 8>(xx, yy, ia, ja, v);
        __syncthreads();
    }
}

// Stores v into the padded column-major C (ldc a multiple of 64) with
// 16-byte stores, applying fn to each value.
template <class T, class Fn>
__device__ __forceinline__ void store_padded(T *__restrict__ C, int64_t ldc, int64_t ic,
                                             int64_t jc, const T (&v)[8][8], Fn fn)
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N };
    const int ia = threadIdx.x, ja = threadIdx.y;
#pragma unroll
    for (int jb = 0; jb < 8; ++jb) {
        const int64_t j = jc * TILE + offset<T>(ja, jb);
#pragma unroll
        for (int g = 0; g < 8 / W; ++g) {
            T col[W];
#pragma unroll
            for (int w = 0; w < W; ++w) col[w] = fn(v[g * W + w][jb]);
            *reinterpret_cast<V *>(&C[ldc * j + ic * TILE + g * 8 * W + ia * W]) = pack(col);
        }
    }
}


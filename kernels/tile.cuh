/* tile.cuh - the register tiles the product kernels share.
 *
 * 1. The 64x64 tile that min-plus v4 and the tuned pdist kernels share: a block of 8x8 threads accumulates a 64x64 tile of
 * C(i,j) = reduce_k op(A(i,k), B(k,j)) from two k-major operands (A(:,k)
 * and B(k,:) contiguous: Ap[i + lda*k], Bt[j + ldb*k]), 4 k-steps at a
 * time through shared memory, 8x8 outputs per thread in registers.
 *
 * With W = 16/sizeof(T) elements a vector, thread ia owns the rows
 * 64ic + g*8W + ia*W + w (g < 8/W, w < W): W consecutive rows, so one
 * 16-byte shared load brings W of its operands and the caller can store W
 * outputs of a column at once. Columns likewise with ja. Staging a k-step
 * takes 64/W vector loads: for float, 64 threads move all 4 k-steps of
 * both operands with one load each. Operands must be padded to whole
 * tiles (rows to 64, k to 4) with a value the operation ignores. */
#ifndef GD_TILE_CUH
#define GD_TILE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace gd_tile {

enum { TILE = 64, KS = 4 };

// A 16-byte vector of T: the widest load one thread can issue.
template <class T> struct vec16;
template <> struct vec16<float> { typedef float4 type; enum { N = 4 }; };
template <> struct vec16<double> { typedef double2 type; enum { N = 2 }; };

__device__ __forceinline__ void unpack(float *d, float4 v) { d[0] = v.x; d[1] = v.y; d[2] = v.z; d[3] = v.w; }
__device__ __forceinline__ void unpack(double *d, double2 v) { d[0] = v.x; d[1] = v.y; }
__device__ __forceinline__ float4 pack(const float *s) { return make_float4(s[0], s[1], s[2], s[3]); }
__device__ __forceinline__ double2 pack(const double *s) { return make_double2(s[0], s[1]); }

// Offset within the tile of register row (or column) b of thread a.
template <class T> __device__ __forceinline__ int offset(int a, int b)
{
    enum { W = vec16<T>::N };
    return (b / W) * 8 * W + a * W + b % W;
}

// The value a result is stored as, when nothing is applied to it.
struct identity {
    template <class T> __device__ T operator()(T x) const { return x; }
};

// The semirings. init: the accumulator's start; step: one k-step.
struct muladd {
    template <class T> __device__ static T init() { return (T)0; }
    __device__ static void step(float &acc, float a, float b) { acc = fmaf(a, b, acc); }
    __device__ static void step(double &acc, double a, double b) { acc = fma(a, b, acc); }
};
struct minplus {
    template <class T> __device__ static T init() { return (T)NAN; }
    __device__ static void step(float &acc, float a, float b) { acc = fminf(acc, a + b); }
    __device__ static void step(double &acc, double a, double b) { acc = fmin(acc, a + b); }
};
struct sqdist {
    template <class T> __device__ static T init() { return (T)0; }
    template <class T> __device__ static void step(T &acc, T a, T b)
    {
        const T d = a - b;
        acc += d * d;
    }
};

// The first NK k-steps of a stage held in shared memory, As and Bs
// ([k-step][row or column of the tile]), on thread (tx, ty) of an LX x LY
// layout: its rows are g*LX*W + W*tx + w (g < 8/W, w < W), its columns
// g*LY*W + W*ty + w, each W of them one 16-byte shared load.
template <class Op, class T, int NK, int LX, int LY, int BK, int NA, int NB>
__device__ __forceinline__ void stage(const T (&As)[BK][NA], const T (&Bs)[BK][NB], int tx, int ty,
                                      T (&acc)[8][8])
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N };
#pragma unroll
    for (int kk = 0; kk < NK; ++kk) {
        T a[8], b[8];
#pragma unroll
        for (int g = 0; g < 8 / W; ++g) {
            unpack(a + g * W, *reinterpret_cast<const V *>(&As[kk][g * LX * W + W * tx]));
            unpack(b + g * W, *reinterpret_cast<const V *>(&Bs[kk][g * LY * W + W * ty]));
        }
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int c = 0; c < 8; ++c) Op::step(acc[r][c], a[r], b[c]);
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


/* 2. The 128x128 block tile (sgemm 'tuned', min-plus 'v5'): 256 threads,
 * each an 8x8 register tile; BK k-steps of both operands per shared-memory
 * stage, two stages, the next stage's operands loaded into registers while
 * the current one is computed, so one barrier per BK k-steps suffices.
 *
 * Thread (tx, ty) = (tid % 16, tid / 16) owns the rows i0 + g*16W + W*tx + w
 * (g < 8/W, w < W) and the columns j0 + g*16W + W*ty + w: every shared
 * read is one 16-byte vector, and a warp's 16 distinct A vectors are 256
 * contiguous bytes. A stage is BK rows of 128 contiguous elements of each
 * operand (Ap[i + lda*k], Bt[j + ldb*k]): 128/W vectors a row, LOADS
 * vectors per thread. The k range [k0, k1) must be whole stages or, with
 * HALF, whole stages and a last one of BK/2 k-steps. */
enum { BIG = 128 };

template <class T> __device__ __forceinline__ int big_offset(int a, int b)
{
    enum { W = vec16<T>::N };
    return (b / W) * 16 * W + a * W + b % W;
}

template <class Op, class T, int BK, bool HALF = false>
__device__ __forceinline__ void accumulate_big(const T *__restrict__ Ap, int64_t lda,
                                               const T *__restrict__ Bt, int64_t ldb,
                                               int64_t k0, int64_t k1, int64_t i0, int64_t j0,
                                               T (&acc)[8][8])
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N, ROW = BIG / W, LOADS = BK * ROW / 256, LROWS = 256 / ROW };
    static_assert(LOADS >= 1 && BK * ROW % 256 == 0, "a stage is whole loads");
    __shared__ __align__(16) T As[2][BK][BIG];
    __shared__ __align__(16) T Bs[2][BK][BIG];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    // HALF: the last stage may hold BK/2 k-steps ((k1 - k0) % BK == BK/2);
    // rows past k1 are neither loaded nor used.
    const bool half = HALF && (k1 - k0) % BK != 0;
    const int full = (int)((k1 - k0) / BK), stages = full + (half ? 1 : 0);
    // the thread's load l may run when its stage is whole or its row (the
    // k-step tid / ROW + l * LROWS of the stage) is in the first half
#define GD_LOAD_OK(last, l) (!HALF || !((last) && half) || tid / ROW + (l) * LROWS < BK / 2)
    // element e = tid + 256*l of a stage is k-step e / ROW, vector e % ROW:
    // its shared offset is e*W in either buffer. The global pointers
    // advance by BK rows a stage (no 64-bit index arithmetic in the loop).
    const T *ga = Ap + lda * (k0 + tid / ROW) + i0 + W * (tid % ROW);
    const T *gb = Bt + ldb * (k0 + tid / ROW) + j0 + W * (tid % ROW);
    const size_t rowA = (size_t)lda * (256 / ROW), rowB = (size_t)ldb * (256 / ROW);
    const size_t stepA = (size_t)lda * BK, stepB = (size_t)ldb * BK;
#pragma unroll
    for (int r = 0; r < 8; ++r)
#pragma unroll
        for (int c = 0; c < 8; ++c) acc[r][c] = Op::template init<T>();
    V pa[LOADS], pb[LOADS];
#pragma unroll
    for (int l = 0; l < LOADS; ++l)
        if (GD_LOAD_OK(stages == 1, l)) {
            pa[l] = __ldg(reinterpret_cast<const V *>(ga + rowA * l));
            pb[l] = __ldg(reinterpret_cast<const V *>(gb + rowB * l));
        }
#pragma unroll
    for (int l = 0; l < LOADS; ++l)
        if (GD_LOAD_OK(stages == 1, l)) {
            reinterpret_cast<V *>(&As[0][0][0])[tid + 256 * l] = pa[l];
            reinterpret_cast<V *>(&Bs[0][0][0])[tid + 256 * l] = pb[l];
        }
    __syncthreads();
    for (int t = 0; t < full; ++t) {
        const int cur = t & 1;
        if (t + 1 < stages) {
            ga += stepA;
            gb += stepB;
#pragma unroll
            for (int l = 0; l < LOADS; ++l)
                if (GD_LOAD_OK(t + 2 == stages, l)) {
                    pa[l] = __ldg(reinterpret_cast<const V *>(ga + rowA * l));
                    pb[l] = __ldg(reinterpret_cast<const V *>(gb + rowB * l));
                }
        }
        stage<Op, T, BK, 16, 16>(As[cur], Bs[cur], tx, ty, acc);
        if (t + 1 < stages) {
#pragma unroll
            for (int l = 0; l < LOADS; ++l)
                if (GD_LOAD_OK(t + 2 == stages, l)) {
                    reinterpret_cast<V *>(&As[cur ^ 1][0][0])[tid + 256 * l] = pa[l];
                    reinterpret_cast<V *>(&Bs[cur ^ 1][0][0])[tid + 256 * l] = pb[l];
                }
        }
        __syncthreads();
    }
    if (HALF && half) stage<Op, T, BK / 2, 16, 16>(As[full & 1], Bs[full & 1], tx, ty, acc);
#undef GD_LOAD_OK
}

// Stores fn(acc), the thread's part of the tile at (i0, j0), into the
// padded column-major C (ldc a multiple of 128) with 16-byte stores.
template <class T, class Fn>
__device__ __forceinline__ void store_big(T *__restrict__ C, int64_t ldc, int64_t i0, int64_t j0,
                                          const T (&acc)[8][8], Fn fn)
{
    typedef typename vec16<T>::type V;
    enum { W = vec16<T>::N };
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        T *col = C + (size_t)ldc * (size_t)(j0 + big_offset<T>(ty, c)) + i0;
#pragma unroll
        for (int g = 0; g < 8 / W; ++g) {
            T v[W];
#pragma unroll
            for (int w = 0; w < W; ++w) v[w] = fn(acc[g * W + w][c]);
            *reinterpret_cast<V *>(&col[g * 16 * W + W * tx]) = pack(v);
        }
    }
}

/* The whole product kernel on the big tile: block (x, y, z) computes the
 * tiles (x, y + gridDim.y*q) over the k range z*kchunk ... into
 * C + z*split_stride (split-k: the partial sums of the z-th slice), each
 * value passed through Fn on its way out. */
template <class Op, class T, int BK, int MINB, class Fn = identity>
__global__ void __launch_bounds__(256, MINB)
big_tile_kernel(const T *__restrict__ Ap, const T *__restrict__ Bt, T *__restrict__ C,
                int64_t mp, int64_t np, int64_t kp, int64_t kchunk, int64_t split_stride)
{
    const int64_t i0 = blockIdx.x * (int64_t)BIG;
    const int64_t k0 = blockIdx.z * kchunk, k1 = k0 + kchunk < kp ? k0 + kchunk : kp;
    T *Cz = C + (size_t)blockIdx.z * (size_t)split_stride;
    for (int64_t j0 = blockIdx.y * (int64_t)BIG; j0 < np; j0 += (int64_t)gridDim.y * BIG) {
        T acc[8][8];
        accumulate_big<Op, T, BK>(Ap, mp, Bt, np, k0, k1, i0, j0, acc);
        store_big(Cz, mp, i0, j0, acc, Fn());
    }
}

} // namespace gd_tile

#endif

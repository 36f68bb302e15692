/* tile.cuh - the 64x64 register tile that min-plus v4 and the tuned pdist
 * kernels share: a block of 8x8 threads accumulates a 64x64 tile of
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

// The semirings. init: the accumulator's start; step: one k-step.
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
#pragma unroll
        for (int f = 0; f < KS; ++f) {
            T x[8], y[8];
#pragma unroll
            for (int g = 0; g < 8 / W; ++g) {
                unpack(x + g * W, *reinterpret_cast<const V *>(&xx[f][g * 8 * W + ia * W]));
                unpack(y + g * W, *reinterpret_cast<const V *>(&yy[f][g * 8 * W + ja * W]));
            }
#pragma unroll
            for (int ib = 0; ib < 8; ++ib)
#pragma unroll
                for (int jb = 0; jb < 8; ++jb) Op::step(v[ib][jb], x[ib], y[jb]);
        }
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

} // namespace gd_tile

#endif

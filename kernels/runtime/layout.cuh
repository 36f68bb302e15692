/* layout.cuh - the kernels that move a matrix's elements into another
 * layout on the device: the padded transpose (the products' B.' and the
 * results' transposes) and the widening of an int32 index result. Included
 * by the files that launch them with their own types (product.cu) and by
 * layout.cu (the class-generic launchers of runtime.h). */
#ifndef GD_LAYOUT_CUH
#define GD_LAYOUT_CUH

#include "runtime/runtime.h"

// Bt[j + np*k] = B[k + ldb*j], pad outside: a transpose through a 32x32
// shared tile (one column of padding so the column reads hit 32 banks).
template <class T>
__global__ void prep_transpose(const T *__restrict__ B, int64_t ldb, T *__restrict__ Bt,
                               int64_t kdim, int64_t n, int64_t kp, int64_t np,
                               T pad)
{
    __shared__ T tile[32][33];
    int64_t k0 = (int64_t)blockIdx.x * 32;
    for (int64_t j0 = (int64_t)blockIdx.y * 32; j0 < np; j0 += (int64_t)gridDim.y * 32) {
        for (int r = threadIdx.y; r < 32; r += blockDim.y) {
            int64_t kk = k0 + threadIdx.x, j = j0 + r;
            tile[r][threadIdx.x] = (kk < kdim && j < n) ? B[kk + ldb * j] : pad;
        }
        __syncthreads();
        for (int r = threadIdx.y; r < 32; r += blockDim.y) {
            int64_t kk = k0 + r, j = j0 + threadIdx.x;
            if (kk < kp && j < np) Bt[j + np * kk] = tile[threadIdx.x][r];
        }
        __syncthreads();
    }
}

// out(i,j) = K(i,j) (K int32 with leading dimension ldk, out tight m x n):
// the witness in the class asked for
template <class T>
__global__ void widen_index(const int *__restrict__ K, int64_t ldk, T *__restrict__ out,
                            int64_t m, int64_t n)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < m * n;
         e += (int64_t)gridDim.x * blockDim.x)
        out[e] = (T)K[e % m + ldk * (e / m)];
}

#endif

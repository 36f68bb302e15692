/* layout.cuh - the kernels that move a matrix's elements into another
 * layout on the device: the padded transpose (the products' B.' and the
 * results' transposes), the widening of an int32 index result, and a
 * selection of rows gathered and its results scattered back. Included by
 * the files that launch them with their own types (product.cu, knn.cu)
 * and by layout.cu (the class-generic launchers of runtime.h). */
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

// the rows j[0 .. ns) of Y (my x d) into Ys (ns x d): a selection of
// rows gathered (the queries 'gemm' leaves to 'fused', knn.cu)
template <class T>
__global__ void gather_rows(const T *Y, int64_t my, int64_t d, const int32_t *j, int64_t ns, T *Ys)
{
    const int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (e < ns * d) Ys[e] = Y[j[e % ns] + my * (e / ns)];
}

// the columns of Ds and Is (K x ns) into the columns j of D and I (K x
// my): gather_rows's results scattered back
template <class T>
__global__ void scatter_cols(const T *Ds, const int32_t *Is, int64_t K, const int32_t *j,
                             int64_t ns, T *D, int32_t *I)
{
    const int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (e >= ns * K) return;
    const int64_t r = e / K, k = e % K;
    D[j[r] * K + k] = Ds[e];
    I[j[r] * K + k] = Is[e];
}

#endif

/* ops/minplus/v3_shared.cuh - v3: v2 with the operands staged in shared memory.
 * Part of minplus.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
// ---------------------------------------------------------------------------
// v3: v2 with the 64 + 64 operands of 4 k-steps staged in shared memory by
// the whole block (one coalesced load of each per thread and k-step), so
// each global element is read once per block instead of 8 times.

template <class T>
__global__ void minplus_v3_shared(const T *__restrict__ Ap,
                                  const T *__restrict__ Bt, T *__restrict__ R,
                                  int64_t m, int64_t n, int64_t mp, int64_t np,
                                  int64_t kp)
{
    enum { KS = 4 };
    __shared__ T xx[KS][TILE], yy[KS][TILE];
    const int ia = threadIdx.x, ja = threadIdx.y, tid = ja * 8 + ia;
    const int64_t ic = blockIdx.x;
    for (int64_t jc = blockIdx.y; jc * TILE < np; jc += gridDim.y) {
        T v[8][8];
#pragma unroll
        for (int ib = 0; ib < 8; ++ib)
#pragma unroll
            for (int jb = 0; jb < 8; ++jb) v[ib][jb] = nan_v<T>();
        for (int64_t ks = 0; ks < kp; ks += KS) {
#pragma unroll
            for (int f = 0; f < KS; ++f) {
                xx[f][tid] = Ap[mp * (ks + f) + ic * TILE + tid];
                yy[f][tid] = Bt[np * (ks + f) + jc * TILE + tid];
            }
            __syncthreads();
#pragma unroll
            for (int f = 0; f < KS; ++f) {
                T x[8], y[8];
#pragma unroll
                for (int b = 0; b < 8; ++b) {
                    x[b] = xx[f][b * 8 + ia];
                    y[b] = yy[f][b * 8 + ja];
                }
#pragma unroll
                for (int ib = 0; ib < 8; ++ib)
#pragma unroll
                    for (int jb = 0; jb < 8; ++jb) v[ib][jb] = gmin(v[ib][jb], x[ib] + y[jb]);
            }
            __syncthreads();
        }
#pragma unroll
        for (int ib = 0; ib < 8; ++ib)
#pragma unroll
            for (int jb = 0; jb < 8; ++jb) {
                int64_t i = ic * TILE + ib * 8 + ia, j = jc * TILE + jb * 8 + ja;
                if (i < m && j < n) R[i + m * j] = v[ib][jb];
            }
    }
}


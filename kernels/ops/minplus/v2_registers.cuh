/* ops/minplus/v2_registers.cuh - v2: 8 x 8 outputs a thread from registers.
 * Part of minplus.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
// ---------------------------------------------------------------------------
// v2: 8x8 outputs per thread from registers, no shared memory. Thread
// (ia, ja) of block (ic, jc) owns i = 64ic + 8ib + ia, j = 64jc + 8jb + ja.

template <class T>
__global__ void minplus_v2_registers(const T *__restrict__ Ap,
                                     const T *__restrict__ Bt,
                                     T *__restrict__ R, int64_t m, int64_t n,
                                     int64_t mp, int64_t np, int64_t kp)
{
    const int ia = threadIdx.x, ja = threadIdx.y;
    const int64_t ic = blockIdx.x;
    for (int64_t jc = blockIdx.y; jc * TILE < np; jc += gridDim.y) {
        T v[8][8];
#pragma unroll
        for (int ib = 0; ib < 8; ++ib)
#pragma unroll
            for (int jb = 0; jb < 8; ++jb) v[ib][jb] = nan_v<T>();
        for (int64_t kk = 0; kk < kp; ++kk) {
            T x[8], y[8];
#pragma unroll
            for (int b = 0; b < 8; ++b) {
                x[b] = Ap[mp * kk + ic * TILE + b * 8 + ia];
                y[b] = Bt[np * kk + jc * TILE + b * 8 + ja];
            }
#pragma unroll
            for (int ib = 0; ib < 8; ++ib)
#pragma unroll
                for (int jb = 0; jb < 8; ++jb) v[ib][jb] = gmin(v[ib][jb], x[ib] + y[jb]);
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


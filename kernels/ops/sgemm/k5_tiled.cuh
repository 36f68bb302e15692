/* ops/sgemm/k5_tiled.cuh - k5: 16x16 tiles of A and B in shared memory.
 * Part of sgemm.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
// ---------------------------------------------------------------------------
// k5: 16x16 tiles of A and B in shared memory, one output per thread
// (thread (tx, ty) owns C(i0 + tx, j0 + ty)). Both tile loads run along
// the contiguous dimension (i for A, k for B); rows padded by one float.

template <bool GUARD>
__global__ void sgemm_k5_tiled(const float *__restrict__ A,
                               const float *__restrict__ B,
                               float *__restrict__ C, int64_t m, int64_t n,
                               int64_t k, int64_t lda, int64_t ldb, int64_t ldc)
{
    __shared__ float at[16][17], bt[16][17]; // at[k][i], bt[j][k]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t i = blockIdx.x * 16 + tx;
    for (int64_t j0 = blockIdx.y * 16; j0 < n; j0 += (int64_t)gridDim.y * 16) {
        const int64_t j = j0 + ty;
        float sum = 0.0f;
        for (int64_t ks = 0; ks < k; ks += 16) {
            at[ty][tx] = (!GUARD || (i < m && ks + ty < k)) ? A[i + lda * (ks + ty)] : 0.0f;
            // B(ks + tx, j0 + ty): consecutive tx read consecutive k
            bt[ty][tx] = (!GUARD || (ks + tx < k && j < n)) ? B[ks + tx + ldb * j] : 0.0f;
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < 16; ++kk) sum += at[kk][tx] * bt[ty][kk];
            __syncthreads();
        }
        if (!GUARD || (i < m && j < n)) C[i + ldc * j] = sum;
    }
}

template <bool GUARD> gd_status launch_k5(const gd_plan &p)
{
    dims d = sizes(p, GUARD);
    dim3 grid((unsigned)((d.m + 15) / 16), gd_grid_y((d.n + 15) / 16));
    sgemm_k5_tiled<GUARD><<<grid, dim3(16, 16), 0, p.st>>>(
        (const float *)p.A, (const float *)p.B, (float *)p.C, d.m, d.n, d.k, p.lda, p.ldb, p.ldc);
    return GD_OK;
}

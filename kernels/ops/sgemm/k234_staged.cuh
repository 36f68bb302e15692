/* ops/sgemm/k234_staged.cuh - k2, k3, k4: B's strip staged in shared memory; k3 unrolls i, k4 unrolls j (one kernel, parameterised).
 * Part of sgemm.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
// ---------------------------------------------------------------------------
// k2, k3, k4: one family. A block of W threads covers I*W rows (rows i,
// i+W, ... per thread: k3) and J columns (k4); the W-long strips of B's J
// columns are staged in shared memory, so the inner loop reads only A from
// global memory, each A element used for J columns. k2 is I = J = 1. KU
// unrolls the inner k loop (1: not unrolled).

template <int W, int I, int J, int KU, bool GUARD>
__global__ void __launch_bounds__(W)
sgemm_k234_strip(const float *__restrict__ A, const float *__restrict__ B,
                 float *__restrict__ C, int64_t m, int64_t n, int64_t k,
                 int64_t lda, int64_t ldb, int64_t ldc)
{
    __shared__ float cb[J][W];
    const int tx = threadIdx.x;
    const int64_t i0 = blockIdx.x * (int64_t)(W * I) + tx;
    for (int64_t j0 = blockIdx.y * (int64_t)J; j0 < n; j0 += (int64_t)gridDim.y * J) {
        float sum[I][J];
#pragma unroll
        for (int r = 0; r < I; ++r)
#pragma unroll
            for (int c = 0; c < J; ++c) sum[r][c] = 0.0f;
        for (int64_t ks = 0; ks < k; ks += W) {
#pragma unroll
            for (int c = 0; c < J; ++c)
                cb[c][tx] = (!GUARD || (ks + tx < k && j0 + c < n))
                                ? B[ks + tx + ldb * (j0 + c)] : 0.0f;
            __syncthreads();
            const int kmax = GUARD ? (int)(k - ks < W ? k - ks : W) : W;
#pragma unroll KU
            for (int kk = 0; kk < kmax; ++kk) {
#pragma unroll
                for (int r = 0; r < I; ++r) {
                    const int64_t i = i0 + r * W;
                    const float a = (!GUARD || i < m) ? A[i + lda * (ks + kk)] : 0.0f;
#pragma unroll
                    for (int c = 0; c < J; ++c) sum[r][c] += a * cb[c][kk];
                }
            }
            __syncthreads();
        }
#pragma unroll
        for (int r = 0; r < I; ++r)
#pragma unroll
            for (int c = 0; c < J; ++c) {
                const int64_t i = i0 + r * W;
                if (!GUARD || (i < m && j0 + c < n)) C[i + ldc * (j0 + c)] = sum[r][c];
            }
    }
}

template <int W, int I, int J, int KU, bool GUARD> gd_status launch_k234(const gd_plan &p)
{
    dims d = sizes(p, GUARD);
    dim3 grid((unsigned)((d.m + W * I - 1) / (W * I)), gd_grid_y((d.n + J - 1) / J));
    sgemm_k234_strip<W, I, J, KU, GUARD><<<grid, W, 0, p.st>>>(
        (const float *)p.A, (const float *)p.B, (float *)p.C, d.m, d.n, d.k, p.lda, p.ldb, p.ldc);
    return GD_OK;
}

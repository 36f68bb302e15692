/* ops/sgemm/k1_strip.cuh - k1: one thread an output, the i loop strip-mined to a block.
 * Part of sgemm.cu, which includes it inside its anonymous namespace,
 * in the ladder's order. */
// ---------------------------------------------------------------------------
// k1: one thread per output, W threads per strip of i, one column j per
// block row (strided over j past the grid's 65535 rows).

template <int W, bool GUARD>
__global__ void __launch_bounds__(W)
sgemm_k1_strip(const float *__restrict__ A, const float *__restrict__ B,
               float *__restrict__ C, int64_t m, int64_t n, int64_t k,
               int64_t lda, int64_t ldb, int64_t ldc)
{
    const int64_t i = blockIdx.x * (int64_t)W + threadIdx.x;
    if (GUARD && i >= m) return;
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y) {
        float sum = 0.0f;
        for (int64_t kk = 0; kk < k; ++kk) sum += A[i + lda * kk] * B[kk + ldb * j];
        C[i + ldc * j] = sum;
    }
}

template <int W, bool GUARD> gd_status launch_k1(const gd_plan &p)
{
    dims d = sizes(p, GUARD);
    dim3 grid((unsigned)((d.m + W - 1) / W), gd_grid_y(d.n));
    sgemm_k1_strip<W, GUARD><<<grid, W, 0, p.st>>>(
        (const float *)p.A, (const float *)p.B, (float *)p.C, d.m, d.n, d.k, p.lda, p.ldb, p.ldc);
    return GD_OK;
}

/* ops/sssp/rows.cuh - W's out-edges (rows) built on the device from its
 * compressed columns, in W's vertex order or renumbered (order.cuh), for
 * near-far's iterations and trees; and the inclusive sum in place that
 * makes the row starts (order.cuh's cells take it too). Part of sssp.cu,
 * which includes it inside its anonymous namespace, after nearfar.cuh,
 * before order.cuh. */

/* (to_new: the rows of the vertices renumbered, else NULL) */
__global__ void nf_row_counts(const int64_t *__restrict__ ri, int64_t m, unsigned long long *cnt,
                              const int32_t *__restrict__ to_new)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < m;
         e += (int64_t)gridDim.x * blockDim.x)
        atomicAdd(cnt + (to_new ? (int64_t)to_new[ri[e]] : ri[e]) + 1, 1ull);
}
template <class T>
__global__ void nf_row_fill(const int64_t *__restrict__ cp, const int64_t *__restrict__ ri,
                            const T *__restrict__ val, int64_t n, unsigned long long *cursor,
                            int32_t *ci, T *w, const int32_t *__restrict__ to_new)
{
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < n;
         j += (int64_t)gridDim.x * blockDim.x) {
        const int32_t jn = to_new ? to_new[j] : (int32_t)j;
        for (int64_t e = cp[j]; e < cp[j + 1]; ++e) {
            const int64_t r = to_new ? (int64_t)to_new[ri[e]] : ri[e];
            const unsigned long long at = atomicAdd(cursor + r, 1ull);
            ci[at] = jn;
            w[at] = val[e];
        }
    }
}

/* an inclusive sum in place (the row starts): each block its NF_SCAN
 * elements, its total into sums; the totals made exclusive by one block;
 * then added to the blocks' elements */
enum { NF_SCAN = 1024 };
/* s (a value a thread of the block) made its inclusive sums */
__device__ __forceinline__ void nf_block_scan(unsigned long long *s)
{
    __syncthreads();
    for (int o = 1; o < NF_SCAN; o *= 2) {
        const unsigned long long add = threadIdx.x >= (unsigned)o ? s[threadIdx.x - o] : 0;
        __syncthreads();
        s[threadIdx.x] += add;
        __syncthreads();
    }
}
__global__ void __launch_bounds__(NF_SCAN)
    nf_scan_block(unsigned long long *x, int64_t len, unsigned long long *sums)
{
    __shared__ unsigned long long s[NF_SCAN];
    const int64_t i = blockIdx.x * (int64_t)NF_SCAN + threadIdx.x;
    s[threadIdx.x] = i < len ? x[i] : 0;
    nf_block_scan(s);
    if (i < len) x[i] = s[threadIdx.x];
    if (threadIdx.x == NF_SCAN - 1) sums[blockIdx.x] = s[threadIdx.x];
}
__global__ void __launch_bounds__(NF_SCAN) nf_scan_totals(unsigned long long *sums, int64_t nb)
{
    __shared__ unsigned long long s[NF_SCAN];
    const int64_t per = (nb + NF_SCAN - 1) / NF_SCAN, a = threadIdx.x * per;
    const int64_t b = a + per < nb ? a + per : nb;
    unsigned long long mine = 0;
    for (int64_t i = a; i < b; ++i) mine += sums[i];
    s[threadIdx.x] = mine;
    nf_block_scan(s);
    unsigned long long at = s[threadIdx.x] - mine;
    for (int64_t i = a; i < b; ++i) {
        const unsigned long long x = sums[i];
        sums[i] = at;
        at += x;
    }
}
__global__ void __launch_bounds__(NF_SCAN)
    nf_scan_add(unsigned long long *x, int64_t len, const unsigned long long *sums)
{
    const int64_t i = blockIdx.x * (int64_t)NF_SCAN + threadIdx.x;
    if (i < len) x[i] += sums[blockIdx.x];
}

/* W's out-edges on the device (*g) from its columns there (dcp, dri, dw:
 * n + 1 starts, m rows and weights); to_new, to_old: the vertices
 * renumbered (order.cuh), else NULL */
template <class T>
bool nf_rows(gd_call &c, int64_t n, int64_t m, const int64_t *dcp, const int64_t *dri,
             const T *dw, nf_graph<T> *g, const int32_t *to_new = NULL,
             const int32_t *to_old = NULL)
{
    cudaStream_t st = gd_stream();
    const int64_t blocks = (n + 1 + NF_SCAN - 1) / NF_SCAN;
    unsigned long long *rp = (unsigned long long *)c.alloc((size_t)(n + 1) * 8, "W's row starts");
    unsigned long long *cur = (unsigned long long *)c.alloc((size_t)(n + 1) * 8, "W's rows' cursors");
    unsigned long long *sums = (unsigned long long *)c.alloc((size_t)blocks * 8, "the starts' sums");
    int32_t *ci = (int32_t *)c.alloc((size_t)m * 4 + 4, "W's rows' targets");
    T *w = (T *)c.alloc((size_t)m * sizeof(T) + 8, "W's rows' weights");
    if (!c.ok()) return false;
    c.cuda(cudaMemsetAsync(rp, 0, (size_t)(n + 1) * 8, st), "W's row starts");
    if (c.ok()) {
        nf_row_counts<<<sssp_grid(m), 256, 0, st>>>(dri, m, rp, to_new);
        nf_scan_block<<<(unsigned)blocks, NF_SCAN, 0, st>>>(rp, n + 1, sums);
        nf_scan_totals<<<1, NF_SCAN, 0, st>>>(sums, blocks);
        nf_scan_add<<<(unsigned)blocks, NF_SCAN, 0, st>>>(rp, n + 1, sums);
    }
    c.cuda(cudaMemcpyAsync(cur, rp, (size_t)(n + 1) * 8, cudaMemcpyDeviceToDevice, st),
           "W's rows' cursors");
    if (c.ok()) nf_row_fill<T><<<sssp_grid(n), 256, 0, st>>>(dcp, dri, dw, n, cur, ci, w, to_new);
    *g = nf_graph<T>{(const int64_t *)rp, ci, w, (uint32_t)n, to_new, to_old};
    return c.launched("W's rows");
}

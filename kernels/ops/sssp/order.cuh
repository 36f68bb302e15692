/* ops/sssp/order.cuh - near-far's vertex order: where W's edges join
 * vertices far apart in its numbering (a kNN graph of points drawn at
 * random: an edge's two ends n / 3 apart on average), a source's frontier
 * touches its lengths at random, a 32-byte sector a length, and the
 * relaxation waits on those loads. Renumbered so that the vertices near
 * one another in the graph are near in number, the frontier's lengths
 * share sectors and stay in L2. The numbering: two breadth-first searches'
 * levels as coordinates (from a vertex a sweep from vertex 0 reaches last,
 * then from the one that search reaches last: on a graph of points, the
 * distances from two far-apart points fix a point as its two coordinates
 * do), the vertices sorted along a Morton curve of those two levels (a
 * counting sort by cell: about a cell a vertex, at most 2^11 a side).
 * Near-far runs on the graph renumbered; D goes back to W's order before
 * its transpose, and P is made from D on W itself (it is a function of D
 * and W), or by levels on the graph renumbered, their vertices mapped back
 * (nf_out_p).
 * Part of sssp.cu, which includes it inside its anonymous namespace, after
 * nearfar.cuh, before gpu.cuh. */

/* the sum over W's stored entries of |i - j| (a block's partial, then
 * one atomic a block) */
__global__ void __launch_bounds__(256)
    nf_gap(const int64_t *__restrict__ cp, const int64_t *__restrict__ ri, int64_t n, double *sum)
{
    double mine = 0;
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < n;
         j += (int64_t)gridDim.x * blockDim.x)
        for (int64_t e = cp[j]; e < cp[j + 1]; ++e) mine += (double)(ri[e] > j ? ri[e] - j : j - ri[e]);
    for (int o = 16; o > 0; o /= 2) mine += __shfl_xor_sync(0xffffffffu, mine, o);
    __shared__ double part[8];
    if ((threadIdx.x & 31) == 0) part[threadIdx.x / 32] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        double b = 0;
        for (int w = 0; w < 8; ++w) b += part[w];
        atomicAdd(sum, b);
    }
}

/* a breadth-first sweep's round L (nf_round's policy): each vertex not
 * yet reached takes level L and goes on the next frontier */
struct nf_any {
    const int32_t *ci;
    int32_t *lvl;
    struct item {
        uint32_t q;
    };
    __device__ item load(uint32_t it) const { return item{it}; }
    __device__ bool visit(const item &, int64_t e, int32_t L, uint32_t *next) const
    {
        const uint32_t u = (uint32_t)ci[e];
        if (lvl[u] >= 0 || atomicCAS(lvl + u, -1, L) != -1) return false;
        *next = u;
        return true;
    }
};
template <class T>
__global__ void __launch_bounds__(NF_THREADS)
    nf_sweep(nf_graph<T> g, int32_t *lvl, uint32_t *front0, uint32_t *front1, nf_bfs *s)
{
    nf_round(g, nf_any{g.ci, lvl}, front0, front1, s);
}

/* the levels -1 but 0 at v0, the first frontier v0 */
__global__ void nf_sweep_start(int32_t *lvl, int64_t n, uint32_t v0, uint32_t *front)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        lvl[i] = i == v0 ? 0 : -1;
    if (blockIdx.x == 0 && threadIdx.x == 0) front[0] = v0;
}

/* the vertex of the highest level (the least of them), as level << 32 |
 * (2^32 - 1 - vertex) at *best */
__global__ void nf_last(const int32_t *__restrict__ lvl, int64_t n, unsigned long long *best)
{
    unsigned long long mine = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        if (lvl[i] >= 0) {
            const unsigned long long x = (unsigned long long)lvl[i] << 32 | (0xffffffffull - (unsigned long long)i);
            mine = x > mine ? x : mine;
        }
    for (int o = 16; o > 0; o /= 2) {
        const unsigned long long x = __shfl_xor_sync(0xffffffffu, mine, o);
        mine = x > mine ? x : mine;
    }
    if ((threadIdx.x & 31) == 0 && mine) atomicMax(best, mine);
}

/* a vertex's cell on the curve: its two levels scaled to bits bits (the
 * highest to 2^bits - 1), their bits interleaved; the vertices a search
 * did not reach in the last cell */
enum { ORDER_BITS = 11 };
__device__ __forceinline__ uint32_t nf_cell(int32_t a, int32_t b, int bits, int32_t most_a, int32_t most_b)
{
    if (a < 0 || b < 0) return 1u << (2 * bits);
    const uint32_t side = (1u << bits) - 1u;
    const uint32_t x = most_a > 0 ? (uint32_t)((uint64_t)a * side / (uint64_t)most_a) : 0u;
    const uint32_t y = most_b > 0 ? (uint32_t)((uint64_t)b * side / (uint64_t)most_b) : 0u;
    uint32_t key = 0;
    for (int i = 0; i < bits; ++i) key |= ((x >> i) & 1u) << (2 * i) | ((y >> i) & 1u) << (2 * i + 1);
    return key;
}
__global__ void nf_cells(const int32_t *__restrict__ la, const int32_t *__restrict__ lb, int64_t n,
                         int bits, int32_t most_a, int32_t most_b, unsigned long long *cnt)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        atomicAdd(cnt + nf_cell(la[i], lb[i], bits, most_a, most_b) + 1, 1ull);
}
/* each vertex its number: its cell's start + its place among the cell's
 * (the order within a cell the atomics' own) */
__global__ void nf_number(const int32_t *__restrict__ la, const int32_t *__restrict__ lb, int64_t n,
                          int bits, int32_t most_a, int32_t most_b, unsigned long long *cursor,
                          int32_t *to_new, int32_t *to_old)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const unsigned long long at = atomicAdd(cursor + nf_cell(la[i], lb[i], bits, most_a, most_b), 1ull);
        to_new[i] = (int32_t)at;
        to_old[at] = (int32_t)i;
    }
}

/* the sources in g's numbering */
__global__ void nf_sources_new(const int64_t *__restrict__ src, int64_t ns,
                               const int32_t *__restrict__ to_new, int64_t *out)
{
    for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < ns;
         k += (int64_t)gridDim.x * blockDim.x)
        out[k] = to_new[src[k]];
}

/* A sweep from v0 over g's out-edges into lvl (front0, front1: two lists
 * of n); the highest level and the least vertex at it into *most, *last */
template <class T>
bool nf_sweep_from(gd_call &c, const nf_graph<T> &g, uint32_t v0, int32_t *lvl, uint32_t *front0,
                   uint32_t *front1, nf_bfs *ds, unsigned long long *dbest, int32_t *most,
                   uint32_t *last)
{
    cudaStream_t st = gd_stream();
    const int64_t n = g.n;
    if (c.ok()) nf_sweep_start<<<sssp_grid(n), 256, 0, st>>>(lvl, n, v0, front0);
    nf_bfs h;
    memset(&h, 0, sizeof h);
    h.cnt[0] = 1;
    h.level = 1;
    c.cuda(cudaMemcpyAsync(ds, &h, sizeof h, cudaMemcpyHostToDevice, st), "a sweep's state");
    nf_rounds(c, nf_sweep<T>, ds, &h, "a sweep", g, lvl, front0, front1);
    unsigned long long best = 0;
    c.cuda(cudaMemsetAsync(dbest, 0, 8, st), "a sweep's last vertex");
    if (c.ok()) nf_last<<<sssp_grid(n), 256, 0, st>>>(lvl, n, dbest);
    c.launched("a sweep's last vertex");
    c.cuda(cudaMemcpyAsync(&best, dbest, 8, cudaMemcpyDeviceToHost, st), "a sweep's last vertex");
    c.cuda(cudaStreamSynchronize(st), "a sweep's last vertex");
    *most = (int32_t)(best >> 32);
    *last = (uint32_t)(0xffffffffull - (best & 0xffffffffull));
    return c.ok();
}

/* Whether to renumber g's vertices (W's columns at dcp, dri: its m
 * entries' mean |i - j| past n / 64, GD_SSSP_ORDER not 0, and room for
 * the sort: the order is a speed-up, kept where memory is short), and if
 * so the numbering: *to_new, *to_old (device arrays of n, one allocation;
 * the sweeps' and the sort's scratch another). */
template <class T>
bool nf_order(gd_call &c, const nf_graph<T> &g, int64_t m, const int64_t *dcp, const int64_t *dri,
              int32_t **to_new, int32_t **to_old)
{
    *to_new = *to_old = NULL;
    const int64_t n = g.n;
    long on = 1;
    gd_setting_int(GD_SET_SSSP_ORDER, 0, 1, &on);
    if (!on || n < 2 || m < 1 || !c.ok()) return false;
    /* the curve's cells: about one a vertex, 2^ORDER_BITS a side at most */
    int bits = 1;
    while (bits < ORDER_BITS && ((int64_t)1 << (2 * bits)) < n) ++bits;
    const int64_t cells = ((int64_t)1 << (2 * bits)) + 1, blocks = (cells + 1 + NF_SCAN - 1) / NF_SCAN;
    const size_t scratch = (size_t)n * 16 + sizeof(nf_bfs) + 16 + (size_t)(cells + 1 + blocks) * 8;
    size_t avail = 0;
    if (!c.check(gd_free_memory(&avail))) return false;
    const int64_t cap = gd_mem_limit();
    const size_t need = scratch + (size_t)n * 8;
    if (need > avail / 4 || (cap >= 0 && (int64_t)(c.allocs()->total + need) > cap)) return false;
    cudaStream_t st = gd_stream();
    unsigned long long *cnt = (unsigned long long *)c.alloc(scratch, "the order's scratch");
    if (!c.ok()) return false;
    /* the scratch: the cells' counts and sums, the spans' sum and a
     * sweep's last vertex, a sweep's state, then four arrays of n */
    unsigned long long *sums = cnt + cells + 1, *best = sums + blocks;
    double *dsum = (double *)(best + 1);
    nf_bfs *ds = (nf_bfs *)(dsum + 1);
    int32_t *la = (int32_t *)(ds + 1), *lb = la + n;
    uint32_t *f0 = (uint32_t *)(lb + n), *f1 = f0 + n;
    double sum = 0;
    c.cuda(cudaMemsetAsync(dsum, 0, 8, st), "the edges' spans");
    if (c.ok()) nf_gap<<<sssp_grid(n), 256, 0, st>>>(dcp, dri, n, dsum);
    c.launched("the edges' spans");
    c.cuda(cudaMemcpyAsync(&sum, dsum, 8, cudaMemcpyDeviceToHost, st), "the edges' spans");
    c.cuda(cudaStreamSynchronize(st), "the edges' spans");
    if (!c.ok() || sum / (double)m <= (double)n / 64) return false;
    /* three sweeps: from 0, from its last vertex (a), from a's (b) */
    int32_t most_a = 0, most_b = 0;
    uint32_t a = 0, b = 0;
    if (!nf_sweep_from<T>(c, g, 0, la, f0, f1, ds, best, &most_a, &a) ||
        !nf_sweep_from<T>(c, g, a, la, f0, f1, ds, best, &most_a, &b) ||
        !nf_sweep_from<T>(c, g, b, lb, f0, f1, ds, best, &most_b, &a) || most_a < 1 || most_b < 1)
        return false; /* (a sweep that reached nothing: the order kept) */
    /* the counting sort by cell */
    int32_t *num = (int32_t *)c.alloc((size_t)n * 8, "the vertices' numbers");
    if (!c.ok()) return false;
    c.cuda(cudaMemsetAsync(cnt, 0, (size_t)(cells + 1) * 8, st), "the cells' counts");
    if (c.ok()) {
        nf_cells<<<sssp_grid(n), 256, 0, st>>>(la, lb, n, bits, most_a, most_b, cnt);
        nf_scan_block<<<(unsigned)blocks, NF_SCAN, 0, st>>>(cnt, cells + 1, sums);
        nf_scan_totals<<<1, NF_SCAN, 0, st>>>(sums, blocks);
        nf_scan_add<<<(unsigned)blocks, NF_SCAN, 0, st>>>(cnt, cells + 1, sums);
        nf_number<<<sssp_grid(n), 256, 0, st>>>(la, lb, n, bits, most_a, most_b, cnt, num, num + n);
    }
    if (!c.launched("the vertices' numbers")) return false;
    *to_new = num;
    *to_old = num + n;
    return true;
}

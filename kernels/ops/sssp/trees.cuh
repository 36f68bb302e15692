/* ops/sssp/trees.cuh - what the GPU's two methods share: W's columns on
 * the device, the grids, a warp's appends to a list (nf_put), and the
 * trees from unique tight predecessors.
 * Part of sssp.cu, which includes it inside its anonymous namespace,
 * before nearfar.cuh and gpu.cuh.
 *
 * The trees' rule (the host's): breadth first over the tight edges q -> j
 * (q != j, D(q) + W(q, j) == D(j) in the class) from the source, P(j) the
 * smallest tight predecessor one level nearer. Both methods make it by
 * levels, a pass over the frontier a level; a kNN graph of 10^6 vertices
 * has a thousand levels. Where weights are reals, almost every vertex has
 * a single tight in-edge, and then no level is needed: if every cell
 * (source k, vertex j) reached and not the source has exactly one tight
 * in-edge q -> j, and D(k, q) < D(k, j), then following P from any vertex
 * lowers D at each step, so it ends, and only at the source (every other
 * reached vertex has a tight in-edge: the one that last lowered it); the
 * tight edges are then P's alone, the breadth-first search follows them,
 * and its P is this one. One pull pass checks that and writes P: a thread
 * a cell, consecutive sources of one vertex in a warp (D source-fastest,
 * read 32 lengths of one q at once). A cell with two tight in-edges, or
 * one from a vertex of equal length (a zero weight, or one too small to
 * change the sum), sends its source's tree to the levels (a source's tree
 * depends on its own lengths alone). */

/* blocks of 256 threads for total elements, a grid-stride loop past 2^19 */
unsigned sssp_grid(int64_t total)
{
    const int64_t b = (total + 255) / 256;
    return (unsigned)(b < 1 ? 1 : b > 65535 * 8 ? 65535 * 8 : b);
}

/* the lanes with want put their item on list (*cnt its length): one
 * atomic a warp; every lane of the warp calls it, converged */
template <class I>
__device__ __forceinline__ void nf_put(bool want, I item, I *list, unsigned long long *cnt)
{
    const unsigned m = __ballot_sync(0xffffffffu, want);
    if (!m) return;
    const int lane = threadIdx.x & 31, first = __ffs((int)m) - 1;
    unsigned long long at = 0;
    if (lane == first) at = atomicAdd(cnt, (unsigned long long)__popc(m));
    at = __shfl_sync(0xffffffffu, at, first);
    if (want) list[at + (unsigned)__popc(m & ((1u << lane) - 1u))] = item;
}

/* W's columns (the in-edges) and the sources on the device */
template <class T> struct sssp_up {
    int64_t *cp, *ri, *src;
    T *w;
};

/* P of sources k0 .. k0 + b - 1 (their vertices at src) from their
 * lengths at D (ns x n, a source a row): P(k, j) = q + 1 for j's single
 * tight in-edge q -> j with D(k, q) < D(k, j); 0 at the source, none
 * where D is Inf. Any other cell sets its source's tied[k - k0]. */
template <class T, class PT>
__global__ void sssp_unique(const int64_t *__restrict__ cp, const int64_t *__restrict__ ri,
                            const T *__restrict__ w, int64_t n, int64_t ns, int64_t k0, int64_t b,
                            const int64_t *__restrict__ src, const T *__restrict__ D, PT *P,
                            PT none, int *tied)
{
    const int64_t total = n * b;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t kb = t % b, j = t / b, k = k0 + kb, i = k + ns * j;
        const T dj = D[i];
        PT p = none;
        if (src[kb] == j)
            p = 0;
        else if (dj < (T)INFINITY) {
            int64_t q1 = -1;
            int tight = 0;
            T d1 = 0;
            for (int64_t e = cp[j]; e < cp[j + 1] && tight < 2; ++e) {
                const int64_t q = ri[e];
                if (q == j) continue;
                const T dq = D[k + ns * q];
                if ((T)(dq + w[e]) == dj) {
                    if (!tight) {
                        q1 = q;
                        d1 = dq;
                    }
                    ++tight;
                }
            }
            if (tight == 1 && d1 < dj)
                p = (PT)(q1 + 1);
            else
                tied[kb] = 1; /* (a warp's lanes: consecutive sources, one line) */
        }
        P[i] = p;
    }
}

/* The trees of sources k0 .. k0 + b - 1 by sssp_unique; *tied: those
 * (0 .. b - 1) with a tied cell, whose trees the caller makes by levels */
template <class T, class PT>
bool sssp_trees_unique(gd_call &c, const sssp_up<T> &u, int64_t n, int64_t ns, int64_t k0,
                       int64_t b, const T *D, PT *P, PT none, std::vector<int64_t> *tied)
{
    cudaStream_t st = gd_stream();
    int *dt = (int *)c.alloc((size_t)b * sizeof(int) + 4, "the tied sources");
    c.cuda(cudaMemsetAsync(dt, 0, (size_t)b * sizeof(int), st), "the tied sources");
    if (c.ok() && n * b > 0)
        sssp_unique<T, PT><<<sssp_grid(n * b), 256, 0, st>>>(u.cp, u.ri, u.w, n, ns, k0, b, u.src + k0, D, P, none, dt);
    c.launched("the trees");
    std::vector<int> h((size_t)b, 1);
    c.cuda(cudaMemcpyAsync(h.data(), dt, (size_t)b * sizeof(int), cudaMemcpyDeviceToHost, st), "the tied sources");
    c.cuda(cudaStreamSynchronize(st), "the trees");
    tied->clear();
    for (int64_t k = 0; k < b; ++k)
        if (h[(size_t)k]) tied->push_back(k);
    return c.ok();
}

/* info.kernel's word on the trees: by levels for how many of the sources */
void sssp_trees_said(gd_timing *t, int64_t by_levels, int64_t ns)
{
    const size_t at = strlen(t->kernel);
    if (!by_levels)
        snprintf(t->kernel + at, sizeof t->kernel - at, "; trees from unique predecessors");
    else
        snprintf(t->kernel + at, sizeof t->kernel - at, "; trees by levels for %lld of %lld source%s",
                 (long long)by_levels, (long long)ns, ns == 1 ? "" : "s");
}

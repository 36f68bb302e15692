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
 * change the sum), is tied. A kNN graph of 10^6 points has about a
 * thousand tied cells among 10^9 (two sums equal to the last bit, each
 * shared by the many sources whose paths cross there); where they are
 * few, each is mended by its chains: every tight in-edge q -> j followed
 * up P (unique predecessors) to the source or a tied cell, so q's level
 * is that root's + the steps; the tied cells' levels then follow on the
 * host in order of level (1 + the least over their in-edges), P(j) the
 * smallest q one level nearer: the levels' rule, with no level pass.
 * Where they are many (whole weights), the sources that meet one go to
 * the levels (a source's tree depends on its own lengths alone). */

/* blocks of 256 threads for total elements, a grid-stride loop past 2^19 */
unsigned sssp_grid(int64_t total)
{
    const int64_t b = (total + 255) / 256;
    return (unsigned)(b < 1 ? 1 : b > 65535 * 8 ? 65535 * 8 : b);
}

/* the lanes with want put their item on list (*cnt its length): one
 * atomic a warp; the lanes of mask call it, converged. With a cap (the
 * list's room): once *cnt is past it, no more atomics (one lane reads it,
 * for the warp), and items past it are not kept, *cnt > cap saying so */
template <class I>
__device__ __forceinline__ void nf_put(bool want, I item, I *list, unsigned long long *cnt,
                                       unsigned mask = 0xffffffffu,
                                       unsigned long long cap = ~0ull)
{
    const unsigned m = __ballot_sync(mask, want);
    if (!m) return;
    const int lane = threadIdx.x & 31, first = __ffs((int)m) - 1;
    if (cap != ~0ull) { /* (none of this without a cap) */
        int room = 0;
        if (lane == first) room = *(volatile unsigned long long *)cnt <= cap;
        if (!__shfl_sync(mask, room, first)) return;
    }
    unsigned long long at = 0;
    if (lane == first) at = atomicAdd(cnt, (unsigned long long)__popc(m));
    at = __shfl_sync(mask, at, first);
    if (want) {
        at += (unsigned)__popc(m & ((1u << lane) - 1u));
        if (cap == ~0ull || at < cap) list[at] = item;
    }
}

/* the trees' test of an edge q -> j (q != j, which each caller checks
 * where it is cheapest): q's length plus the weight, rounded in the class,
 * is j's length */
template <class T> __device__ __forceinline__ bool sssp_tight(T dq, T wq, T dj)
{
    return (T)(dq + wq) == dj;
}

/* W's columns (the in-edges) and the sources on the device */
template <class T> struct sssp_up {
    int64_t *cp, *ri, *src;
    T *w;
};

/* P of sources k0 .. k0 + b - 1 (their vertices at src) from their
 * lengths at D (ns x n, a source a row): P(k, j) = q + 1 for j's single
 * tight in-edge q -> j with D(k, q) < D(k, j); 0 at the source, none
 * where D is Inf. Any other cell is tied: SSSP_TIED in P, its source's
 * tied[k - k0] set, the cell (k + ns j) on the list tl (*nt its count,
 * past cap: more than cap, the rest not kept). */
enum { SSSP_TIED = -2 };
template <class T, class PT>
__global__ void sssp_unique(const int64_t *__restrict__ cp, const int64_t *__restrict__ ri,
                            const T *__restrict__ w, int64_t n, int64_t ns, int64_t k0, int64_t b,
                            const int64_t *__restrict__ src, const T *__restrict__ D, PT *P,
                            PT none, int *tied, int64_t *tl, unsigned long long *nt, uint64_t cap)
{
    const int64_t total = n * b;
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total;
         t += (int64_t)gridDim.x * blockDim.x) {
        const unsigned lanes = __activemask();
        const int64_t kb = t % b, j = t / b, k = k0 + kb, i = k + ns * j;
        const T dj = D[i];
        PT p = none;
        bool tie = false;
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
                if (sssp_tight(dq, w[e], dj)) {
                    if (!tight) {
                        q1 = q;
                        d1 = dq;
                    }
                    ++tight;
                }
            }
            if (tight == 1 && d1 < dj)
                p = (PT)(q1 + 1);
            else {
                tied[kb] = 1; /* (a warp's lanes: consecutive sources, one line) */
                p = (PT)SSSP_TIED;
                tie = true;
            }
        }
        P[i] = p;
        nf_put(tie, i, tl, nt, lanes, (unsigned long long)cap); /* (the warp's tied cells) */
    }
}

/* A tied cell's tight in-edges q -> j, each followed up P (unique tight
 * predecessors, D falling at each step, so the walk ends) to the first
 * cell that is the source (P 0) or tied: a candidate (the tied cell's
 * place on the list, q, that root cell or -1 for the source, the steps).
 * A thread a tied cell; the candidates past cap counted, not kept. */
struct sssp_cand {
    int64_t t, root;
    int32_t q, steps;
};
template <class T, class PT>
__global__ void sssp_chains(const int64_t *__restrict__ cp, const int64_t *__restrict__ ri,
                            const T *__restrict__ w, int64_t ns, const T *__restrict__ D,
                            const PT *__restrict__ P, const int64_t *__restrict__ tl, int64_t nt,
                            sssp_cand *out, unsigned long long *nc, uint64_t cap)
{
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < nt;
         t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = tl[t], k = i % ns, j = i / ns;
        const T dj = D[i];
        for (int64_t e = cp[j]; e < cp[j + 1]; ++e) {
            const int64_t q = ri[e];
            if (q == j || !sssp_tight(D[k + ns * q], w[e], dj)) continue;
            int64_t v = q, root;
            int32_t steps = 0;
            for (;;) {
                const PT p = P[k + ns * v];
                if (!(p > 0)) {
                    root = p == 0 ? -1 : k + ns * v;
                    break;
                }
                v = (int64_t)p - 1;
                ++steps;
            }
            const unsigned long long at = atomicAdd(nc, 1ull);
            if (at < cap) out[at] = {t, root, (int32_t)q, steps};
        }
    }
}

/* P at the cells given (a tied cell's predecessor + 1) */
template <class PT>
__global__ void sssp_put_p(const int64_t *__restrict__ cell, const int64_t *__restrict__ val,
                           int64_t m, PT *P)
{
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < m;
         t += (int64_t)gridDim.x * blockDim.x)
        P[cell[t]] = (PT)val[t];
}

/* The tied cells' levels from their candidates (on the host: they are
 * few): a tied cell's level is 1 + the least over its candidates of the
 * root's level (0 at the source) + the steps: the host's shortest paths
 * (gd_cpu_sssp_d) on the graph of the tied cells and the source (vertex
 * nt), an edge root -> cell of weight steps + 1 a candidate; P the
 * smallest q whose level is one less. The cells of a source where one
 * stays without a level (a root not on the list) are left, their source
 * in *left; false where host memory is lacking. */
bool sssp_tied_levels(const std::vector<int64_t> &tl, const std::vector<sssp_cand> &cand,
                      int64_t ns, std::vector<int64_t> *cells, std::vector<int64_t> *vals,
                      std::vector<int64_t> *left)
{
    const int64_t nt = (int64_t)tl.size(), INF = INT64_MAX;
    std::unordered_map<int64_t, int64_t> at;
    at.reserve((size_t)nt * 2);
    for (int64_t t = 0; t < nt; ++t) at[tl[(size_t)t]] = t;
    /* each candidate's root as a place on the list (nt: the source); the
     * edges into each cell in compressed columns */
    std::vector<int64_t> root(cand.size()), cp((size_t)nt + 2, 0), ri, src(1, nt);
    std::vector<double> w;
    std::vector<char> bad((size_t)ns, 0);
    for (size_t c = 0; c < cand.size(); ++c) {
        const auto f = cand[c].root < 0 ? at.end() : at.find(cand[c].root);
        root[c] = cand[c].root < 0 ? nt : f == at.end() ? -1 : f->second;
        if (root[c] < 0) bad[(size_t)(tl[(size_t)cand[c].t] % ns)] = 1;
        else ++cp[(size_t)cand[c].t + 1];
    }
    for (int64_t t = 0; t <= nt; ++t) cp[(size_t)t + 1] += cp[(size_t)t];
    ri.resize((size_t)cp[(size_t)nt + 1] + 1);
    w.resize(ri.size());
    std::vector<int64_t> fill(cp.begin(), cp.end() - 1);
    for (size_t c = 0; c < cand.size(); ++c)
        if (root[c] >= 0) {
            const int64_t e = fill[(size_t)cand[c].t]++;
            ri[(size_t)e] = root[c];
            w[(size_t)e] = (double)(cand[c].steps + 1);
        }
    std::vector<double> d((size_t)nt + 1);
    int64_t cycle = 0;
    if (gd_cpu_sssp_d(nt + 1, cp.data(), ri.data(), w.data(), src.data(), 1, d.data(), NULL, &cycle))
        return false; /* (no negative weight: only memory or an interrupt) */
    std::vector<int64_t> level((size_t)nt + 1), q((size_t)nt, INF);
    for (int64_t t = 0; t <= nt; ++t) level[(size_t)t] = d[(size_t)t] < INFINITY ? (int64_t)d[(size_t)t] : INF;
    for (size_t c = 0; c < cand.size(); ++c)
        if (root[c] >= 0 && level[(size_t)root[c]] < INF &&
            level[(size_t)root[c]] + cand[c].steps + 1 == level[(size_t)cand[c].t] &&
            cand[c].q < q[(size_t)cand[c].t])
            q[(size_t)cand[c].t] = cand[c].q;
    for (int64_t t = 0; t < nt; ++t)
        if (q[(size_t)t] == INF) bad[(size_t)(tl[(size_t)t] % ns)] = 1;
    for (int64_t t = 0; t < nt; ++t)
        if (!bad[(size_t)(tl[(size_t)t] % ns)]) {
            cells->push_back(tl[(size_t)t]);
            vals->push_back(q[(size_t)t] + 1);
        }
    for (int64_t k = 0; k < ns; ++k)
        if (bad[(size_t)k]) left->push_back(k);
    return true;
}

/* the most tied cells of a batch whose trees are mended by their chains
 * (beyond, where most cells are tied, as in graphs of whole weights, the
 * levels do better) */
const int64_t SSSP_CHAIN_CELLS = 1 << 18;

/* The trees of sources k0 .. k0 + b - 1 by sssp_unique, their tied cells
 * by their chains where they are few (*chained: how many); *tied: the
 * sources (0 .. b - 1) whose trees the caller makes by levels. scratch:
 * device memory free until the levels (its bytes): the tied cells' list
 * in a quarter, their candidates in the rest */
template <class T, class PT>
bool sssp_trees_unique(gd_call &c, const sssp_up<T> &u, int64_t n, int64_t ns, int64_t k0,
                       int64_t b, const T *D, PT *P, PT none, std::vector<int64_t> *tied,
                       int64_t *chained, void *scratch, size_t bytes)
{
    cudaStream_t st = gd_stream();
    int *dt = (int *)c.alloc((size_t)b * sizeof(int) + 16, "the tied sources");
    unsigned long long *cnt = (unsigned long long *)c.alloc(16, "the tied cells' count");
    const int64_t room = (int64_t)(bytes / 32);
    const int64_t cap = room < SSSP_CHAIN_CELLS ? room : SSSP_CHAIN_CELLS;
    int64_t *tl = (int64_t *)scratch;
    sssp_cand *dc = (sssp_cand *)((char *)scratch + (size_t)cap * 8);
    c.cuda(cudaMemsetAsync(dt, 0, (size_t)b * sizeof(int), st), "the tied sources");
    c.cuda(cudaMemsetAsync(cnt, 0, 16, st), "the tied cells' count");
    if (c.ok() && n * b > 0)
        sssp_unique<T, PT><<<sssp_grid(n * b), 256, 0, st>>>(u.cp, u.ri, u.w, n, ns, k0, b, u.src + k0, D, P, none, dt, tl, cnt, (uint64_t)cap);
    c.launched("the trees");
    std::vector<int> h((size_t)b, 1);
    unsigned long long nt = 0, nc = 0;
    c.cuda(cudaMemcpyAsync(h.data(), dt, (size_t)b * sizeof(int), cudaMemcpyDeviceToHost, st), "the tied sources");
    c.cuda(cudaMemcpyAsync(&nt, cnt, 8, cudaMemcpyDeviceToHost, st), "the tied cells' count");
    c.sync(st, "the trees");
    tied->clear();
    for (int64_t k = 0; k < b; ++k)
        if (h[(size_t)k]) tied->push_back(k);
    if (!c.ok() || !nt || nt > (unsigned long long)cap) return c.ok();
    /* few: each tied cell's candidates (a tied cell has two tight in-edges
     * or so: past four a cell, the levels), their levels on the host */
    const uint64_t fit = (bytes - (size_t)cap * 8) / sizeof(sssp_cand);
    const uint64_t most = 4 * nt + 64 < fit ? 4 * nt + 64 : fit;
    if (c.ok())
        sssp_chains<T, PT><<<sssp_grid((int64_t)nt), 256, 0, st>>>(u.cp, u.ri, u.w, ns, D, P, tl, (int64_t)nt, dc, cnt + 1, most);
    c.launched("the tied cells' chains");
    c.cuda(cudaMemcpyAsync(&nc, cnt + 1, 8, cudaMemcpyDeviceToHost, st), "the candidates' count");
    c.sync(st, "the tied cells' chains");
    if (!c.ok() || nc > most) return c.ok();
    std::vector<int64_t> hl((size_t)nt), cells, vals, left;
    std::vector<sssp_cand> hc((size_t)nc);
    c.cuda(cudaMemcpyAsync(hl.data(), tl, (size_t)nt * 8, cudaMemcpyDeviceToHost, st), "the tied cells");
    c.cuda(cudaMemcpyAsync(hc.data(), dc, (size_t)nc * sizeof(sssp_cand), cudaMemcpyDeviceToHost, st), "the candidates");
    c.sync(st, "the candidates");
    if (!c.ok()) return false;
    if (!sssp_tied_levels(hl, hc, ns, &cells, &vals, &left)) return c.ok(); /* (all by levels) */
    const int64_t m = (int64_t)cells.size();
    if (m) {
        int64_t *dv = (int64_t *)scratch; /* (m <= cap: half the scratch) */
        c.cuda(cudaMemcpyAsync(dv, cells.data(), (size_t)m * 8, cudaMemcpyHostToDevice, st), "the tied cells");
        c.cuda(cudaMemcpyAsync(dv + m, vals.data(), (size_t)m * 8, cudaMemcpyHostToDevice, st), "their predecessors");
        if (c.ok()) sssp_put_p<PT><<<sssp_grid(m), 256, 0, st>>>(dv, dv + m, m, P);
        c.launched("the tied cells' predecessors");
        c.sync(st, "the tied cells' predecessors"); /* (cells, vals) */
    }
    *chained += m;
    /* the sources left to the levels: those with a cell that stayed */
    tied->clear();
    for (int64_t k : left)
        if (k >= k0 && k < k0 + b) tied->push_back(k - k0);
    return c.ok();
}

/* info.kernel's word on the trees: by levels for how many of the sources */
void sssp_trees_said(gd_timing *t, int64_t by_levels, int64_t ns, int64_t chained)
{
    size_t at = strlen(t->kernel);
    if (!by_levels)
        snprintf(t->kernel + at, sizeof t->kernel - at, "; trees from unique predecessors");
    else
        snprintf(t->kernel + at, sizeof t->kernel - at, "; trees by levels for %lld of %lld source%s",
                 (long long)by_levels, (long long)ns, ns == 1 ? "" : "s");
    at = strlen(t->kernel);
    if (chained)
        snprintf(t->kernel + at, sizeof t->kernel - at, ", %lld tied cell%s by their chains",
                 (long long)chained, chained == 1 ? "" : "s");
}
